//! The one code-fence rule (docs/spec.md §9.2), used by every reader of model text: marker mode
//! and the stream, lenient JSON repair, whole-response mode, and the grammars that
//! describe what a model may write.
//!
//! A fence is CommonMark's: a run of three or more backticks or three or more tildes,
//! then any info string (a backtick fence's info string holds no backtick), closed by
//! a line of the same character at least as many times and nothing else. Models indent
//! fences under list items; list nesting is not tracked here, so any horizontal
//! indentation is accepted (CommonMark's "up to three spaces" counts from the list
//! item's content column, which a reader of one line cannot see).
//!
//! ```
//! use payload_core::fence::{Fence, opener, closes};
//!
//! let fence = opener("~~~~json").unwrap();
//! assert_eq!(fence, Fence::new('~', 4).unwrap());
//! assert!(closes("~~~~~", fence));
//! assert!(!closes("~~~", fence), "fewer characters do not close it");
//! assert!(!closes("````", fence), "nor does the other character");
//! ```

/// The characters a fence is made of.
pub const CHARS: [char; 2] = ['`', '~'];

/// The shortest run of fence characters that opens a fence.
pub const MIN_LEN: usize = 3;

use crate::space::is_horizontal_space;

/// A fence's opening run: which character and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fence {
    ch: u8,
    len: usize,
}

impl Fence {
    /// A fence of `len` times `ch`, when that is a fence (`ch` in [`CHARS`], `len` at
    /// least [`MIN_LEN`]).
    pub fn new(ch: char, len: usize) -> Option<Fence> {
        (CHARS.contains(&ch) && len >= MIN_LEN).then_some(Fence { ch: ch as u8, len })
    }

    /// The fence character.
    pub fn ch(self) -> char {
        self.ch as char
    }

    /// How many times the opener repeats it.
    pub fn len(self) -> usize {
        self.len
    }

    /// Always false: a fence has at least [`MIN_LEN`] characters (here for the
    /// `len`/`is_empty` convention).
    pub fn is_empty(self) -> bool {
        false
    }
}

/// `line` without its indentation (and a stray carriage return, which belongs to the
/// line break).
fn unindented(line: &str) -> &str {
    line.trim_start_matches(|c| is_horizontal_space(c) || c == '\r')
}

/// The run of fence characters at the start of `text` (no indentation allowed): the
/// fence it opens, if it is long enough.
pub fn run_at(text: &str) -> Option<Fence> {
    let ch = *text.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = text.bytes().take_while(|&b| b == ch).count();
    (len >= MIN_LEN).then_some(Fence { ch, len })
}

/// Whether `text` (the end of the text received so far) may still grow into a fence
/// run: one or two fence characters of the same kind.
pub fn may_become_run(text: &str) -> bool {
    !text.is_empty()
        && text.len() < MIN_LEN
        && (text.bytes().all(|b| b == b'`') || text.bytes().all(|b| b == b'~'))
}

/// The fence `line` (without its line break) opens, if it is a fence opener.
pub fn opener(line: &str) -> Option<Fence> {
    let rest = unindented(line);
    let fence = run_at(rest)?;
    if fence.ch == b'`' && rest[fence.len..].contains('`') {
        return None;
    }
    Some(fence)
}

/// Whether `line` (without its line break) closes `fence`: the same character at least
/// as many times, and nothing else but spaces.
pub fn closes(line: &str, fence: Fence) -> bool {
    let rest = unindented(line).trim_end();
    rest.len() >= fence.len && rest.bytes().all(|b| b == fence.ch)
}

/// Whether a line that starts with `prefix` (and may go on) can still open a fence:
/// the stream holds such a line until it says.
pub(crate) fn may_open(prefix: &str) -> bool {
    let rest = unindented(prefix);
    rest.is_empty() || run_at(rest).is_some() || may_become_run(rest)
}

/// The longest info string an opener written inline may have (in bytes) when text
/// follows its first word: a longer line after a fence run is not read as an opener.
/// It bounds the work for each marker on a long line of markers and fence runs.
pub(crate) const MAX_INLINE_INFO: usize = 256;

