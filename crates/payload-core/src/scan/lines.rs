//! The Markdown around a marker that decides whether it may be one (docs/spec.md §1.2, §1.11):
//! code fences, quotes and the prefixes a block takes with it.
//!
//! Models echo and explain payloads as often as they send them: a quote of what the user
//! pasted, a code sample showing the format, a sentence with the marker in backticks.
//! None of those may trigger anything. These predicates read one line's start (or one
//! span of prose) and say what it is, following CommonMark where it is unambiguous:
//!
//! - a **fence** is the one rule of [`crate::fence`];
//! - a **quote** line starts with `>` after optional list bullets or numbers (`- > `,
//!   `1. > `); a non-blank line right after a quote line that starts no other block
//!   (heading, list item, fence, HTML) is its lazy continuation, and quoted too;
//! - text between `<blockquote>` and `</blockquote>` is quoted.

pub(crate) use crate::fence::{Fence, closes as closes_fence, opener as fence_opener};
use crate::space::is_horizontal_space;

/// The longest heading or list prefix a block takes with its marker.
pub(crate) const MAX_PREFIX: usize = 24;

/// `line` without its leading horizontal whitespace (and a stray carriage return:
/// with CRLF line endings a blank line is `\r`, and it is blank).
fn unindented(line: &str) -> &str {
    line.trim_start_matches(|c| is_horizontal_space(c) || c == '\r')
}

/// What a line's start makes it, for quotes and their lazy continuations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// Only whitespace: it ends a quote's paragraph.
    Blank,
    /// A `>` quote line, after optional list markers.
    Quote,
    /// A line that starts another block (heading, list item, fence, HTML): never a lazy
    /// continuation.
    Starter,
    /// Any other text: a lazy continuation when it follows a quote line.
    Text,
}

/// What the line starting with `prefix` is; `None` when `prefix` is not the whole line
/// (`complete` is false) and the rest could change the answer.
pub(crate) fn line_kind(prefix: &str, complete: bool) -> Option<LineKind> {
    let mut rest = unindented(prefix);
    let mut listed = false;
    loop {
        if rest.is_empty() {
            return match (complete, listed) {
                (false, _) => None,
                (true, false) => Some(LineKind::Blank),
                (true, true) => Some(LineKind::Starter),
            };
        }
        if rest.starts_with('>') {
            return Some(LineKind::Quote);
        }
        match list_marker_len(rest) {
            Some(n) => {
                rest = unindented(&rest[n..]);
                listed = true;
            }
            // A bullet at the end of the text so far: a space may follow.
            None if !complete && could_be_list_marker(rest) => return None,
            None => break,
        }
    }
    if listed || rest.starts_with(['#', '<']) || crate::fence::run_at(rest).is_some() {
        return Some(LineKind::Starter);
    }
    if !complete && crate::fence::may_become_run(rest) {
        return None;
    }
    Some(LineKind::Text)
}

/// The length of a list marker (`- `, `* `, `+ `, `• `, `1. `, `1) `) at the start of
/// `text`, its space included.
fn list_marker_len(text: &str) -> Option<usize> {
    let bullet = text
        .chars()
        .next()
        .filter(|c| matches!(c, '-' | '*' | '+' | '•'))
        .map(char::len_utf8);
    let marker = match bullet {
        Some(n) => n,
        None => {
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0
                || digits > 9
                || !matches!(text.as_bytes().get(digits), Some(b'.' | b')'))
            {
                return None;
            }
            digits + 1
        }
    };
    let space = text[marker..].chars().next()?;
    is_horizontal_space(space).then_some(marker + space.len_utf8())
}

/// Whether `text` (the end of the text so far) could still grow into a list marker.
fn could_be_list_marker(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    matches!(text, "-" | "*" | "+" | "•")
        || (digits > 0 && digits <= 9 && matches!(&text[digits..], "" | "." | ")"))
}

