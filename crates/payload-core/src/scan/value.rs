//! Balanced extraction: where a value that opens at a `{` or `[` ends.
//!
//! Brackets inside strings and comments (`//`, `/* */`, which the lenient reader skips
//! between tokens) do not count; strings open and close by the one quote rule
//! ([`super::quotes`]) that the lenient lexer uses too. A quote other than `"` opens a
//! string only where a string can start (after `{`, `[`, `,` or `:`), so an apostrophe
//! in a bare word never opens one. A closing bracket of the wrong kind closes the
//! innermost matching opener (the missing closers in between are the repairer's
//! problem), and a closer that matches nothing open is skipped.
//!
//! **Where an unclosed value ends** (docs/spec.md §1.14). With [`Ends`], a value that is still
//! open ends before the text does, at the first of: a line that closes the fence the
//! value opened in; a line that starts with a marker of the page written as a marker;
//! a blank line followed by a line that, outside any string, cannot continue a JSON
//! value (not a bracket, a quote, a number, a literal, a comma, a comment or an
//! unquoted `key:`). Each line's start is read once, when the scan reaches it (and
//! only once the whole line has arrived), so the scan stays one forward pass.
//!
//! **A marker inside a string is text** (docs/spec.md §1.19). A marker line that the scan
//! meets inside a string (a raw line break in a value, as models write them) is looked
//! past: the scan goes on, and the line ends the value only if the value then does not
//! complete — the string holding the line does not close at its first unescaped quote
//! (a JSON string's quotes are escaped; an unescaped one the quote rule reads as text
//! is a draft's string running into the next block), the text ends inside the value,
//! another end comes first, or it closes but does not read ([`Ends::reads`]). The value then ends, unclosed, at that first marker line,
//! as a draft abandoned there does. A scan told not to look past
//! ([`ValueScanner::looking_past`]) ends at such a line at once: a block that starts in
//! text a failed look already read, so no byte is looked through twice.
//!
//! **A value sent inside a string** (docs/values.md): a value may open with `"` (the
//! segmenter opens one there only when a bracket follows); that string is read by the
//! strict rule, closed by its first unescaped quote, and the value ends with it.
//!
//! The scan is resumable: [`ValueScanner::advance`] stops where the text received so far
//! ends and goes on from there when more arrives, so the streaming parser scans a block
//! once however it is chunked, and the one-shot parser is the same scan with the whole
//! text. One forward pass, an explicit stack, no recursion: linear in the bytes scanned.

use super::lines::{self, MAX_PREFIX};
use super::quotes::{self, Closing, Quote};
use super::spelling::{self, Head};
use super::table::MarkerTable;
use crate::fence::{self, Fence};
use crate::space::{self, is_horizontal_space};

/// What ends a value that is still open before the text does (module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ends<'a> {
    /// The page's markers: a line that starts with one ends the value.
    pub(crate) table: &'a MarkerTable,
    /// The fence opened between the marker and the value: its closing line is removed
    /// with the block.
    pub(crate) own: Option<Fence>,
    /// The fence the whole block stands in: its closing line ends the block and stays.
    pub(crate) enclosing: Option<Fence>,
    /// The closing tag of a block written in tags (docs/spec.md §1.21): met outside a
    /// string, or at a line's start, while the value is open, it ends the value
    /// unclosed and is removed with the block.
    pub(crate) close: Option<&'a str>,
    /// Whether a value's text reads as a value (the JSON reader's verdict, repairs
    /// allowed): asked only of a value that closed after a marker line inside one of its
    /// strings was looked past (module docs). The scanner does not read JSON itself.
    pub(crate) reads: fn(&str) -> bool,
}

/// How far the scan of a value got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    /// The value closes; the offset just past its closing bracket.
    Closed(usize),
    /// The text so far ends inside the value; more may come.
    NeedMore,
    /// The text is complete and ends inside the value.
    Truncated,
    /// The text goes on, but the value ended unclosed (docs/spec.md §1.14): its text ends at
    /// `value_end`, and the block with what closes it at `end`.
    Unclosed {
        /// Where the value's text ends.
        value_end: usize,
        /// Where the block ends (past an own fence's closing line).
        end: usize,
    },
}

