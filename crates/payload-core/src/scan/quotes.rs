//! Where a string opens and closes, as models write strings: one rule for the balanced
//! scanner (where does a block end), the lenient lexer (what does the string hold) and
//! candidate search, so that they can never disagree about the same text.
//!
//! Models write JSON strings in four quote styles, and put unescaped double quotes
//! inside them (`"the song "Gemini Dream" was written"`). A double quote closes its
//! string when a person reading the text would say it does: when a delimiter follows
//! (`,` `}` `]` `:`, a comment, the next string, the end of the line), or, after a
//! space, a number, a literal or an unquoted key (a missing comma). A quote followed by
//! a word or other punctuation is text inside the string. A single quote (straight or
//! curly) closes unless a letter or digit follows it, so the apostrophe in `'it's'`
//! stays text.
//!
//! Every decision looks ahead only over the text given. When the text may still grow
//! (a stream), running out of it before the decision is made is [`Closing::NeedMore`]
//! rather than a guess, so the streaming parser decides exactly what the one-shot
//! parser decides.

/// The quote a string was opened with, which decides what closes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quote {
    /// `"`: standard JSON.
    Double,
    /// `'`.
    Single,
    /// `“` or `”`: closed by either.
    CurlyDouble,
    /// `‘` or `’`: closed by either, with the apostrophe rule of `'`.
    CurlySingle,
}

/// What a quote character inside a string does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closing {
    /// It closes the string; the closing quote is this many bytes long.
    Closes(usize),
    /// It is text inside the string.
    Inside,
    /// The text ends before the decision (only when more text may come).
    NeedMore,
}

/// The quote that opens a string at byte `i` of `text`, with its length in bytes.
pub(crate) fn opening(text: &str, i: usize) -> Option<(Quote, usize)> {
    match *text.as_bytes().get(i)? {
        b'"' => Some((Quote::Double, 1)),
        b'\'' => Some((Quote::Single, 1)),
        0xE2 => match text[i..].chars().next()? {
            '\u{201C}' | '\u{201D}' => Some((Quote::CurlyDouble, 3)),
            '\u{2018}' | '\u{2019}' => Some((Quote::CurlySingle, 3)),
            _ => None,
        },
        _ => None,
    }
}

/// What the byte at `i` (inside a string opened with `quote`) does; `eof` says the
/// text is complete. Bytes that are not a closing candidate for `quote` are `Inside`.
pub(crate) fn closing(text: &str, i: usize, quote: Quote, eof: bool) -> Closing {
    let bytes = text.as_bytes();
    match (bytes[i], quote) {
        (b'"', Quote::Double) => match double_closes(bytes, i + 1, eof) {
            Some(true) => Closing::Closes(1),
            Some(false) => Closing::Inside,
            None => Closing::NeedMore,
        },
        (b'\'', Quote::Single) => apostrophe_rule(text, i + 1, 1, eof),
        (0xE2, Quote::CurlyDouble)
            if text[i..].starts_with('\u{201C}') || text[i..].starts_with('\u{201D}') =>
        {
            Closing::Closes(3)
        }
        (0xE2, Quote::CurlySingle)
            if text[i..].starts_with('\u{2018}') || text[i..].starts_with('\u{2019}') =>
        {
            apostrophe_rule(text, i + 3, 3, eof)
        }
        _ => Closing::Inside,
    }
}

/// A single quote closes unless a letter or digit follows it.
fn apostrophe_rule(text: &str, after: usize, len: usize, eof: bool) -> Closing {
    match text.get(after..).and_then(|rest| rest.chars().next()) {
        Some(c) if c.is_alphanumeric() => Closing::Inside,
        Some(_) => Closing::Closes(len),
        None if eof => Closing::Closes(len),
        None => Closing::NeedMore,
    }
}

