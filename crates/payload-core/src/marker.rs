//! Recognising marker occurrences the way models write them (SPEC 1.2 and 1.3).
//!
//! A match of a marker's name is a block only when it is written as a marker: optionally
//! wrapped in up to two `*` or `_` on each side, then optional spaces and a colon (the
//! colon may sit inside the emphasis), then only whitespace and at most one code-fence
//! opener before the opening bracket. A name inside a longer identifier, a marker on a
//! `>`-quoted line, and a marker followed by anything else are prose.
//!
//! Every look-around here is bounded or covers text no other occurrence re-reads, so
//! recognising all the matches of a text is linear in its length.

/// How far before a marker a heading or list-bullet prefix may start.
pub(crate) const MAX_PREFIX: usize = 24;
/// How far back a fence opener on the line above may be looked for.
pub(crate) const MAX_FENCE_LOOKBACK: usize = 64;

/// A marker written as the start of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    /// Where the marker starts, including its emphasis.
    pub marker_start: usize,
    /// Where the text to remove starts: the line start when a heading or bullet prefix
    /// precedes the marker, the fence line when a fence encloses the block.
    pub remove_start: usize,
    /// The offset of the value's opening bracket.
    pub value_start: usize,
    /// A fence opener stands between the colon and the value.
    pub fence_after_marker: bool,
    /// The line above the marker is a fence opener that may enclose the block: its
    /// offset, to be removed if a closing fence follows the value.
    pub enclosing_fence: Option<usize>,
}

/// Tracks the line the scan is on as matches arrive in increasing order, so that the
/// start of a match's line costs only the bytes since the previous match.
#[derive(Debug, Default)]
pub struct LineTracker {
    scanned_to: usize,
    line_start: usize,
    quoted: Option<bool>,
}

impl LineTracker {
    /// The start of the line holding `offset` (offsets must not decrease).
    fn line_start(&mut self, bytes: &[u8], offset: usize) -> usize {
        if offset > self.scanned_to {
            if let Some(nl) = memchr::memrchr(b'\n', &bytes[self.scanned_to..offset]) {
                self.line_start = self.scanned_to + nl + 1;
                self.quoted = None;
            }
            self.scanned_to = offset;
        }
        self.line_start
    }

    /// Whether the current line is quoted with `>` (computed once per line).
    fn is_quoted(&mut self, bytes: &[u8]) -> bool {
        let start = self.line_start;
        *self.quoted.get_or_insert_with(|| {
            bytes[start..]
                .iter()
                .find(|b| !matches!(b, b' ' | b'\t'))
                .is_some_and(|&b| b == b'>')
        })
    }
}

/// Decides whether the marker-name match at `start..end` begins a block.
pub fn recognise(
    text: &str,
    start: usize,
    end: usize,
    lines: &mut LineTracker,
) -> Option<Occurrence> {
    let bytes = text.as_bytes();
    let marker_start = skip_back_emphasis(bytes, start);
    if let Some(before) = text[..marker_start].chars().next_back() {
        if before.is_alphanumeric() || before == '_' || before == '*' {
            return None;
        }
    }
    let mut at = skip_emphasis(bytes, end);
    at = skip_spaces(bytes, at);
    if bytes.get(at) != Some(&b':') {
        return None;
    }
    at = skip_emphasis(bytes, at + 1);
    if bytes.get(at).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }

    let line_start = lines.line_start(bytes, marker_start);
    if lines.is_quoted(bytes) {
        return None;
    }

    at = skip_whitespace(bytes, at);
    let mut fence_after_marker = false;
    if bytes[at..].starts_with(b"```") {
        fence_after_marker = true;
        at = skip_info_string(bytes, at + 3);
        at = skip_whitespace(bytes, at);
    }
    if !matches!(bytes.get(at), Some(b'{' | b'[')) {
        return None;
    }

    let prefix = &text[line_start..marker_start];
    let at_line_start = prefix.trim().is_empty();
    let remove_start = if at_line_start || is_heading_or_bullet(prefix) {
        line_start
    } else {
        marker_start
    };
    let enclosing_fence = if at_line_start && !fence_after_marker {
        fence_line_above(bytes, line_start)
    } else {
        None
    };
    Some(Occurrence {
        marker_start,
        remove_start,
        value_start: at,
        fence_after_marker,
        enclosing_fence,
    })
}

/// Where the block's removal ends: just after the value, or after a closing fence
/// that follows it when the block was fenced.
pub fn removal_end(bytes: &[u8], value_end: usize, fenced: bool) -> (usize, bool) {
    if !fenced {
        return (value_end, false);
    }
    let after = skip_whitespace(bytes, value_end);
    if bytes[after..].starts_with(b"```") {
        (after + 3, true)
    } else {
        (value_end, false)
    }
}

