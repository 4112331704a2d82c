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
}

impl ValueScanner {
    /// A scan of the value opening at `start` (which holds `{` or `[`).
    pub(crate) fn new(start: usize) -> Self {
        ValueScanner {
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
                match quotes::closing(text, at, quote, eof) {
                    Closing::Closes(n) => {
                        self.pos = at + n;
                        self.string = None;
                        self.last_significant = b'"';
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
                        return Scan::Closed(self.pos);
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
                _ => {
                    self.last_significant = byte;
                    self.skip_char(text);
                }
            }
        }
        if eof { Scan::Truncated } else { Scan::NeedMore }
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
                return LineStart::Ends(Scan::Unclosed {
                    value_end: line,
                    end: line + content.len(),
                });
            }
        }
        if ends
            .enclosing
            .is_some_and(|fence| fence::closes(content, fence))
        {
            return LineStart::Ends(Scan::Unclosed {
                value_end: line,
                end: line,
            });
        }
        if starts_with_marker(ends.table, text, line, line_end, eof) {
            let end = self.blank_from.unwrap_or(line);
            return LineStart::Ends(Scan::Unclosed {
                value_end: end,
                end,
            });
        }
        let outside = self.string.is_none() && self.comment.is_none();
        let visible = content.trim_start_matches(|c| is_horizontal_space(c) || c == '\r');
        if visible.is_empty() {
            if outside && self.blank_from.is_none() {
                self.blank_from = Some(line);
            }
        } else if let Some(blank) = self.blank_from.take() {
            if outside && !continues_value(visible) {
                return LineStart::Ends(Scan::Unclosed {
                    value_end: blank,
                    end: blank,
                });
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
        // Inside a string too: a marker line ends a draft whatever it left open.
        let text = "{\"a\": \"draft\nDATA_PROPOSAL: {}";
        assert!(matches!(ended(text, None), Scan::Unclosed { .. }));
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