/// Whether a double quote whose next byte is `i` closes its string (see the module
/// docs); `None` when the text ends before that is decided and more may come.
pub(crate) fn double_closes(bytes: &[u8], i: usize, eof: bool) -> Option<bool> {
    let mut at = i;
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    let spaced = at > i;
    match bytes.get(at) {
        None => eof.then_some(true),
        Some(b'\r' | b'\n' | b',' | b'}' | b']' | b':' | b'"' | b'/') => Some(true),
        // `"Jobs" | "Applications"`: choices written as in the instructions' notation.
        // The quote closes, so the reader sees several strings, never one that joins them.
        Some(b'|') => alternative_follows(bytes, at + 1, eof),
        Some(b'0'..=b'9' | b'-' | b'[' | b'{' | b'\'' | 0xE2) => Some(spaced),
        Some(&b) if spaced && (b.is_ascii_alphabetic() || matches!(b, b'_' | b'$')) => {
            let word_end = bytes[at..]
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-')))
                .map(|n| at + n);
            let word_end = match word_end {
                Some(end) => end,
                None if eof => bytes.len(),
                None => return None,
            };
            let mut after = word_end;
            while matches!(bytes.get(after), Some(b' ' | b'\t' | b'\r' | b'\n')) {
                after += 1;
            }
            // A literal, or an unquoted key, after a missing comma.
            let literal = matches!(
                &bytes[at..word_end],
                b"true" | b"false" | b"null" | b"True" | b"False" | b"None"
            );
            if literal {
                return Some(true);
            }
            match bytes.get(after) {
                Some(b':' | b'/') => Some(true),
                Some(_) => Some(false),
                None if eof => Some(false),
                None => None,
            }
        }
        Some(_) => Some(false),
    }
}

/// Whether another quoted string starts after the `|` whose next byte is `i`
/// (whitespace between): `None` when the text ends before that is decided and more
/// may come.
fn alternative_follows(bytes: &[u8], i: usize, eof: bool) -> Option<bool> {
    let mut at = i;
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        at += 1;
    }
    match bytes.get(at) {
        None => (eof).then_some(false),
        Some(b'"' | b'\'') => Some(true),
        // A curly quote is three bytes: `“` `”` `‘` `’` are E2 80 9C/9D/98/99.
        Some(0xE2) => match (bytes.get(at + 1), bytes.get(at + 2)) {
            (Some(0x80), Some(0x9C | 0x9D | 0x98 | 0x99)) => Some(true),
            (Some(_), Some(_)) => Some(false),
            _ if eof => Some(false),
            _ => None,
        },
        Some(_) => Some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_double_quote_followed_by_words_is_text() {
        let text = r#""6" screen", "n": 5"#;
        assert_eq!(closing(text, 2, Quote::Double, true), Closing::Inside);
        let end = text.find("\", ").unwrap();
        assert_eq!(closing(text, end, Quote::Double, true), Closing::Closes(1));
    }

    #[test]
    fn missing_commas_before_keys_and_literals_close() {
        assert_eq!(double_closes(b" next: 1", 0, true), Some(true));
        assert_eq!(double_closes(b" true", 0, true), Some(true));
        assert_eq!(double_closes(b" 12", 0, true), Some(true));
        assert_eq!(double_closes(b"12", 0, true), Some(false));
        assert_eq!(double_closes(b" word more", 0, true), Some(false));
    }

    #[test]
    fn running_out_of_text_waits_unless_the_text_is_complete() {
        for tail in ["", " ", " wor", " word  "] {
            assert_eq!(double_closes(tail.as_bytes(), 0, false), None, "{tail:?}");
        }
        assert_eq!(double_closes(b"", 0, true), Some(true));
        assert_eq!(double_closes(b" word", 0, true), Some(false));
        assert_eq!(
            closing("'", 0, Quote::Single, false),
            Closing::NeedMore,
            "an apostrophe at the end may be followed by a letter"
        );
        assert_eq!(closing("'", 0, Quote::Single, true), Closing::Closes(1));
    }

    #[test]
    fn a_quote_before_a_bar_and_another_quoted_string_closes() {
        for tail in [r#" | "b""#, r#"|"b""#, "\t|\t'b'", " | \u{201C}b\u{201D}"] {
            assert_eq!(
                double_closes(tail.as_bytes(), 0, true),
                Some(true),
                "{tail:?}"
            );
        }
        for tail in [" | b", " || \"b\"", " |", " | 1"] {
            assert_eq!(
                double_closes(tail.as_bytes(), 0, true),
                Some(false),
                "{tail:?}"
            );
        }
        // The first byte of a curly quote is not yet a decision while the text grows.
        for tail in [&b" |"[..], b" | ", b" | \xE2", b" | \xE2\x80"] {
            assert_eq!(double_closes(tail, 0, false), None, "{tail:?}");
        }
    }

    #[test]
    fn apostrophes_in_words_stay_text() {
        assert_eq!(closing("'s fine'", 0, Quote::Single, true), Closing::Inside);
        assert_eq!(
            closing("\u{2019}s", 0, Quote::CurlySingle, true),
            Closing::Inside
        );
        assert_eq!(
            closing("\u{201D}x", 0, Quote::CurlyDouble, true),
            Closing::Closes(3)
        );
    }
}