/// The range a complete block removes from the message: from the marker (or its
/// heading/bullet prefix, or the fence line that encloses it) to the end of the value
/// (or its closing fence). A block that fills its lines also takes the line break after
/// it, so that removing it leaves the lines around it as they were.
pub fn removal_range(text: &str, at: &Occurrence, value_end: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let fenced = at.fence_after_marker || at.enclosing_fence.is_some();
    let (mut end, closed_fence) = removal_end(bytes, value_end, fenced);
    let mut start = at.remove_start;
    if let (Some(fence), true) = (at.enclosing_fence, closed_fence) {
        start = fence;
    } else if at.enclosing_fence.is_some() && !at.fence_after_marker {
        // A fence above with no closer after the value does not enclose this block.
        end = value_end;
    }
    if starts_line(bytes, start) {
        if bytes[end..].starts_with(b"\r\n") {
            end += 2;
        } else if bytes[end..].starts_with(b"\n") {
            end += 1;
        }
    }
    (start, end)
}

/// Whether `offset` is at the start of a line.
pub fn starts_line(bytes: &[u8], offset: usize) -> bool {
    offset == 0 || bytes[offset - 1] == b'\n'
}

pub(crate) fn is_emphasis(byte: u8) -> bool {
    byte == b'*' || byte == b'_'
}

fn skip_back_emphasis(bytes: &[u8], mut at: usize) -> usize {
    for _ in 0..2 {
        if at > 0 && is_emphasis(bytes[at - 1]) {
            at -= 1;
        }
    }
    at
}

fn skip_emphasis(bytes: &[u8], mut at: usize) -> usize {
    for _ in 0..2 {
        if bytes.get(at).copied().is_some_and(is_emphasis) {
            at += 1;
        }
    }
    at
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        at += 1;
    }
    at
}

fn skip_info_string(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).copied().is_some_and(is_info_byte) {
        at += 1;
    }
    at
}

/// A byte of a fence's info string (` ```json `, ` ```c++ `).
pub(crate) fn is_info_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+')
}

/// `## `, `- `, `* `, `+ `, `1. ` or `1) ` (with surrounding spaces) and nothing else.
fn is_heading_or_bullet(prefix: &str) -> bool {
    if prefix.len() > MAX_PREFIX {
        return false;
    }
    let trimmed = prefix.trim();
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

/// If the line just above `line_start` (blank lines skipped) is a fence opener, its
/// offset.
pub(crate) fn fence_line_above(bytes: &[u8], line_start: usize) -> Option<usize> {
    let floor = line_start.saturating_sub(MAX_FENCE_LOOKBACK);
    let mut end = line_start;
    while end > floor && matches!(bytes[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
        end -= 1;
    }
    let start = memchr::memrchr(b'\n', &bytes[floor..end]).map(|i| floor + i + 1);
    let start = match start {
        Some(s) => s,
        None if floor == 0 => 0,
        None => return None,
    };
    let line = std::str::from_utf8(&bytes[start..end]).ok()?.trim();
    let info = line.strip_prefix("```")?;
    info.bytes().all(is_info_byte).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recognise_first(text: &str, marker: &str) -> Option<Occurrence> {
        let start = text.find(marker).unwrap();
        recognise(
            text,
            start,
            start + marker.len(),
            &mut LineTracker::default(),
        )
    }

    #[test]
    fn plain_bold_italic_and_colon_inside() {
        for text in [
            "SCHEMA_PROPOSAL: {}",
            "**SCHEMA_PROPOSAL**: {}",
            "*SCHEMA_PROPOSAL*: {}",
            "**SCHEMA_PROPOSAL:** {}",
            "__SCHEMA_PROPOSAL__ : {}",
            "SCHEMA_PROPOSAL:\n```json\n{}\n```",
        ] {
            let found = recognise_first(text, "SCHEMA_PROPOSAL").expect(text);
            assert_eq!(found.marker_start, 0, "{text}");
            assert_eq!(&text[found.value_start..found.value_start + 1], "{");
        }
    }

    #[test]
    fn prose_and_identifiers_are_not_blocks() {
        for text in [
            "I'll send a SCHEMA_PROPOSAL: once you confirm {x}",
            "MY_SCHEMA_PROPOSAL: {}",
            "SCHEMA_PROPOSALS: {}",
            "SCHEMA_PROPOSAL {}",
            "SCHEMA_PROPOSAL: ``` ``` {}",
            "> SCHEMA_PROPOSAL: {}",
            "  > quoted SCHEMA_PROPOSAL: {}",
        ] {
            assert!(recognise_first(text, "SCHEMA_PROPOSAL").is_none(), "{text}");
        }
    }

    #[test]
    fn headings_and_bullets_are_removed_with_the_marker() {
        let text = "Intro\n## SCHEMA_PROPOSAL: {}";
        let found = recognise_first(text, "SCHEMA_PROPOSAL").unwrap();
        assert_eq!(found.remove_start, 6);
        let text = "Intro\n- **SUGGESTED_VALUES:** []";
        let found = recognise_first(text, "SUGGESTED_VALUES").unwrap();
        assert_eq!(found.remove_start, 6);
        let text = "Intro: SCHEMA_PROPOSAL: {}";
        let found = recognise_first(text, "SCHEMA_PROPOSAL").unwrap();
        assert_eq!(found.remove_start, 7);
    }

    #[test]
    fn a_fence_above_may_enclose_the_block() {
        let text = "Here:\n```json\nSCHEMA_PROPOSAL: {}\n```";
        let found = recognise_first(text, "SCHEMA_PROPOSAL").unwrap();
        assert_eq!(found.enclosing_fence, Some(6));
    }
}
