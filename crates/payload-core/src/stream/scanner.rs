//! Balanced extraction that can stop at the end of the text received so far and go on
//! when more arrives: [`crate::balanced::scan`] as a resumable state machine, so a block
//! fed one byte at a time is still scanned once. It follows `scan`'s rules exactly
//! (quotes, escapes, curly quotes, mismatched closers); the stream confirms the end it
//! finds with `scan` itself, once per block.

const LEFT_CURLY_QUOTE: char = '\u{201C}';
const RIGHT_CURLY_QUOTE: char = '\u{201D}';

/// Inside which kind of string the scan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InString {
    No,
    /// A `"` or `'` string; `escaped` when the text so far ends in its backslash.
    Quoted {
        quote: u8,
        escaped: bool,
    },
    /// A curly-quoted string, which ends at the next right curly quote.
    Curly,
}

/// The scan of one value, resumable at any char boundary.
#[derive(Debug)]
pub(crate) struct ValueScanner {
    pos: usize,
    stack: Vec<u8>,
    open_braces: usize,
    open_brackets: usize,
    last_significant: u8,
    string: InString,
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
            string: InString::No,
        }
    }

    /// Scans on to the end of `text`; the offset just past the closing bracket once
    /// the value closes.
    pub(crate) fn advance(&mut self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        let len = bytes.len();
        while self.pos < len {
            match self.string {
                InString::Quoted { quote, escaped } => {
                    let from = if escaped { self.pos + 1 } else { self.pos };
                    self.string = InString::Quoted {
                        quote,
                        escaped: false,
                    };
                    let Some(rel) = bytes
                        .get(from..)
                        .and_then(|rest| memchr::memchr2(quote, b'\\', rest))
                    else {
                        self.pos = len.max(from);
                        return None;
                    };
                    let at = from + rel;
                    if bytes[at] == b'\\' {
                        if at + 1 < len {
                            self.pos = at + 2;
                        } else {
                            self.pos = len;
                            self.string = InString::Quoted {
                                quote,
                                escaped: true,
                            };
                        }
                    } else {
                        self.pos = at + 1;
                        self.string = InString::No;
                        self.last_significant = b'"';
                    }
                }
                InString::Curly => match text[self.pos..].find(RIGHT_CURLY_QUOTE) {
                    Some(rel) => {
                        self.pos += rel + RIGHT_CURLY_QUOTE.len_utf8();
                        self.string = InString::No;
                        self.last_significant = b'"';
                    }
                    None => {
                        self.pos = len;
                        return None;
                    }
                },
                InString::No => {
                    if let Some(end) = self.step(text) {
                        return Some(end);
                    }
                }
            }
        }
        None
    }

    /// One byte outside strings.
    fn step(&mut self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        let i = self.pos;
        let byte = bytes[i];
        self.pos += 1;
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
            }
            b'}' | b']' => {
                let open = if byte == b'}' {
                    self.open_braces
                } else {
                    self.open_brackets
                };
                if open > 0 {
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
                if self.stack.is_empty() {
                    return Some(i + 1);
                }
                self.last_significant = byte;
            }
            b'"' => {
                self.string = InString::Quoted {
                    quote: b'"',
                    escaped: false,
                }
            }
            b'\'' if opens_value(self.last_significant) => {
                self.string = InString::Quoted {
                    quote: b'\'',
                    escaped: false,
                }
            }
            0xE2 if opens_value(self.last_significant)
                && text[i..].starts_with(LEFT_CURLY_QUOTE) =>
            {
                self.pos = i + LEFT_CURLY_QUOTE.len_utf8();
                self.string = InString::Curly;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => self.last_significant = byte,
        }
        None
    }
}

fn opens_value(last_significant: u8) -> bool {
    matches!(last_significant, b'{' | b'[' | b',' | b':')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balanced::{self, Balanced};
    use proptest::prelude::*;

    /// The scan of `text` fed in pieces of `step` chars.
    fn resumed(text: &str, step: usize) -> Balanced {
        let mut scanner = ValueScanner::new(0);
        let mut cut = 0;
        let ends: Vec<usize> = text.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
        while cut < ends.len() {
            cut = (cut + step).min(ends.len());
            if let Some(end) = scanner.advance(&text[..ends[cut - 1]]) {
                return Balanced::Complete { end };
            }
        }
        Balanced::Truncated
    }

    #[test]
    fn agrees_with_the_one_shot_scan_on_model_text() {
        for text in [
            r#"{"a": {"b": [1, 2]}} tail }"#,
            r#"{"a": "}]{[", "b": "\"}"} x"#,
            "{'a': '}'} x",
            "{\u{201C}a\u{201D}: \u{201C}}\u{201D}} x",
            "{note: it's fine} x",
            r#"{"a": [1, 2} tail"#,
            r#"{"a": 1]} tail"#,
            r#"{"a": "ends in escape\"#,
            r#"{"a": "x\\"} y"#,
            "[",
        ] {
            for step in 1..4 {
                assert_eq!(resumed(text, step), balanced::scan(text, 0), "{text:?}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn agrees_with_the_one_shot_scan_on_any_text(
            body in proptest::collection::vec(
                prop::sample::select(vec![
                    "{", "}", "[", "]", "\"", "'", "\\", ":", ",", " ", "a", "é",
                    "\u{201C}", "\u{201D}", "1",
                ]),
                0..40,
            ),
            step in 1usize..5,
        ) {
            let text = format!("{{{}", body.concat());
            prop_assert_eq!(resumed(&text, step), balanced::scan(&text, 0));
        }
    }
}