/// The scan of one value, resumable at any char boundary.
#[derive(Debug, Clone)]
pub(crate) struct ValueScanner {
    /// Where the value opens.
    start: usize,
    pos: usize,
    stack: Vec<u8>,
    open_braces: usize,
    open_brackets: usize,
    last_significant: u8,
    /// The quote of the string the scan is in, if any.
    string: Option<Quote>,
    /// The comment the scan is in, if any: brackets in it do not count, as the
    /// lenient reader skips comments between tokens.
    comment: Option<Comment>,
    /// Do not look again before the text is this long: a quote whose meaning depends
    /// on the text after it is re-examined only once that text has doubled, so a
    /// stream of many tiny chunks stays linear.
    retry_at: usize,
    /// The start of a line whose start has not been read yet (see [`Ends`]).
    line: Option<usize>,
    /// Where a run of blank lines outside any string started, if the scan is in one.
    blank_from: Option<usize>,
    /// Whether a marker line inside a string is looked past (module docs).
    look_past: bool,
    /// The first marker line met inside a string and looked past: where the value
    /// ends if it does not complete.
    marker_in_string: Option<usize>,
    /// The string the scan is in holds a marker line looked past: its first unescaped
    /// quote must close it.
    string_holds_marker: bool,
}

impl ValueScanner {
    /// A scan of the value opening at `start` (which holds `{` or `[`).
    pub(crate) fn new(start: usize) -> Self {
        ValueScanner {
            start,
            pos: start,
            stack: Vec::new(),
            open_braces: 0,
            open_brackets: 0,
            last_significant: b'{',
            string: None,
            comment: None,
            retry_at: 0,
            line: None,
            blank_from: None,
            look_past: true,
            marker_in_string: None,
            string_holds_marker: false,
        }
    }

    /// The same scan, looking past marker lines inside strings only when `look_past`
    /// (module docs).
    pub(crate) fn looking_past(mut self, look_past: bool) -> Self {
        self.look_past = look_past;
        self
    }

    /// Whether the scan looked past a marker line inside a string: when the value then
    /// ended unclosed there, the text up to [`ValueScanner::position`] has been read.
    pub(crate) fn looked_past(&self) -> bool {
        self.marker_in_string.is_some()
    }

    /// The value closed at `end`: closed, unless a marker line inside one of its strings
    /// was looked past and the value does not read; it then ends at that line.
    fn closed(&self, text: &str, end: usize, ends: Option<&Ends<'_>>) -> Scan {
        match (self.marker_in_string, ends) {
            (Some(line), Some(ends)) if !(ends.reads)(&text[self.start..end]) => Scan::Unclosed {
                value_end: line,
                end: line,
            },
            _ => Scan::Closed(end),
        }
    }

    /// What ends the value where the text goes on with something that ends it (`scan`),
    /// or where the text ends inside it (`Truncated`): the first marker line looked past
    /// inside a string, when there was one, since the value did not complete.
    fn ended(&self, scan: Scan) -> Scan {
        match self.marker_in_string {
            Some(line) => Scan::Unclosed {
                value_end: line,
                end: line,
            },
            None => scan,
        }
    }

    /// Where the scan has got to (the value's start until it has begun).
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// The text length below which [`ValueScanner::advance_until`] on a text that has
    /// not ended returns [`Scan::NeedMore`] without reading: it waits for more text
    /// after a quote or a line start that the text so far cannot decide.
    pub(crate) fn idle_below(&self) -> usize {
        self.retry_at
    }

    /// Scans on to the end of `text` (`eof`: no more text will come), with no other
    /// end than the value's closing bracket or the text's end.
    pub(crate) fn advance(&mut self, text: &str, eof: bool) -> Scan {
        self.advance_until(text, eof, None)
    }