/// Where a fence opener written inline at the start of `text` ends: after its run and
/// its info string. For a fence after a marker's colon (`MARKER: ```json {...}`) and
/// around a value read on its own (repair).
///
/// The info string is what follows the run on its line, never the fence's content
/// (docs/spec.md §9.2): the content starts on the next line. The one exception is the
/// inline form, a value opening with `{` or `[` on the opener's line after at most one
/// word (```` ```json {"a": 1} ````): there the info string is that word. So in
/// ```` ``` 1 ```` the `1` is the info string, and the fence holds nothing yet. A
/// backtick fence whose info string holds a backtick is not an opener (CommonMark).
pub(crate) fn inline_opener(text: &str) -> Option<(Fence, usize)> {
    let fence = run_at(text)?;
    let rest = &text[fence.len..];
    let word = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '`' | '{' | '['))
        .unwrap_or(rest.len());
    let after = rest[word..].trim_start_matches(is_horizontal_space);
    if after.is_empty() || after.starts_with(['\n', '\r', '{', '[']) {
        return Some((fence, fence.len + word));
    }
    // More text on the opener's line: all of it is the info string.
    let window = &rest.as_bytes()[..rest.len().min(MAX_INLINE_INFO + 1)];
    let line = memchr::memchr2(b'\n', b'\r', window).unwrap_or(window.len());
    if line > MAX_INLINE_INFO || (fence.ch == b'`' && window[..line].contains(&b'`')) {
        return None;
    }
    Some((fence, fence.len + line))
}

/// Where a closing run for `fence` written inline at the start of `text` ends (the run
/// of its character, when at least as long as the opener's), or `None`.
pub(crate) fn inline_closer(text: &str, fence: Fence) -> Option<usize> {
    let len = text.bytes().take_while(|&b| b == fence.ch).count();
    (len >= fence.len).then_some(len)
}

/// Follows fences over a text read line by line (whole-response formats): each opener
/// is paired with the first line that closes it.
pub(crate) struct Tracker {
    open: Option<Fence>,
}

impl Tracker {
    /// A tracker outside any fence.
    pub(crate) fn new() -> Self {
        Tracker { open: None }
    }

    /// Reads the next line; whether it belongs to a fenced block (its opener, its
    /// content or its closer).
    pub(crate) fn line(&mut self, line: &str) -> bool {
        match self.open {
            Some(fence) => {
                if closes(line, fence) {
                    self.open = None;
                }
                true
            }
            None => {
                self.open = opener(line);
                self.open.is_some()
            }
        }
    }

    /// Whether a fence is open after the lines read so far.
    pub(crate) fn is_open(&self) -> bool {
        self.open.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_open_and_close_as_in_commonmark() {
        let fence = opener("```python").unwrap();
        assert!(closes("```", fence));
        assert!(closes("  ````  ", fence));
        assert!(closes("```\r", fence));
        assert!(!closes("```json", fence));
        assert!(!closes("~~~", fence));
        assert!(opener("  ~~~").is_some());
        assert!(opener("~~~ `backticks` are fine here").is_some());
        assert!(opener("``").is_none());
        assert!(opener("```js `x`").is_none());
        assert!(!closes("```", opener("````").unwrap()));
        assert!(closes("~~~~", opener("~~~json").unwrap()));
    }

    #[test]
    fn inline_openers_and_closers() {
        assert_eq!(
            inline_opener("~~~json {}").map(|(f, n)| (f.ch(), f.len(), n)),
            Some(('~', 3, 7))
        );
        assert_eq!(inline_opener("````{}").map(|(_, n)| n), Some(4));
        assert_eq!(inline_opener("``{}"), None);
        // Text after the first word on the opener's line is the info string, not the
        // content: the content starts on the next line.
        assert_eq!(inline_opener("``` 1").map(|(_, n)| n), Some(5));
        assert_eq!(inline_opener("```json 1\n2").map(|(_, n)| n), Some(9));
        assert_eq!(inline_opener("~~~ a `b` c\r\n{}").map(|(_, n)| n), Some(11));
        assert_eq!(
            inline_opener("``` a `b`\n{}"),
            None,
            "a backtick in the info string"
        );
        let long = format!("``` {}\n{{}}", "x ".repeat(MAX_INLINE_INFO));
        assert_eq!(inline_opener(&long), None, "an info string past the bound");
        let fence = Fence::new('`', 4).unwrap();
        assert_eq!(inline_closer("````` x", fence), Some(5));
        assert_eq!(inline_closer("``` x", fence), None);
    }

    #[test]
    fn the_tracker_pairs_openers_with_their_closers() {
        let mut tracker = Tracker::new();
        let inside: Vec<bool> = ["a", "````md", "```", "b", "````", "c"]
            .iter()
            .map(|l| tracker.line(l))
            .collect();
        assert_eq!(inside, [false, true, true, true, true, false]);
        assert!(!tracker.is_open());
    }
}
