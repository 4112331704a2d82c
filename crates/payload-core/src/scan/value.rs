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
//! The scan is resumable: [`ValueScanner::advance`] stops where the text received so far
//! ends and goes on from there when more arrives, so the streaming parser scans a block
//! once however it is chunked, and the one-shot parser is the same scan with the whole
//! text. One forward pass, an explicit stack, no recursion: linear in the bytes scanned.

use super::quotes::{self, Closing, Quote};

/// How far the scan of a value got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    /// The value closes; the offset just past its closing bracket.
    Closed(usize),
    /// The text so far ends inside the value; more may come.
    NeedMore,
    /// The text is complete and ends inside the value.
    Truncated,
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
        }
    }

    /// Scans on to the end of `text` (`eof`: no more text will come).
    pub(crate) fn advance(&mut self, text: &str, eof: bool) -> Scan {
        if !eof && text.len() < self.retry_at {
            return Scan::NeedMore;
        }
        let bytes = text.as_bytes();
        let len = bytes.len();
        while self.pos < len {
            if let Some(comment) = self.comment {
                match comment {
                    Comment::Line => match memchr::memchr(b'\n', &bytes[self.pos..]) {
                        Some(rel) => {
                            self.pos += rel + 1;
                            self.comment = None;
                        }
                        None => self.pos = len,
                    },
                    Comment::Block => match memchr::memmem::find(&bytes[self.pos..], b"*/") {
                        Some(rel) => {
                            self.pos += rel + 2;
                            self.comment = None;
                        }
                        // A `*` at the end may be closed by a `/` still to come.
                        None if bytes[len - 1] == b'*' => self.pos = (len - 1).max(self.pos),
                        None => self.pos = len,
                    },
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
                let Some(rel) = memchr::memchr2(a, b, &bytes[self.pos..]) else {
                    self.pos = len;
                    break;
                };
                let at = self.pos + rel;
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
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
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

    fn skip_char(&mut self, text: &str) {
        self.pos += 1;
        while !text.is_char_boundary(self.pos) {
            self.pos += 1;
        }
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