    /// Scans on to the end of `text`; with `ends`, an unclosed value ends where they say.
    pub(crate) fn advance_until(&mut self, text: &str, eof: bool, ends: Option<&Ends<'_>>) -> Scan {
        if !eof && text.len() < self.retry_at {
            return Scan::NeedMore;
        }
        let bytes = text.as_bytes();
        let len = bytes.len();
        loop {
            if let (Some(line), Some(ends)) = (self.line, ends) {
                if self.pos >= line {
                    match self.line_start(text, line, eof, ends) {
                        LineStart::Goes => self.line = None,
                        LineStart::NeedMore => return Scan::NeedMore,
                        LineStart::Ends(scan) => return scan,
                    }
                }
            }
            if self.pos >= len {
                break;
            }
            if let Some(comment) = self.comment {
                match comment {
                    Comment::Line => match memchr::memchr(b'\n', &bytes[self.pos..]) {
                        Some(rel) => {
                            self.pos += rel + 1;
                            self.comment = None;
                            self.line = Some(self.pos);
                        }
                        None => self.pos = len,
                    },
                    Comment::Block => {
                        // Line by line, so that each line's start is read (module docs).
                        let line_end = memchr::memchr(b'\n', &bytes[self.pos..])
                            .map_or(len, |rel| self.pos + rel);
                        match memchr::memmem::find(&bytes[self.pos..line_end], b"*/") {
                            Some(rel) => {
                                self.pos += rel + 2;
                                self.comment = None;
                            }
                            None if line_end < len => {
                                self.pos = line_end + 1;
                                self.line = Some(self.pos);
                                continue;
                            }
                            // A `*` at the end may be closed by a `/` still to come.
                            None if bytes[len - 1] == b'*' => self.pos = (len - 1).max(self.pos),
                            None => self.pos = len,
                        }
                    }
                }
                if self.comment.is_some() {
                    break;
                }
                continue;
            }
            if let Some(quote) = self.string {
                let (a, b) = match quote {
                    Quote::Double => (b'"', b'\\'),
                    Quote::Single => (b'\'', b'\\'),
                    Quote::CurlyDouble | Quote::CurlySingle => (0xE2, b'\\'),
                };
                let Some(rel) = memchr::memchr3(a, b, b'\n', &bytes[self.pos..]) else {
                    self.pos = len;
                    break;
                };
                let at = self.pos + rel;
                if bytes[at] == b'\n' {
                    // A line break inside a string (models write them): the next line's
                    // start is read too.
                    self.pos = at + 1;
                    self.line = Some(self.pos);
                    continue;
                }
                if bytes[at] == b'\\' {
                    if at + 1 >= len {
                        // The escaped character has not arrived: resume at the backslash.
                        self.pos = at;
                        break;
                    }
                    self.pos = at + 2;
                    while !text.is_char_boundary(self.pos) {
                        self.pos += 1;
                    }
                    continue;
                }
                // A value sent inside a string is a strict JSON string: its first
                // unescaped quote closes it.
                let top = self.stack.is_empty();
                let closing = if top && quote == Quote::Double {
                    Closing::Closes(1)
                } else {
                    quotes::closing(text, at, quote, eof)
                };
                match closing {
                    Closing::Closes(n) => {
                        self.pos = at + n;
                        self.string = None;
                        self.string_holds_marker = false;
                        self.last_significant = b'"';
                        if top {
                            return self.closed(text, self.pos, ends);
                        }
                    }
                    // Not a JSON string: the marker line in it was no string's text.
                    Closing::Inside if self.string_holds_marker && quote == Quote::Double => {
                        return self.ended(Scan::Truncated);
                    }
                    Closing::Inside => {
                        self.pos = at + 1;
                        while !text.is_char_boundary(self.pos) {
                            self.pos += 1;
                        }
                    }
                    Closing::NeedMore => {
                        self.pos = at;
                        self.retry_at = len + (len - at) + 1;
                        return Scan::NeedMore;
                    }
                }
                continue;
            }
            let byte = bytes[self.pos];
            match byte {
                b'{' | b'[' => {
                    if byte == b'{' {
                        self.open_braces += 1;
                        self.stack.push(b'}');
                    } else {
                        self.open_brackets += 1;
                        self.stack.push(b']');
                    }
                    self.last_significant = byte;
                    self.pos += 1;
                }
                b'}' | b']' => {
                    let open = if byte == b'}' {
                        self.open_braces
                    } else {
                        self.open_brackets
                    };
                    if open > 0 {
                        // Pops are paid for by the pushes that made them: linear overall.
                        while let Some(closer) = self.stack.pop() {
                            if closer == b'}' {
                                self.open_braces -= 1;
                            } else {
                                self.open_brackets -= 1;
                            }
                            if closer == byte {
                                break;
                            }
                        }
                    }
                    self.pos += 1;
                    if self.stack.is_empty() {
                        return self.closed(text, self.pos, ends);
                    }
                    self.last_significant = byte;
                }
                b'"' => {
                    self.string = Some(Quote::Double);
                    self.pos += 1;
                }
                b'\'' | 0xE2 if opens_value(self.last_significant) => {
                    match quotes::opening(text, self.pos) {
                        Some((quote, n)) => {
                            self.string = Some(quote);
                            self.pos += n;
                        }
                        None => self.skip_char(text),
                    }
                }
                b'\n' => {
                    self.pos += 1;
                    self.line = Some(self.pos);
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                // Invisible characters are space between tokens (docs/spec.md §9.3).
                0xE2 | 0xEF if space::invisible_len(&bytes[self.pos..]).is_some() => {
                    self.pos += 3;
                }
                b'/' if self.pos + 1 == len && !eof => {
                    // `//` or `/*` may be completed by the next chunk: decide then.
                    return Scan::NeedMore;
                }
                b'/' if matches!(bytes.get(self.pos + 1), Some(b'/' | b'*')) => {
                    self.comment = Some(if bytes[self.pos + 1] == b'/' {
                        Comment::Line
                    } else {
                        Comment::Block
                    });
                    self.pos += 2;
                }
                b'<' if ends.and_then(|e| e.close).is_some() => {
                    let close = ends.and_then(|e| e.close).unwrap_or_default();
                    let rest = &bytes[self.pos..];
                    if rest.starts_with(close.as_bytes()) {
                        return self.ended(Scan::Unclosed {
                            value_end: self.pos,
                            end: self.pos + close.len(),
                        });
                    }
                    if !eof && close.as_bytes().starts_with(rest) {
                        // The closing tag may be arriving: decide once it has.
                        return Scan::NeedMore;
                    }
                    self.last_significant = byte;
                    self.pos += 1;
                }
                _ => {
                    self.last_significant = byte;
                    self.skip_char(text);
                }
            }
        }
        if eof {
            self.ended(Scan::Truncated)
        } else {
            Scan::NeedMore
        }
    }

    /// Reads the start of the line at `line` (module docs): whether the value goes on.
    fn line_start(&mut self, text: &str, line: usize, eof: bool, ends: &Ends<'_>) -> LineStart {
        let bytes = text.as_bytes();
        let len = bytes.len();
        let line_end = match memchr::memchr(b'\n', &bytes[line..]) {
            Some(rel) => line + rel,
            None if eof => len,
            None => {
                self.wait_for_line_end(len, line);
                return LineStart::NeedMore;
            }
        };
        let content = &text[line..line_end];
        let content = content.strip_suffix('\r').unwrap_or(content);
        if let Some(own) = ends.own {
            if fence::closes(content, own) {
                return LineStart::Ends(self.ended(Scan::Unclosed {
                    value_end: line,
                    end: line + content.len(),
                }));
            }
        }
        if ends
            .enclosing
            .is_some_and(|fence| fence::closes(content, fence))
        {
            return LineStart::Ends(self.ended(Scan::Unclosed {
                value_end: line,
                end: line,
            }));
        }
        if let Some(close) = ends.close {
            let visible = content.trim_start_matches(|c| is_horizontal_space(c) || c == '\r');
            if visible.starts_with(close) {
                // A closing tag at a line's start ends the value, even inside a string
                // (a string of a value does not hold a raw line break).
                let at = line + (content.len() - visible.len());
                return LineStart::Ends(self.ended(Scan::Unclosed {
                    value_end: at,
                    end: at + close.len(),
                }));
            }
        }
        if starts_with_marker(ends.table, text, line, line_end, eof) {
            if self.string.is_some() && self.look_past {
                // Text inside a string, unless the value does not complete.
                self.marker_in_string.get_or_insert(line);
                self.string_holds_marker = true;
                return LineStart::Goes;
            }
            let end = self.blank_from.unwrap_or(line);
            return LineStart::Ends(self.ended(Scan::Unclosed {
                value_end: end,
                end,
            }));
        }
        let outside = self.string.is_none() && self.comment.is_none();
        let visible = content.trim_start_matches(|c| is_horizontal_space(c) || c == '\r');
        if visible.is_empty() {
            if outside && self.blank_from.is_none() {
                self.blank_from = Some(line);
            }
        } else if let Some(blank) = self.blank_from.take() {
            if outside && !continues_value(visible) {
                return LineStart::Ends(self.ended(Scan::Unclosed {
                    value_end: blank,
                    end: blank,
                }));
            }
        }
        LineStart::Goes
    }

    /// Waits for the whole line at `line` to arrive, looking again once the text (now
    /// `len` bytes) has grown by a quarter of what is waiting, so tiny chunks stay
    /// linear.
    fn wait_for_line_end(&mut self, len: usize, line: usize) {
        self.retry_at = len + (len - line) / 4 + 1;
    }

    /// What [`ValueScanner::advance_until`] with [`Ends`] does on `text`, a text that
    /// has not ended, when the scan stands at the start of a line of which `text` holds
    /// no line break yet: it decides nothing and only sets when to look again. Does that
    /// and returns true; returns false, changing nothing, when the scan would do more
    /// (or wait for another reason). A stream calls this instead of the whole step
    /// for most chunks of a block written over many lines.
    pub(crate) fn waits_for_line(&mut self, text: &str) -> bool {
        let len = text.len();
        let Some(line) = self.line else {
            return false;
        };
        if len < self.retry_at || self.pos < line || line > len {
            return false;
        }
        if memchr::memchr(b'\n', &text.as_bytes()[line..]).is_some() {
            return false;
        }
        self.wait_for_line_end(len, line);
        true
    }

    fn skip_char(&mut self, text: &str) {
        self.pos += 1;
        while !text.is_char_boundary(self.pos) {
            self.pos += 1;
        }
    }
}

/// What the start of a line inside a value says.
enum LineStart {
    /// The value goes on through this line.
    Goes,
    /// The line has not all arrived.
    NeedMore,
    /// The value ends here.
    Ends(Scan),
}

/// Whether the line `line..line_end` starts with a marker of the page written as a
/// marker (after an optional heading or list prefix). Only the line's first few bytes
/// are searched, so each line costs a bounded amount.
fn starts_with_marker(
    table: &MarkerTable,
    text: &str,
    line: usize,
    line_end: usize,
    eof: bool,
) -> bool {
    let mut window = (line + MAX_PREFIX + 24 + table.longest()).min(line_end);
    while !text.is_char_boundary(window) {
        window -= 1;
    }
    let Some(found) = table.find_in(text, line, window) else {
        return false;
    };
    let marker_start = spelling::marker_start(text.as_bytes(), found.start);
    if marker_start < line || !lines::is_block_prefix(&text[line..marker_start]) {
        return false;
    }
    // An opening tag at a line's start opens a block, whatever follows it.
    if table.closer(found.pattern).is_some() {
        return true;
    }
    // The line is complete here, so the head is decided.
    let eof = eof || line_end < text.len();
    matches!(
        spelling::head(text, found.start, found.end, eof),
        Head::Colon { .. }
    )
}

/// Whether a line starting with `visible` (its first visible character on) can go on
/// with a JSON value as models write it: a bracket, a quote, a number, a literal, a
/// comma or colon, a comment, or an unquoted key.
fn continues_value(visible: &str) -> bool {
    let bytes = visible.as_bytes();
    match bytes.first() {
        None => true,
        Some(b'{' | b'[' | b'}' | b']' | b',' | b':' | b'"' | b'\'' | b'-' | b'+' | b'.') => true,
        Some(b) if b.is_ascii_digit() => true,
        Some(b'/') => matches!(bytes.get(1), Some(b'/' | b'*')),
        Some(0xE2) => quotes::opening(visible, 0).is_some(),
        Some(b) if b.is_ascii_alphabetic() || matches!(b, b'_' | b'$') => {
            let word = bytes
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-')))
                .unwrap_or(bytes.len());
            let literal = matches!(
                &bytes[..word],
                b"true"
                    | b"false"
                    | b"null"
                    | b"True"
                    | b"False"
                    | b"None"
                    | b"NaN"
                    | b"Infinity"
                    | b"undefined"
            );
            literal
                || visible[word..]
                    .trim_start_matches(is_horizontal_space)
                    .starts_with(':')
        }
        _ => false,
    }
}

/// A comment between tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comment {
    /// `//` to the end of the line.
    Line,
    /// `/*` to `*/`.
    Block,
}