/// Whether `prefix` (a line's text before a marker) is one a block removes with its
/// marker: nothing, or a heading (`## `) or list (`- `, `1. `) prefix.
pub(crate) fn is_block_prefix(prefix: &str) -> bool {
    if prefix.len() > MAX_PREFIX {
        return false;
    }
    let trimmed = prefix.trim_matches(is_horizontal_space);
    if trimmed.is_empty() {
        return true;
    }
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && hashes == trimmed.len() {
        return true;
    }
    if matches!(trimmed, "-" | "*" | "+" | "•") {
        return true;
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits <= 3 && matches!(&trimmed[digits..], "." | ")")
}

/// Whether `prefix` could still grow into a block prefix, so that a marker arriving
/// later would take the line's start with it: the stream holds the line until then.
pub(crate) fn may_become_block_prefix(prefix: &str) -> bool {
    if prefix.len() > MAX_PREFIX {
        return false;
    }
    let trimmed = prefix.trim_matches(is_horizontal_space);
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    if hashes == trimmed.len() && hashes <= 6 {
        return true;
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    is_block_prefix(prefix) || (digits > 0 && digits <= 3 && digits == trimmed.len())
}

/// Tracks `<blockquote>` nesting over prose, one span at a time.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HtmlQuotes {
    depth: usize,
}

const OPEN_TAG: &[u8] = b"<blockquote";
const CLOSE_TAG: &[u8] = b"</blockquote>";

impl HtmlQuotes {
    /// Whether text here is inside a `<blockquote>`.
    pub(crate) fn inside(&self) -> bool {
        self.depth > 0
    }

    /// Takes in the prose `bytes[from..to]`; returns where it stopped, which is before
    /// `to` only when a tag may start there and the text after `to` is not known yet
    /// (`settled` is false).
    pub(crate) fn advance(&mut self, bytes: &[u8], from: usize, to: usize, settled: bool) -> usize {
        let mut at = from;
        while let Some(rel) = memchr::memchr(b'<', &bytes[at..to]) {
            let tag = at + rel;
            let seen = &bytes[tag..to];
            if starts_with_ignore_case(seen, CLOSE_TAG) {
                self.depth = self.depth.saturating_sub(1);
                at = tag + CLOSE_TAG.len();
                continue;
            }
            if starts_with_ignore_case(seen, OPEN_TAG) {
                match seen.get(OPEN_TAG.len()) {
                    Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') => self.depth += 1,
                    Some(_) => {}
                    None if !settled => return tag,
                    None => {}
                }
                at = tag + OPEN_TAG.len();
                continue;
            }
            if !settled
                && (prefix_ignore_case(seen, CLOSE_TAG) || prefix_ignore_case(seen, OPEN_TAG))
            {
                return tag;
            }
            at = tag + 1;
        }
        to
    }
}

fn starts_with_ignore_case(text: &[u8], pattern: &[u8]) -> bool {
    text.len() >= pattern.len() && text[..pattern.len()].eq_ignore_ascii_case(pattern)
}

/// Whether `text` is a proper prefix of `pattern`, ignoring case.
fn prefix_ignore_case(text: &[u8], pattern: &[u8]) -> bool {
    text.len() < pattern.len() && pattern[..text.len()].eq_ignore_ascii_case(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_after_list_markers_and_starters() {
        assert_eq!(line_kind("> quoted", true), Some(LineKind::Quote));
        assert_eq!(line_kind("- > quoted", true), Some(LineKind::Quote));
        assert_eq!(line_kind("1. > quoted", true), Some(LineKind::Quote));
        assert_eq!(line_kind("  - 2) > quoted", true), Some(LineKind::Quote));
        assert_eq!(line_kind("- item", true), Some(LineKind::Starter));
        assert_eq!(line_kind("## heading", true), Some(LineKind::Starter));
        assert_eq!(line_kind("```json", true), Some(LineKind::Starter));
        assert_eq!(line_kind("**bold** text", true), Some(LineKind::Text));
        assert_eq!(line_kind("   ", true), Some(LineKind::Blank));
        assert_eq!(line_kind("-", false), None);
        assert_eq!(line_kind("- ", false), None);
        assert_eq!(line_kind("1.", false), None);
        assert_eq!(line_kind("-x", false), Some(LineKind::Text));
    }

    #[test]
    fn block_prefixes() {
        for prefix in ["", "  ", "## ", "- ", "* ", "1. ", "2) ", "• "] {
            assert!(is_block_prefix(prefix), "{prefix:?}");
        }
        for prefix in ["Note: ", "#x ", "####### ", "- a "] {
            assert!(!is_block_prefix(prefix), "{prefix:?}");
        }
        for prefix in ["#", "12", "3.", "-"] {
            assert!(may_become_block_prefix(prefix), "{prefix:?}");
        }
        assert!(!may_become_block_prefix("Note"));
    }

    #[test]
    fn html_blockquotes_nest_and_wait_for_whole_tags() {
        let text = b"a <BlockQuote> b <blockquote class=x> c </blockquote> d";
        let mut quotes = HtmlQuotes::default();
        assert_eq!(quotes.advance(text, 0, 16, true), 16);
        assert!(quotes.inside());
        assert_eq!(quotes.advance(text, 16, text.len(), true), text.len());
        assert!(quotes.inside(), "one level is still open");
        let mut quotes = HtmlQuotes::default();
        let cut = b"x <blockqu";
        assert_eq!(quotes.advance(cut, 0, cut.len(), false), 2);
        assert_eq!(quotes.advance(cut, 0, cut.len(), true), cut.len());
        assert!(!quotes.inside());
        let not_a_tag = b"x < 3 and <b> bold";
        assert_eq!(
            quotes.advance(not_a_tag, 0, not_a_tag.len(), false),
            not_a_tag.len()
        );
    }
}
