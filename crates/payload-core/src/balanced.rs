//! Balanced extraction: where a JSON value that starts at a given `{` or `[` ends.
//!
//! Brackets inside strings do not count. Strings are JSON's double-quoted ones, and,
//! because models write them, single-quoted and curly-quoted ones where a string can
//! start (after `{`, `[`, `,` or `:`), so that an apostrophe in a word never opens one.
//! One forward pass, an explicit stack, no recursion: cost is linear in the bytes
//! scanned, whatever the nesting.

/// How a value that opens at some offset ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Balanced {
    /// The value closes; `end` is the offset just after its closing bracket.
    Complete {
        /// Offset just past the closing bracket.
        end: usize,
    },
    /// The text ends before the value closes.
    Truncated,
}

const LEFT_CURLY_QUOTE: char = '\u{201C}';
const RIGHT_CURLY_QUOTE: char = '\u{201D}';

/// Scans the value opening at `start` (which must hold `{` or `[`).
///
/// A closing bracket of the wrong kind closes the innermost matching opener (the
/// missing closers in between are the repairer's or the parser's problem), and a
/// closer that matches nothing open is skipped; either way the scan stays linear.
pub fn scan(text: &str, start: usize) -> Balanced {
    let bytes = text.as_bytes();
    debug_assert!(matches!(bytes.get(start), Some(b'{' | b'[')));
    let mut stack: Vec<u8> = Vec::new();
    // How many of each closer the stack holds, so that a closer matching nothing open
    // is skipped in O(1) instead of a search down a deep stack.
    let (mut open_braces, mut open_brackets) = (0usize, 0usize);
    // The last non-whitespace byte outside strings: decides whether a quote other than
    // `"` can open a string here.
    let mut last_significant = b'{';
    let mut i = start;
    while i < bytes.len() {
        let byte = bytes[i];
        match byte {
            b'{' | b'[' => {
                if byte == b'{' {
                    open_braces += 1;
                    stack.push(b'}');
                } else {
                    open_brackets += 1;
                    stack.push(b']');
                }
                last_significant = byte;
                i += 1;
            }
            b'}' | b']' => {
                let open = if byte == b'}' {
                    open_braces
                } else {
                    open_brackets
                };
                if open > 0 {
                    // Pops are paid for by the pushes that made them: linear overall.
                    while let Some(closer) = stack.pop() {
                        if closer == b'}' {
                            open_braces -= 1;
                        } else {
                            open_brackets -= 1;
                        }
                        if closer == byte {
                            break;
                        }
                    }
                }
                if stack.is_empty() {
                    return Balanced::Complete { end: i + 1 };
                }
                last_significant = byte;
                i += 1;
            }
            b'"' => match skip_string(bytes, i + 1, b'"') {
                Some(next) => {
                    last_significant = b'"';
                    i = next;
                }
                None => return Balanced::Truncated,
            },
            b'\'' if opens_value(last_significant) => match skip_string(bytes, i + 1, b'\'') {
                Some(next) => {
                    last_significant = b'"';
                    i = next;
                }
                None => return Balanced::Truncated,
            },
            0xE2 if opens_value(last_significant) && text[i..].starts_with(LEFT_CURLY_QUOTE) => {
                match text[i + LEFT_CURLY_QUOTE.len_utf8()..].find(RIGHT_CURLY_QUOTE) {
                    Some(rel) => {
                        last_significant = b'"';
                        i += LEFT_CURLY_QUOTE.len_utf8() + rel + RIGHT_CURLY_QUOTE.len_utf8();
                    }
                    None => return Balanced::Truncated,
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            _ => {
                last_significant = byte;
                i += 1;
            }
        }
    }
    Balanced::Truncated
}

fn opens_value(last_significant: u8) -> bool {
    matches!(last_significant, b'{' | b'[' | b',' | b':')
}

/// The offset just past the closing `quote` of a string whose body starts at `from`,
/// honouring backslash escapes; `None` if the text ends first.
fn skip_string(bytes: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    loop {
        let rel = memchr::memchr2(quote, b'\\', &bytes[i..])?;
        let at = i + rel;
        if bytes[at] == b'\\' {
            i = at + 2;
            if i > bytes.len() {
                return None;
            }
        } else {
            return Some(at + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end_of(text: &str) -> Option<&str> {
        let start = text.find(['{', '[']).unwrap();
        match scan(text, start) {
            Balanced::Complete { end } => Some(&text[start..end]),
            Balanced::Truncated => None,
        }
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
    fn apostrophes_in_words_are_not_strings() {
        assert_eq!(end_of("{note: it's fine} x"), Some("{note: it's fine}"));
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
}
