//! The tokens of a value still arriving, each read from where the last text stopped:
//! strings in any quote style, the extent of numbers and bare words, comments, and the
//! code fence around a value. The rules are the lenient reader's
//! (`crate::json::repair::lexer`), through the same decision functions, so a token
//! read here in pieces ends where the whole read ends it.

use crate::fence::MAX_INLINE_INFO;
use crate::json::repair;
use crate::json::string;
use crate::scan::quotes::{self, Closing, Quote};

/// How a string's reading stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StringEnd {
    /// Its closing quote was read.
    Closed,
    /// The text ends inside it.
    Cut,
    /// A quote whose meaning depends on text not here yet (`"` followed by a space).
    Undecided,
    /// The whole value ends inside it: a string cut off, which the repairer refuses.
    Refused,
}

/// The first byte of the quotes that may close a string opened with `quote`: with `\`,
/// the only bytes [`string`] stops at.
pub(super) fn closer(quote: Quote) -> u8 {
    match quote {
        Quote::Double => b'"',
        Quote::Single => b'\'',
        Quote::CurlyDouble | Quote::CurlySingle => 0xE2,
    }
}

/// Reads the string opened with `quote` from `*at` (just past its opening quote, or
/// where the last call stopped), appending what it holds to `out`.
pub(super) fn string(
    text: &str,
    at: &mut usize,
    quote: Quote,
    eof: bool,
    out: &mut String,
) -> StringEnd {
    let bytes = text.as_bytes();
    // Plain runs between the closer's first byte and backslashes are copied whole.
    let closer = closer(quote);
    // Start of the run of text not yet copied to `out`.
    let mut run = *at;
    loop {
        let Some(offset) = memchr::memchr2(closer, b'\\', &bytes[*at..]) else {
            *at = bytes.len();
            out.push_str(&text[run..]);
            return if eof {
                StringEnd::Refused
            } else {
                StringEnd::Cut
            };
        };
        *at += offset;
        if bytes[*at] == b'\\' {
            out.push_str(&text[run..*at]);
            let escapes_quote = |c: char| escapes_quote(quote, c);
            match string::lenient_escape(text, *at, escapes_quote, out) {
                Some((len, _)) => *at += len,
                None if eof => return StringEnd::Refused,
                None => return StringEnd::Cut,
            }
            run = *at;
            continue;
        }
        match quotes::closing(text, *at, quote, eof) {
            Closing::Closes(len) => {
                out.push_str(&text[run..*at]);
                *at += len;
                return StringEnd::Closed;
            }
            Closing::NeedMore => {
                out.push_str(&text[run..*at]);
                return StringEnd::Undecided;
            }
            // An apostrophe, a quote inside the text, another character of `closer`.
            Closing::Inside => *at += 1,
        }
    }
}

/// Whether `\c` in a string opened with `quote` is that quote escaped (read as the
/// quote itself), as the lenient reader has it.
fn escapes_quote(quote: Quote, c: char) -> bool {
    match quote {
        Quote::Double => false,
        Quote::Single => c == '\'',
        Quote::CurlyDouble => matches!(c, '\u{201C}' | '\u{201D}'),
        Quote::CurlySingle => matches!(c, '\u{2018}' | '\u{2019}' | '\''),
    }
}

/// Moves `*at` over the characters a number may hold; true once something else follows
/// (or the whole value ends), when the number can be read as the whole read reads it.
pub(super) fn number_end(text: &str, at: &mut usize, eof: bool) -> bool {
    let bytes = text.as_bytes();
    while bytes
        .get(*at)
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
    {
        *at += 1;
    }
    *at < bytes.len() || eof
}

/// Moves `*at` over the characters a bare word holds; true once something else follows
/// (or the whole value ends).
pub(super) fn word_end(text: &str, at: &mut usize, eof: bool) -> bool {
    *at += text[*at..]
        .char_indices()
        .find(|&(_, c)| !repair::is_word_char(c))
        .map_or(text.len() - *at, |(i, _)| i);
    *at < text.len() || eof
}

/// Moves `*at` past the end of a `//` comment's line; false (at the end of the text)
/// when the line has not ended.
pub(super) fn line_comment_end(text: &str, at: &mut usize) -> bool {
    match memchr::memchr(b'\n', &text.as_bytes()[*at..]) {
        Some(i) => {
            *at += i + 1;
            true
        }
        None => {
            *at = text.len();
            false
        }
    }
}

/// Moves `*at` past a `/* */` comment's `*/`; false when it has not come (then `*at`
/// stays where a `*/` cut in two would start).
pub(super) fn block_comment_end(text: &str, at: &mut usize) -> bool {
    let bytes = text.as_bytes();
    match memchr::memmem::find(&bytes[*at..], b"*/") {
        Some(i) => {
            *at += i + 2;
            true
        }
        None => {
            *at = if bytes.len() > *at && bytes[bytes.len() - 1] == b'*' {
                bytes.len() - 1
            } else {
                bytes.len()
            };
            false
        }
    }
}

/// Skips the whitespace the lenient reader skips before a value's fence: ASCII
/// whitespace and invisible characters.
pub(super) fn skip_whitespace(text: &str, at: &mut usize) {
    let bytes = text.as_bytes();
    loop {
        match bytes.get(*at) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => *at += 1,
            Some(0xE2 | 0xEF) => match crate::space::invisible_len(&bytes[*at..]) {
                Some(len) => *at += len,
                None => return,
            },
            _ => return,
        }
    }
}

/// Whether `rest` (starting with a fence character) holds enough for
/// [`crate::fence::inline_opener`] to answer as it would on any longer text: the run has
/// ended, and either the opener's line has ended, or a value follows its word, or the
/// line is longer than an inline info string may be.
pub(super) fn fence_decided(rest: &str) -> bool {
    let ch = rest.as_bytes()[0];
    let run = rest.bytes().take_while(|&b| b == ch).count();
    let after_run = &rest[run..];
    if after_run.is_empty() {
        return false;
    }
    let word = after_run
        .find(|c: char| c.is_whitespace() || matches!(c, '`' | '{' | '['))
        .unwrap_or(after_run.len());
    let after = after_run[word..].trim_start_matches(crate::space::is_horizontal_space);
    let window = &after_run.as_bytes()[..after_run.len().min(MAX_INLINE_INFO + 1)];
    after.starts_with(['\n', '\r', '{', '['])
        || memchr::memchr2(b'\n', b'\r', window).is_some()
        || after_run.len() > MAX_INLINE_INFO
}

/// The character at byte `at` of `text`.
pub(super) fn char_at(text: &str, at: usize) -> Option<char> {
    text[at..].chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_opener_is_decided_once_its_line_or_value_has_come() {
        for undecided in ["```", "```json", "```json  ", "```json x"] {
            assert!(!fence_decided(undecided), "{undecided:?}");
        }
        for decided in ["```json\n", "```json {", "```{", "``` [", "```json x\n"] {
            assert!(fence_decided(decided), "{decided:?}");
            let longer = format!("{decided}more");
            assert_eq!(
                crate::fence::inline_opener(decided),
                crate::fence::inline_opener(&longer),
                "{decided:?}"
            );
        }
    }

    #[test]
    fn a_block_comment_cut_before_its_slash_resumes_at_the_star() {
        let mut at = 2;
        assert!(!block_comment_end("/* note *", &mut at));
        assert_eq!(at, 8);
        assert!(block_comment_end("/* note */", &mut at));
        assert_eq!(at, 10);
    }
}
