//! Scanning the tokens models write: trivia (whitespace, comments), strings in any of
//! the quote styles they use, numbers and bare words.
//!
//! Every function moves forward over the input and never back, and strings are built
//! by appending runs of unchanged text, so reading is linear in the input size.

use super::kinds::{Repair, RepairSet};
use super::{ErrorKind, Hint, RepairError};
use crate::json::precision;
use crate::json::string::{self, Lenient};
use crate::scan::quotes::{self, Closing, Quote};
use serde_json::Value;

/// The reader's position in the text, and the repairs made so far.
pub(super) struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// Byte offset of the next unread byte.
    pub(super) pos: usize,
    /// What has been repaired so far.
    pub(super) repairs: RepairSet,
    /// Whether the last scalar read was a bare word (`true`, `None`).
    pub(super) after_word: bool,
    /// Set when the last number read was an integer too long for 64 bits, read as the
    /// nearest float: the parser notes its path and clears the flag.
    pub(super) inexact: bool,
    /// Set when the last number read was a float literal whose digits the float read
    /// does not hold (`1e-400`, 30 significant digits): the parser notes its path and
    /// literal, and takes it.
    pub(super) imprecise: Option<String>,
}

impl<'a> Lexer<'a> {
    /// A reader at the start of `text`.
    pub(super) fn new(text: &'a str) -> Self {
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            repairs: RepairSet::default(),
            after_word: false,
            inexact: false,
            imprecise: None,
        }
    }

    /// The whole text being read.
    pub(super) fn text(&self) -> &'a str {
        self.text
    }

    /// The next byte, if any.
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Whether everything has been read.
    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// Skips ASCII whitespace only (used around code fences, where a `//` is not a
    /// comment).
    pub(super) fn skip_whitespace(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(0xE2 | 0xEF) if self.skip_invisible() => {}
                _ => return,
            }
        }
    }

    /// Skips an invisible character (docs/spec.md §9.3) here, if one is, noting the repair.
    fn skip_invisible(&mut self) -> bool {
        match crate::space::invisible_len(&self.bytes[self.pos..]) {
            Some(len) => {
                self.repairs.add(Repair::InvisibleCharacters);
                self.pos += len;
                true
            }
            None => false,
        }
    }

    /// Skips whitespace and comments. An unclosed `/*` is a cut-off value.
    pub(super) fn skip_trivia(&mut self) -> Result<(), RepairError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(0xE2 | 0xEF) if self.skip_invisible() => {}
                Some(b'/') => match self.bytes.get(self.pos + 1) {
                    Some(b'/') => {
                        self.repairs.add(Repair::Comments);
                        let rest = &self.bytes[self.pos + 2..];
                        self.pos = match memchr::memchr(b'\n', rest) {
                            Some(i) => self.pos + 2 + i + 1,
                            None => self.bytes.len(),
                        };
                    }
                    Some(b'*') => {
                        self.repairs.add(Repair::Comments);
                        let rest = &self.bytes[self.pos + 2..];
                        match memchr::memmem::find(rest, b"*/") {
                            Some(i) => self.pos += 2 + i + 2,
                            None => {
                                return Err(error(
                                    ErrorKind::Truncated,
                                    "the text ends inside a /* comment",
                                    self.pos,
                                ));
                            }
                        }
                    }
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    /// Whether a value can start here (used to detect a missing comma in an array).
    pub(super) fn starts_value(&self) -> bool {
        match self.peek() {
            Some(b'{' | b'[' | b'-') => true,
            Some(b) if b.is_ascii_digit() => true,
            _ => self.starts_key(),
        }
    }

    /// Whether a key (quoted or bare) can start here (used to detect a missing comma
    /// in an object).
    ///
    /// A `'` or curly quote right after a bare word (`true 'x'`) does not open a
    /// string here: the balanced scanner takes those quotes as quotes only after a
    /// bracket, a comma, a colon, a string or a number (so the apostrophe in a bare
    /// word is not one), and the two must agree on where brackets are, or a prefix the
    /// scanner calls cut off could read as a whole value here.
    pub(super) fn starts_key(&self) -> bool {
        match self.quote() {
            Some((Quote::Double, _)) => true,
            Some(_) => !self.after_word,
            None => self.peek_char().is_some_and(is_word_start),
        }
    }

    /// Reads a scalar: a string, a number or a bare word.
    pub(super) fn scalar(&mut self) -> Result<Value, RepairError> {
        let at = self.pos;
        match self.peek() {
            None => Err(error(
                ErrorKind::Truncated,
                "the text ends where a value was expected",
                at,
            )),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ if self.quote().is_some() => self.string().map(Value::String),
            _ if self.peek_char().is_some_and(is_word_start) => self.literal(),
            _ => Err(error(ErrorKind::Parsing, "expected a value here", at)),
        }
    }

    /// Reads an object key: a string in any quote style, or a bare identifier-like
    /// word (letters, digits, `_`, `$`, `-`).
    pub(super) fn key(&mut self) -> Result<String, RepairError> {
        let at = self.pos;
        if self.quote().is_some() {
            return self.string();
        }
        match self.peek_char() {
            // `{5: "x"}`: in a key's place a bare number is a key too (JavaScript
            // object literals allow it), read as its text.
            Some(c) if is_word_start(c) || c.is_ascii_digit() => {
                self.repairs.add(Repair::UnquotedKeys);
                Ok(self.word().to_string())
            }
            Some(_) => Err(error(
                ErrorKind::Parsing,
                "expected a key in double quotes here",
                at,
            )
            .with_hint(Hint::QuoteKeys)),
            None => Err(error(
                ErrorKind::Truncated,
                "the text ends where a key was expected",
                at,
            )),
        }
    }

    fn peek_char(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    /// The quote that opens a string here, with its length in bytes.
    fn quote(&self) -> Option<(Quote, usize)> {
        quotes::opening(self.text, self.pos)
    }

    /// Whether `|` and then (after whitespace) a quoted string come next: the notation
    /// of choices (`"a" | "b"`), which is not a value.
    pub(super) fn at_alternative(&self) -> bool {
        if self.peek() != Some(b'|') {
            return false;
        }
        let mut at = self.pos + 1;
        while matches!(self.bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        quotes::opening(self.text, at).is_some()
    }

    /// Reads a string; `self.pos` is at its opening quote.
    pub(super) fn string(&mut self) -> Result<String, RepairError> {
        self.after_word = false;
        let open = self.pos;
        let Some((quote, quote_len)) = self.quote() else {
            return Err(error(ErrorKind::Parsing, "expected a string here", open)
                .with_hint(Hint::QuoteStrings));
        };
        match quote {
            Quote::Double => {}
            Quote::Single => self.repairs.add(Repair::SingleQuotes),
            Quote::CurlyDouble | Quote::CurlySingle => self.repairs.add(Repair::CurlyQuotes),
        }
        self.pos += quote_len;
        let mut out = String::new();
        // Start of the run of text not yet copied to `out`.
        let mut run = self.pos;
        loop {
            let Some(b) = self.peek() else {
                return Err(error(
                    ErrorKind::Truncated,
                    "the text ends inside a string that starts here",
                    open,
                ));
            };
            // Which quote closes the string is the one rule the balanced scanner
            // uses too (`crate::scan::quotes`).
            let closing_len = match quotes::closing(self.text, self.pos, quote, true) {
                Closing::Closes(len) => Some(len),
                Closing::Inside if b == b'"' && quote == Quote::Double => {
                    // `"the track "Gemini Dream"?"`: a quote followed by more words is
                    // part of the text, as a person reads it.
                    self.repairs.add(Repair::InnerQuotes);
                    self.pos += 1;
                    continue;
                }
                _ => None,
            };
            if let Some(len) = closing_len {
                out.push_str(&self.text[run..self.pos]);
                self.pos += len;
                return Ok(out);
            }
            match b {
                b'\\' => {
                    out.push_str(&self.text[run..self.pos]);
                    self.escape(&mut out, quote, open)?;
                    run = self.pos;
                }
                0x00..=0x1F => {
                    // Kept as the character it is; serialising the value escapes it.
                    self.repairs.add(Repair::RawControlCharacters);
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Reads one escape into `out`; `self.pos` is at the backslash. The escape rules are
    /// the one string reader's (`json::string::lenient_escape`); an escaped quote of
    /// the string's own style is read as that quote.
    fn escape(&mut self, out: &mut String, quote: Quote, open: usize) -> Result<(), RepairError> {
        let escapes_quote = |c: char| match quote {
            Quote::Double => false,
            Quote::Single => c == '\'',
            Quote::CurlyDouble => matches!(c, '\u{201C}' | '\u{201D}'),
            Quote::CurlySingle => matches!(c, '\u{2018}' | '\u{2019}' | '\''),
        };
        let Some((length, read)) = string::lenient_escape(self.text, self.pos, escapes_quote, out)
        else {
            return Err(error(
                ErrorKind::Truncated,
                "the text ends inside a string that starts here",
                open,
            ));
        };
        if read == Lenient::Repaired {
            self.repairs.add(Repair::InvalidEscapes);
        }
        self.pos += length;
        Ok(())
    }

    /// Reads a number with JSON's grammar (no `+`, no leading zeros, no bare `.5`) and
    /// converts it with serde_json, so `1.0` stays a float and big integers stay exact
    /// as serde_json keeps them.
    fn number(&mut self) -> Result<Value, RepairError> {
        self.after_word = false;
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.bad_number(start)),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                return Err(self.bad_number(start));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                return Err(self.bad_number(start));
            }
            self.digits();
        }
        if self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
        {
            // `01`, `1.2.3`, `12px`, `0x1F`: not a number JSON has, and not two values.
            return Err(
                error(ErrorKind::Parsing, "invalid number", start).with_hint(Hint::PlainNumber)
            );
        }
        let token = &self.text[start..self.pos];
        // Fast path for the common small integer (serde_json would give the same
        // value); `-0` is left to serde_json, which reads it as the float -0.0.
        if token.len() <= 18 && token != "-0" && !token.contains(['.', 'e', 'E']) {
            if let Ok(n) = token.parse::<i64>() {
                return Ok(Value::from(n));
            }
        }
        let value = precision::read_number(token)
            .map(Value::Number)
            .map_err(|e| {
                error(ErrorKind::Parsing, &format!("invalid number: {e}"), start)
                    .with_hint(Hint::PlainNumber)
            })?;
        // serde_json reads an integer beyond 64 bits as the nearest float: `1` followed
        // by 300 zeros becomes 1e300. The text said an exact integer; the caller is told.
        if value.is_f64() && !token.contains(['.', 'e', 'E']) {
            self.inexact = true;
        } else if let Value::Number(number) = &value {
            // `1e-400` is read as 0 and `0.1000000000000000000001` as 0.1: the text
            // said another number, and the caller is told (the rule is in
            // `json::precision`).
            if !precision::number_holds(token, number) {
                self.imprecise = Some(token.to_string());
            }
        }
        Ok(value)
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    /// A number that stops early: cut off at the end of the text, malformed elsewhere.
    fn bad_number(&self, start: usize) -> RepairError {
        if self.at_end() {
            error(ErrorKind::Truncated, "the text ends inside a number", start)
        } else {
            error(ErrorKind::Parsing, "invalid number", start).with_hint(Hint::PlainNumber)
        }
    }

    /// Reads `true`/`false`/`null`, or Python's `True`/`False`/`None`.
    fn literal(&mut self) -> Result<Value, RepairError> {
        self.after_word = true;
        let start = self.pos;
        let word = self.word();
        let value = match word {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            "True" | "False" | "None" => {
                self.repairs.add(Repair::PythonLiterals);
                match word {
                    "True" => Value::Bool(true),
                    "False" => Value::Bool(false),
                    _ => Value::Null,
                }
            }
            _ if self.at_end()
                && ["true", "false", "null", "True", "False", "None"]
                    .iter()
                    .any(|full| full.starts_with(word)) =>
            {
                return Err(error(
                    ErrorKind::Truncated,
                    "the text ends inside a literal",
                    start,
                ));
            }
            "NaN" | "Infinity" | "undefined" => {
                return Err(error(
                    ErrorKind::Parsing,
                    &format!("`{word}` is not JSON: write a number or null"),
                    start,
                )
                .with_hint(Hint::NumberOrNull));
            }
            _ => {
                return Err(error(
                    ErrorKind::Parsing,
                    &format!(
                        "unquoted text `{}`: put strings in double quotes",
                        excerpt(word)
                    ),
                    start,
                )
                .with_hint(Hint::QuoteStrings));
            }
        };
        Ok(value)
    }

    /// Reads an identifier-like word: a letter, `_` or `$`, then letters, digits, `_`,
    /// `$` or `-`.
    fn word(&mut self) -> &'a str {
        let start = self.pos;
        let rest = &self.text[start..];
        let len = rest
            .char_indices()
            .find(|&(i, c)| !(is_word_char(c) || (i == 0 && is_word_start(c))))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += len;
        &self.text[start..start + len]
    }
}

/// Reads the number or bare-word literal (`true`, `None`) that starts at byte `at` of
/// `text` as the lenient reader reads it there: the value and the offset just past it.
/// A reader of a text still arriving (`crate::stream`) calls it once the token is
/// followed by something else, so it reads each token once and as a whole read does.
pub(crate) fn scalar_at(text: &str, at: usize) -> Result<(Value, usize), RepairError> {
    let mut lexer = Lexer::new(text);
    lexer.pos = at;
    let value = lexer.scalar()?;
    Ok((value, lexer.pos))
}

/// At most the first 40 characters of `word`, for an error message (a model can write
/// a megabyte of letters; the message should not carry it).
fn excerpt(word: &str) -> &str {
    word.char_indices()
        .nth(40)
        .map_or(word, |(i, _)| &word[..i])
}

/// Whether a bare word (a literal such as `True`, or an unquoted key) may start with `c`.
pub(crate) fn is_word_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

/// Whether `c` goes on a bare word.
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '-')
}

/// An error of `kind` at byte `offset`.
pub(super) fn error(kind: ErrorKind, message: &str, offset: usize) -> RepairError {
    RepairError {
        message: message.to_string(),
        offset,
        hint: if kind == ErrorKind::Truncated {
            Hint::CloseEverything
        } else {
            Hint::StrictJson
        },
        kind,
        path: String::new(),
        choices: Vec::new(),
    }
}