/// Whether a `'` or curly quote after `last_significant` opens a string: where a value
/// starts, or after a value that is not a bare word (a missing comma, which the
/// lenient reader repairs). After a letter it is an apostrophe (`don't`).
fn opens_value(last_significant: u8) -> bool {
    matches!(
        last_significant,
        b'{' | b'[' | b',' | b':' | b'"' | b'}' | b']' | b'0'..=b'9'
    )
}

/// Where the value opening at `start` ends in the complete `text`, or `None` when the
/// text ends first.
pub(crate) fn value_end(text: &str, start: usize) -> Option<usize> {
    match ValueScanner::new(start).advance(text, true) {
        Scan::Closed(end) => Some(end),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn end_of(text: &str) -> Option<&str> {
        let start = text.find(['{', '[']).unwrap();
        value_end(text, start).map(|end| &text[start..end])
    }

    #[test]
    fn brackets_in_comments_do_not_count() {
        let text = "{\"a\": 1 // ]}\n /* } */ }";
        assert_eq!(end_of(text), Some(text));
        assert_eq!(end_of("{\"a\": 1 /* } "), None);
        // Chunked exactly where `//` and `*/` are split, the scan decides the same.
        let mut scanner = ValueScanner::new(0);
        for cut in 1..text.len() {
            assert_ne!(scanner.advance(&text[..cut], false), Scan::Truncated);
        }
        assert_eq!(scanner.advance(text, true), Scan::Closed(text.len()));
    }

    #[test]
    fn stops_at_the_matching_bracket() {
        assert_eq!(
            end_of(r#"x {"a": {"b": [1, 2]}} tail }"#),
            Some(r#"{"a": {"b": [1, 2]}}"#)
        );
        assert_eq!(end_of("[1, [2], 3] and [4]"), Some("[1, [2], 3]"));
    }

    #[test]
    fn brackets_in_strings_do_not_count() {
        assert_eq!(
            end_of(r#"{"a": "}]{[", "b": "\"}"} x"#),
            Some(r#"{"a": "}]{[", "b": "\"}"}"#)
        );
        assert_eq!(end_of("{'a': '}'} x"), Some("{'a': '}'}"));
        assert_eq!(
            end_of("{\u{201C}a\u{201D}: \u{201C}}\u{201D}} x"),
            Some("{\u{201C}a\u{201D}: \u{201C}}\u{201D}}")
        );
    }

    #[test]
    fn inner_quotes_follow_the_lexers_rule() {
        // The lexer repairs this as one string holding `6" screen`; the scan agrees
        // that the value closes at the last brace.
        let text = r#"{"title": "6" screen", "n": 5} tail"#;
        assert_eq!(end_of(text), Some(r#"{"title": "6" screen", "n": 5}"#));
        let text = r#"{"a": "the song "Gemini Dream" was {great}"} x"#;
        assert_eq!(
            end_of(text),
            Some(r#"{"a": "the song "Gemini Dream" was {great}"}"#)
        );
    }

    #[test]
    fn apostrophes_in_words_are_not_strings() {
        assert_eq!(end_of("{note: it's fine} x"), Some("{note: it's fine}"));
        assert_eq!(end_of("{'a': 'it's }'} x"), Some("{'a': 'it's }'}"));
    }

    #[test]
    fn unclosed_values_are_truncated() {
        assert_eq!(end_of(r#"{"a": [1, 2"#), None);
        assert_eq!(end_of(r#"{"a": "never closed}"#), None);
        assert_eq!(end_of(r#"{"a": "ends in escape\"#), None);
        assert_eq!(end_of("{"), None);
    }

    #[test]
    fn mismatched_closers_close_the_matching_opener() {
        assert_eq!(end_of(r#"{"a": [1, 2} tail"#), Some(r#"{"a": [1, 2}"#));
        assert_eq!(end_of(r#"{"a": 1]} tail"#), Some(r#"{"a": 1]}"#));
    }

    /// The scan of `text` fed in pieces of `step` chars, then closed.
    fn resumed(text: &str, step: usize) -> Option<usize> {
        let mut scanner = ValueScanner::new(0);
        let ends: Vec<usize> = text.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
        let mut cut = 0;
        while cut < ends.len() {
            cut = (cut + step).min(ends.len());
            if let Scan::Closed(end) = scanner.advance(&text[..ends[cut - 1]], false) {
                return Some(end);
            }
        }
        match scanner.advance(text, true) {
            Scan::Closed(end) => Some(end),
            _ => None,
        }
    }

    /// Where the value opening at the first bracket of `text` ends, with the ends of
    /// docs/spec.md §1.14 (a page with one marker, `DATA_PROPOSAL`).
    fn ended(text: &str, own: Option<Fence>) -> Scan {
        let table = MarkerTable::new(vec!["DATA_PROPOSAL"]);
        let ends = Ends {
            table: &table,
            own,
            enclosing: None,
            close: None,
            reads: crate::json::reads,
        };
        let start = text.find(['{', '[']).unwrap();
        ValueScanner::new(start).advance_until(text, true, Some(&ends))
    }

    #[test]
    fn an_open_value_ends_at_a_marker_line() {
        let text = "{\"a\": [1,\n- **DATA_PROPOSAL:** {}";
        let line = text.find('-').unwrap();
        assert_eq!(
            ended(text, None),
            Scan::Unclosed {
                value_end: line,
                end: line
            }
        );
        // Inside a string, a marker line ends a draft that does not then complete.
        let text = "{\"a\": \"draft\nDATA_PROPOSAL: {}";
        let line = text.find("DATA").unwrap();
        assert_eq!(
            ended(text, None),
            Scan::Unclosed {
                value_end: line,
                end: line
            }
        );
        // Its string runs into the next block (an unescaped quote read as text): the
        // same, though what follows would read as a key.
        let text = "{\"*]c\n\nDATA_PROPOSAL: {\"operations\": [{\"row_id\": 7}]}\n\nThanks.";
        let line = text.find("DATA").unwrap();
        assert_eq!(
            ended(text, None),
            Scan::Unclosed {
                value_end: line,
                end: line
            }
        );
        // It closes but does not read: the same.
        let text = "{\"a\": \"draft\nDATA_PROPOSAL: x\" : : }\n\nThanks";
        let line = text.find("DATA").unwrap();
        assert_eq!(
            ended(text, None),
            Scan::Unclosed {
                value_end: line,
                end: line
            }
        );
        // A marker mid-line, or a glued one, does not.
        assert_eq!(
            ended("{\"a\": [1,\nsee DATA_PROPOSAL: {}", None),
            Scan::Truncated
        );
        assert_eq!(
            ended("{\"a\": [1,\nMY_DATA_PROPOSAL: {}", None),
            Scan::Truncated
        );
    }

    #[test]
    fn a_marker_line_inside_a_string_of_a_value_that_completes_is_text() {
        let text = "{\"a\": \"one\nDATA_PROPOSAL: {\\\"b\\\": 1}\ntwo\"}\nafter";
        let end = text.rfind("}\n").unwrap() + 1;
        assert_eq!(ended(text, None), Scan::Closed(end));
        // Not looking past (a block in text a failed look read): it ends there.
        let table = MarkerTable::new(vec!["DATA_PROPOSAL"]);
        let ends = Ends {
            table: &table,
            own: None,
            enclosing: None,
            close: None,
            reads: crate::json::reads,
        };
        let scan = ValueScanner::new(0)
            .looking_past(false)
            .advance_until(text, true, Some(&ends));
        assert!(matches!(scan, Scan::Unclosed { .. }), "{scan:?}");
    }

    #[test]
    fn a_value_sent_inside_a_string_ends_at_its_first_unescaped_quote() {
        let text = r#""{\"a\": \"b\"}" and "more""#;
        let end = text.find(" and").unwrap();
        assert_eq!(value_end(text, 0), Some(end));
    }

    #[test]
    fn an_open_value_ends_at_a_blank_line_before_prose() {
        let text = "{\"a\": [1,\n\nSorry, again:";
        let blank = text.find("\n\n").unwrap() + 1;
        assert_eq!(
            ended(text, None),
            Scan::Unclosed {
                value_end: blank,
                end: blank
            }
        );
        for goes_on in [
            "2]}",
            "\"b\": 1}",
            "key: 1}",
            "true]}",
            "// note\n]}",
            "  ]}",
            "-1]}",
        ] {
            let text = format!("{{\"a\": [1,\n\n{goes_on}");
            assert!(matches!(ended(&text, None), Scan::Closed(_)), "{goes_on:?}");
        }
        // Inside a string a blank line is text.
        assert_eq!(ended("{\"a\": \"x\n\nSorry", None), Scan::Truncated);
    }

    #[test]
    fn an_open_value_ends_at_its_fences_closer_only() {
        let fence = crate::fence::opener("````json");
        let text = "{\"a\": 1\n```\n````\nafter";
        let closer = text.find("````").unwrap();
        assert_eq!(
            ended(text, fence),
            Scan::Unclosed {
                value_end: closer,
                end: closer + 4
            }
        );
        assert_eq!(ended("{\"a\": 1\n```\nafter", fence), Scan::Truncated);
    }

    #[test]
    fn line_ends_are_decided_the_same_however_the_text_arrives() {
        let table = MarkerTable::new(vec!["DATA_PROPOSAL"]);
        let ends = Ends {
            table: &table,
            own: None,
            enclosing: None,
            close: None,
            reads: crate::json::reads,
        };
        for text in [
            "{\"a\": [1,\n\nSorry, again:",
            "{\"a\": [1,\nDATA_PROPOSAL: {}",
            "{\"a\": [1,\n\n  2]} tail",
            "{\"a\": /* x\nDATA_PROPOSAL: {}",
        ] {
            let whole = ValueScanner::new(0).advance_until(text, true, Some(&ends));
            let mut scanner = ValueScanner::new(0);
            let mut got = None;
            for cut in (1..text.len()).filter(|&c| text.is_char_boundary(c)) {
                match scanner.advance_until(&text[..cut], false, Some(&ends)) {
                    Scan::NeedMore => {}
                    done => {
                        got = Some(done);
                        break;
                    }
                }
            }
            let got = got.unwrap_or_else(|| scanner.advance_until(text, true, Some(&ends)));
            assert_eq!(got, whole, "{text:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// However the text arrives, the scan ends where the one-shot scan does.
        #[test]
        fn resuming_agrees_with_the_one_shot_scan(
            body in proptest::collection::vec(
                prop::sample::select(vec![
                    "{", "}", "[", "]", "\"", "'", "\\", ":", ",", " ", "a", "é", "\n",
                    "\u{201C}", "\u{201D}", "\u{2019}", "1", "true", "word",
                ]),
                0..40,
            ),
            step in 1usize..5,
        ) {
            let text = format!("{{{}", body.concat());
            prop_assert_eq!(resumed(&text, step), value_end(&text, 0));
        }
    }
}
#[cfg(test)]
mod looking_past {
    use std::time::{Duration, Instant};

    /// Parses (one-shot and streamed) a block whose string never closes, followed by
    /// `lines` marker lines inside it with their quotes escaped; how long it took.
    fn parse_lines(lines: usize) -> Duration {
        let text = format!(
            "SUGGESTED_VALUES: {{\"a\": \"x\n{}",
            "SUGGESTED_VALUES: {\\\"a\\\": \\\"x\n".repeat(lines)
        );
        let options = crate::ParseOptions::new();
        let start = Instant::now();
        let parsed = crate::Parser::new(&options).parse(&text);
        let mut stream = crate::stream::StreamParser::new(&options);
        for chunk in text.as_bytes().chunks(7) {
            stream.push(std::str::from_utf8(chunk).expect("ASCII"));
        }
        let (_, streamed) = stream.finish();
        let took = start.elapsed();
        assert_eq!(streamed, parsed);
        assert_eq!(parsed.rejected.len(), lines + 1);
        took
    }

    /// The first block looks past all the lines and fails, and each later block starts
    /// in the text that look read. Without the rule that such a block does not look
    /// again (docs/spec.md §1.19), each would look to the end: quadratic (80 KB took
    /// over 20 s here). Four times the lines must cost well under sixteen times the time
    /// (linear is four), each size the best of three runs measured in the same process:
    /// a ratio, never a wall-clock bound.
    #[test]
    fn a_failed_look_is_not_repeated_by_the_blocks_it_read() {
        let best = |lines: usize| (0..3).map(|_| parse_lines(lines)).min().expect("runs");
        let (small, large) = (best(300), best(1_200));
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
        assert!(
            ratio < 10.0,
            "4x the lines took {ratio:.1}x the time ({small:?} -> {large:?})"
        );
    }
}
