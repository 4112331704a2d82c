//! Which text may still turn out to belong to a block, and must be held back.
//!
//! The one-shot parser decides a block from text on both sides of its marker name: up
//! to two emphasis characters, a heading or bullet prefix, or the whole line when it is
//! blank before the marker, and a fence line above (SPEC 1.2, 1.3). Text is shown only
//! once no later marker can reach back over it. These predicates answer "could this
//! still become ...", erring towards holding: holding too long only delays a delta,
//! releasing too early would show bytes that the final parse removes. They mirror the
//! rules of [`crate::marker`], and the stream's property tests check that they agree.

use crate::marker::{MAX_FENCE_LOOKBACK, MAX_PREFIX, fence_line_above, is_emphasis, is_info_byte};

/// What the stream knows about the last line of the text received so far; updated
/// from the new bytes only, so the cost over a stream is linear.
#[derive(Debug, Default)]
pub(crate) struct CurrentLine {
    /// Offset of the line's first byte.
    pub(crate) start: usize,
    /// The first character that is not whitespace.
    first_visible: Option<usize>,
    /// The first byte that is neither a space nor a tab (what decides a `>` quote).
    first_non_blank: Option<u8>,
    /// The fence opener above the line, computed once per line.
    fence_above: Option<Option<usize>>,
}

impl CurrentLine {
    /// Takes in the bytes of `text` from `from` (the previous end) to its end.
    pub(crate) fn advance(&mut self, text: &str, from: usize) {
        let bytes = text.as_bytes();
        let mut scan_from = from;
        if let Some(nl) = memchr::memrchr(b'\n', &bytes[from..]) {
            *self = CurrentLine {
                start: from + nl + 1,
                ..CurrentLine::default()
            };
            scan_from = self.start;
        }
        if self.first_non_blank.is_none() {
            self.first_non_blank = bytes[scan_from..]
                .iter()
                .copied()
                .find(|b| !matches!(b, b' ' | b'\t'));
        }
        if self.first_visible.is_none() {
            self.first_visible = text[scan_from..]
                .char_indices()
                .find(|(_, c)| !c.is_whitespace())
                .map(|(i, _)| scan_from + i);
        }
    }

    /// Whether the line is quoted with `>`: no marker on it can start a block.
    pub(crate) fn quoted(&self) -> bool {
        self.first_non_blank == Some(b'>')
    }

    /// Whether the line holds only whitespace before `offset`.
    pub(crate) fn blank_before(&self, offset: usize) -> bool {
        self.first_visible.is_none_or(|at| at >= offset)
    }

    /// The fence opener line above this line that a block starting on it could take
    /// along (see `marker::recognise`).
    pub(crate) fn fence_above(&mut self, bytes: &[u8]) -> Option<usize> {
        let start = self.start;
        *self
            .fence_above
            .get_or_insert_with(|| fence_line_above(bytes, start))
    }
}

/// Whether `prefix` (a line's start up to a possible marker) can still grow into a
/// heading or bullet prefix, which a block removes with its marker.
pub(crate) fn heading_viable(prefix: &str) -> bool {
    if prefix.len() > MAX_PREFIX {
        return false;
    }
    let trimmed = prefix.trim();
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    if hashes == trimmed.len() && hashes <= 6 {
        return true;
    }
    if matches!(trimmed, "-" | "*" | "+" | "•") {
        return true;
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits <= 3 && matches!(&trimmed[digits..], "" | "." | ")")
}

/// Whether a line that starts with `prefix` can still be a fence opener, which a block
/// on a following line may enclose.
pub(crate) fn fence_viable(prefix: &str) -> bool {
    if prefix.len() > MAX_FENCE_LOOKBACK {
        return false;
    }
    let trimmed = prefix.trim();
    if "```".starts_with(trimmed) {
        return true;
    }
    trimmed
        .strip_prefix("```")
        .is_some_and(|info| info.bytes().all(is_info_byte))
}

/// Where a marker whose name starts at `start` starts, emphasis included.
pub(crate) fn skip_back_emphasis(bytes: &[u8], mut at: usize) -> usize {
    for _ in 0..2 {
        if at > 0 && is_emphasis(bytes[at - 1]) {
            at -= 1;
        }
    }
    at
}

/// Whether a marker name at `start` (a char boundary) is not glued to a word before it.
pub(crate) fn can_start(text: &str, start: usize) -> bool {
    let marker_start = skip_back_emphasis(text.as_bytes(), start);
    !text[..marker_start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '*')
}

/// Whether `marker::recognise`, for a marker name ending at `end`, ran out of text
/// before deciding: more text could still make it a block.
pub(crate) fn needs_more(bytes: &[u8], end: usize) -> bool {
    let n = bytes.len();
    let mut at = end;
    let skip_emphasis = |mut at: usize| -> Option<usize> {
        for _ in 0..2 {
            if at == n {
                return None;
            }
            if is_emphasis(bytes[at]) {
                at += 1;
            } else {
                break;
            }
        }
        Some(at)
    };
    let Some(next) = skip_emphasis(at) else {
        return true;
    };
    at = next;
    while at < n && matches!(bytes[at], b' ' | b'\t') {
        at += 1;
    }
    if at == n {
        return true;
    }
    if bytes[at] != b':' {
        return false;
    }
    let Some(next) = skip_emphasis(at + 1) else {
        return true;
    };
    at = next;
    if at == n {
        return true;
    }
    if bytes[at].is_ascii_alphanumeric() {
        return false;
    }
    at = skip_whitespace(bytes, at);
    if at == n {
        return true;
    }
    if bytes[at..].starts_with(b"```") {
        at += 3;
        while at < n && is_info_byte(bytes[at]) {
            at += 1;
        }
        at = skip_whitespace(bytes, at);
        return at == n;
    }
    n - at < 3 && b"```".starts_with(&bytes[at..])
}

pub(crate) fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_that_may_still_become_headings_or_bullets() {
        for prefix in ["", "  ", "#", "### ", "-", " * ", "•", "12", "3.", "4) "] {
            assert!(heading_viable(prefix), "{prefix:?}");
        }
        for prefix in ["Note", "#x", "####### ", "- a", "1234", "1.2"] {
            assert!(!heading_viable(prefix), "{prefix:?}");
        }
    }

    #[test]
    fn prefixes_that_may_still_become_fence_openers() {
        for prefix in ["`", "``", "```", "```json", "  ```json "] {
            assert!(fence_viable(prefix), "{prefix:?}");
        }
        for prefix in ["``x", "```json x", "text ```"] {
            assert!(!fence_viable(prefix), "{prefix:?}");
        }
    }

    #[test]
    fn running_out_of_text_after_a_marker_name_is_not_a_decision() {
        let cases = [
            ("SCHEMA_PROPOSAL", true),
            ("SCHEMA_PROPOSAL*", true),
            ("SCHEMA_PROPOSAL :", true),
            ("SCHEMA_PROPOSAL:\n\n", true),
            ("SCHEMA_PROPOSAL: `", true),
            ("SCHEMA_PROPOSAL: ```json", true),
            ("SCHEMA_PROPOSAL: once", false),
            ("SCHEMA_PROPOSAL\n", false),
            ("SCHEMA_PROPOSALS", false),
            ("SCHEMA_PROPOSAL: {", false),
            ("SCHEMA_PROPOSAL: ``x", false),
        ];
        for (text, more) in cases {
            assert_eq!(needs_more(text.as_bytes(), 15), more, "{text:?}");
        }
    }

    #[test]
    fn the_current_line_follows_new_bytes() {
        let mut line = CurrentLine::default();
        let text = "Intro\n  > quoted";
        line.advance(&text[..8], 0);
        assert_eq!(line.start, 6);
        assert!(line.blank_before(8));
        line.advance(text, 8);
        assert!(line.quoted());
        assert!(!line.blank_before(9));
        let text = "Here:\n```json\n\n";
        let mut line = CurrentLine::default();
        line.advance(text, 0);
        assert_eq!(line.fence_above(text.as_bytes()), Some(6));
    }
}
