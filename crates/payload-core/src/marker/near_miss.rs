//! Near-miss markers (docs/spec.md §1.16): a page marker written in another case or with spaces or
//! hyphens for its underscores (`schema_proposal:`, `Schema Proposal:`,
//! `SCHEMA-PROPOSAL:`) and followed by a JSON value, or written in any of those
//! spellings as a label with no colon, alone on its line, with a value on the next
//! (`### SCHEMA_PROPOSAL` above a fenced JSON block). Markers are case-sensitive, so such
//! a block is not read and stays in the message; but the model plainly meant to send
//! it, so it is reported (a `near_miss_marker` warning, and a missed block an agent
//! re-asks for) instead of passing in silence.
//!
//! Three more forms say as plainly which block was meant, and are reported the same
//! way (docs/markers.md, "Near misses"): the marker as a tag around the value
//! (`<DATA_PROPOSAL>{...}</DATA_PROPOSAL>`: a tag pair is a marker only where a page
//! declares one, read by the segmenter; written for an undeclared one it is a near
//! miss), a note between the marker and its colon (`SCHEMA_PROPOSAL (update):` before
//! the value), and the marker as a code fence's info string (```` ```SCHEMA_PROPOSAL ````
//! above a value). Each stays in the message, so the re-ask has what it needs.
//!
//! The search runs once over the final message (so the stream, which builds the same
//! message, finds the same ones): one case-insensitive automaton over the markers, on a
//! copy of the message where spaces and hyphens read as underscores. A match counts
//! where an exact marker would count: written as a marker (emphasis, colon, then the
//! value), not glued to a word, not quoted, not in a code span or a code fence.

use crate::fence;
use crate::scan::lines::{self, LineKind};
use crate::scan::spelling::{self, Spelling};
use aho_corasick::{AhoCorasick, MatchKind};

/// At most this many near misses are reported per response (warnings are capped too).
const MAX_REPORTED: usize = 100;

/// The longest note between a marker and its colon that is read as one (bytes, the
/// parentheses included): it bounds the work for each match.
const MAX_NOTE: usize = 120;

/// The page's markers, for finding them in other spellings.
#[derive(Debug, Clone)]
pub(crate) struct NearMisses {
    automaton: Option<AhoCorasick>,
    markers: Vec<&'static str>,
}

/// A near miss found in a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NearMiss {
    /// The marker meant, as an index into the page's markers.
    pub(crate) pattern: usize,
    /// The name as the model wrote it.
    pub(crate) written: String,
    /// What is wrong with it.
    pub(crate) why: Why,
}

/// Why a near miss is not a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// Another case, or spaces or hyphens for its underscores.
    Spelling,
    /// A label with no colon (in the marker's own spelling or another).
    NoColon,
    /// Written as a tag around the value (`<NAME>{...}`).
    Tag,
    /// A note in parentheses between the name and its colon (`NAME (a note): {...}`).
    Note,
    /// The info string of a code fence whose content is a value (```` ```NAME ````).
    FenceInfo,
}

impl Why {
    /// What is wrong, as the warning says it.
    pub(crate) fn phrase(self) -> &'static str {
        match self {
            Why::Spelling => "markers are case-sensitive",
            Why::NoColon => "it has no colon",
            Why::Tag => "it is written as a tag, not as a marker with a colon",
            Why::Note => "a note stands between it and its colon",
            Why::FenceInfo => "it is a code fence's info string, not a marker before the fence",
        }
    }
}

/// Whether the name at `start..end` is written as an opening tag with a value right
/// after it (`<NAME>` then, after space, `{` or `[`).
fn tagged(message: &str, start: usize, end: usize) -> bool {
    let bytes = message.as_bytes();
    if start == 0 || bytes[start - 1] != b'<' || bytes.get(end) != Some(&b'>') {
        return false;
    }
    let rest = message[end + 1..].trim_start_matches(|c: char| c.is_whitespace());
    rest.starts_with(['{', '['])
}

/// Whether the name at `start..end` is followed, on its line, by a note in parentheses
/// and then what follows a marker (its colon, then a value): `NAME (a note): {...}`.
fn noted(message: &str, start: usize, end: usize) -> bool {
    // Closing emphasis may stand before the note (`**NAME** (a note):`).
    let emphasis = message.as_bytes()[end..]
        .iter()
        .take(3)
        .take_while(|&&b| spelling::is_emphasis(b))
        .count();
    let after = message[end + emphasis..].trim_start_matches(spelling::is_horizontal_space);
    if !after.starts_with('(') {
        return false;
    }
    let open = message.len() - after.len();
    let window = &after.as_bytes()[..after.len().min(MAX_NOTE)];
    // The closing parenthesis on the same line, with no other note opened before it.
    let Some(close) = window[1..]
        .iter()
        .position(|&b| matches!(b, b')' | b'\n' | b'('))
        .map(|n| n + 1)
        .filter(|&n| window[n] == b')')
    else {
        return false;
    };
    // The note read as part of the name: then the marker's own rule says the rest.
    matches!(
        spelling::spell(message, start, open + close + 1, true),
        Spelling::Marker(spelled) if spelled.value_start.is_some()
    )
}

/// Whether the name at `start..end` is the whole info string `info` of a fence opener
/// (a colon after it or not) ending its line at `line_end`, and the next line opens a
/// value.
fn fence_info(
    message: &str,
    info: (usize, usize),
    start: usize,
    end: usize,
    line_end: usize,
) -> bool {
    let named = start == info.0
        && (end == info.1 || (end + 1 == info.1 && message.as_bytes()[end] == b':'));
    named
        && message.get(line_end + 1..).is_some_and(|next| {
            next.trim_start_matches(char::is_whitespace)
                .starts_with(['{', '['])
        })
}

/// `b` as the search reads it: spaces and hyphens are underscores.
fn normal(b: u8) -> u8 {
    if b == b' ' || b == b'-' { b'_' } else { b }
}

impl NearMisses {
    /// The near misses of `markers` (in the marker table's order).
    pub(crate) fn new(markers: &[&'static str]) -> Self {
        let patterns: Vec<Vec<u8>> = markers
            .iter()
            .map(|m| m.bytes().map(normal).collect())
            .collect();
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .ok()
            .filter(|_| !markers.is_empty());
        NearMisses {
            automaton,
            markers: markers.to_vec(),
        }
    }

    /// The near misses in `message`, in order.
    pub(crate) fn find(&self, message: &str) -> Vec<NearMiss> {
        let Some(automaton) = &self.automaton else {
            return Vec::new();
        };
        // Either kind of near miss stands before a value that opens with a bracket: a
        // message with no bracket (most of them) has none to search for.
        if memchr::memchr2(b'{', b'[', message.as_bytes()).is_none() {
            return Vec::new();
        }
        let normalized: Vec<u8> = message.bytes().map(normal).collect();
        let mut context = Context::new(message);
        let mut found = Vec::new();
        for m in automaton.find_iter(&normalized) {
            let (start, end) = (m.start(), m.end());
            let written = &message[start..end];
            // The exact marker with its colon, where it stays in the message, is prose
            // on purpose (quoted, in code, mid-sentence).
            let exact = written == self.markers[m.pattern().as_usize()];
            // An info string is the fence's, in any spelling (a colon after it too).
            let info = context
                .opens_fence(start)
                .is_some_and(|(info, line_end)| fence_info(message, info, start, end, line_end));
            let why = match spelling::spell(message, start, end, true) {
                _ if info => Why::FenceInfo,
                Spelling::Marker(spelled) if !exact && spelled.value_start.is_some() => {
                    Why::Spelling
                }
                _ if spelling::colonless_label(message, start, end) => Why::NoColon,
                _ if spelling::can_start(message, start) && tagged(message, start, end) => Why::Tag,
                _ if noted(message, start, end) => Why::Note,
                _ => continue,
            };
            // A fence's info string is on the line that opens it: code only when that
            // line is inside another fence or quoted, which `opens_fence` has said.
            if why != Why::FenceInfo && context.is_code_or_quote(start) {
                continue;
            }
            found.push(NearMiss {
                pattern: m.pattern().as_usize(),
                written: written.to_string(),
                why,
            });
            if found.len() == MAX_REPORTED {
                break;
            }
        }
        found
    }
}

/// The Markdown around offsets of a message visited in increasing order: fences,
/// quoted lines and code spans. Each byte is read once.
struct Context<'t> {
    text: &'t str,
    fences: fence::Tracker,
    /// The line being read: its start and end, and whether it is code or quoted.
    line: (usize, usize, bool),
    /// Where the info string of the line being read is, trimmed, when the line opens a
    /// fence (outside any other, unquoted).
    info: Option<(usize, usize)>,
    /// Backticks counted on the line up to this offset, and whether a span is open.
    ticks_to: usize,
    in_span: bool,
}

impl<'t> Context<'t> {
    fn new(text: &'t str) -> Self {
        let mut context = Context {
            text,
            fences: fence::Tracker::new(),
            line: (0, 0, false),
            info: None,
            ticks_to: 0,
            in_span: false,
        };
        context.read_line(0);
        context
    }

    fn read_line(&mut self, start: usize) {
        let end = memchr::memchr(b'\n', &self.text.as_bytes()[start..])
            .map_or(self.text.len(), |n| start + n);
        let line = &self.text[start..end];
        let outside = !self.fences.is_open();
        let fenced = self.fences.line(line);
        self.info = (outside && fenced).then(|| {
            // Each line is read once: its info string is found once, whatever the
            // number of names on it.
            let unindented = line.trim_start();
            let ch = unindented.chars().next().unwrap_or('`');
            let run = unindented.len() - unindented.trim_start_matches(ch).len();
            let info = unindented[run..].trim();
            let at = start + (line.len() - unindented.len()) + run;
            let at = at + (unindented[run..].len() - unindented[run..].trim_start().len());
            (at, at + info.len())
        });
        let quoted = lines::line_kind(line, true) == Some(LineKind::Quote);
        self.line = (start, end, fenced || quoted);
        self.ticks_to = start;
        self.in_span = false;
    }

    /// When the line that holds `at` opens a code fence (and is not inside one): where
    /// its info string is, and where the line ends.
    fn opens_fence(&mut self, at: usize) -> Option<((usize, usize), usize)> {
        self.reach(at);
        self.info.map(|info| (info, self.line.1))
    }

    /// Reads lines up to the one that holds `at`.
    fn reach(&mut self, at: usize) {
        while at > self.line.1 {
            self.read_line(self.line.1 + 1);
        }
    }

    /// Whether `at` is in a code fence, on a quoted line or inside a code span.
    fn is_code_or_quote(&mut self, at: usize) -> bool {
        self.reach(at);
        if self.line.2 {
            return true;
        }
        let ticks = memchr::memchr_iter(b'`', &self.text.as_bytes()[self.ticks_to..at]).count();
        self.in_span ^= ticks % 2 == 1;
        self.ticks_to = at;
        self.in_span
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(message: &str) -> Vec<String> {
        NearMisses::new(&["SCHEMA_PROPOSAL", "SUGGESTED_VALUES"])
            .find(message)
            .into_iter()
            .map(|n| n.written)
            .collect()
    }

    #[test]
    fn other_cases_and_separators_before_a_value_are_near_misses() {
        assert_eq!(
            written("schema_proposal: {\"a\": 1}\nSchema Proposal: {}\n**SCHEMA-PROPOSAL:** []"),
            ["schema_proposal", "Schema Proposal", "SCHEMA-PROPOSAL"]
        );
        assert_eq!(
            written("Suggested Values:\n```json\n[]\n```"),
            ["Suggested Values"]
        );
    }

    #[test]
    fn a_label_without_its_colon_above_a_value_is_a_near_miss() {
        assert_eq!(
            written("Here it is.\n\n### SCHEMA_PROPOSAL\n```json\n{\"a\": 1}\n```"),
            ["SCHEMA_PROPOSAL"]
        );
        assert_eq!(
            written("**Schema Proposal**\n{}\n\n- SUGGESTED_VALUES\n  [\"x\"]"),
            ["Schema Proposal", "SUGGESTED_VALUES"]
        );
        assert_eq!(
            written("SCHEMA_PROPOSAL {\"a\": 1}\n## Suggested values ```json\n[]\n```"),
            ["SCHEMA_PROPOSAL", "Suggested values"]
        );
        for message in [
            "SCHEMA_PROPOSAL\nThe table is ready.",
            "SCHEMA_PROPOSAL `code`",
            "See SCHEMA_PROPOSAL {\"a\": 1}",
            "The SCHEMA_PROPOSAL\n{}",
            "SCHEMA_PROPOSAL is next\n{}",
            "> SCHEMA_PROPOSAL\n> {}",
            "```\nSCHEMA_PROPOSAL\n{}\n```",
            "MY_SCHEMA_PROPOSAL\n{}",
        ] {
            assert!(written(message).is_empty(), "{message:?}");
        }
    }

    /// The marker as a tag, with a note before its colon, or as a fence's info string,
    /// before a value: the model meant the block, in the marker's spelling or another.
    #[test]
    fn tags_notes_and_info_strings_before_a_value_are_near_misses() {
        let found = |message: &str| -> Vec<(String, Why)> {
            NearMisses::new(&["SCHEMA_PROPOSAL", "SUGGESTED_VALUES"])
                .find(message)
                .into_iter()
                .map(|n| (n.written, n.why))
                .collect()
        };
        for (message, why) in [
            ("<SCHEMA_PROPOSAL>{\"a\": 1}</SCHEMA_PROPOSAL>", Why::Tag),
            (
                "Here:\n<suggested_values>\n[\"x\"]\n</suggested_values>",
                Why::Tag,
            ),
            (
                "SCHEMA_PROPOSAL (update):\n```json\n{\"a\": 1}\n```",
                Why::Note,
            ),
            ("**SCHEMA_PROPOSAL** (a draft): {}", Why::Note),
            ("```SCHEMA_PROPOSAL\n{\"a\": 1}\n```", Why::FenceInfo),
            ("Ok.\n~~~ suggested_values:\n[]\n~~~", Why::FenceInfo),
        ] {
            let got = found(message);
            assert_eq!(got.len(), 1, "{message:?}: {got:?}");
            assert_eq!(got[0].1, why, "{message:?}");
        }
        for message in [
            // A tag, a note or an info string with no value after it is prose.
            "<SCHEMA_PROPOSAL> is the tag {x}",
            "SCHEMA_PROPOSAL (see below) is ready. {x}",
            "SCHEMA_PROPOSAL (a note) {}",
            "```SCHEMA_PROPOSAL\nnot a value {}\n```",
            "```json SCHEMA_PROPOSAL\n{}\n```",
            // Glued, quoted, or inside another fence.
            "x<SCHEMA_PROPOSALS>{}",
            "> <SCHEMA_PROPOSAL>{}",
            "````\n```SCHEMA_PROPOSAL\n{}\n```\n````",
            "`SCHEMA_PROPOSAL (a): {}`",
        ] {
            assert!(
                found(message).is_empty(),
                "{message:?}: {:?}",
                found(message)
            );
        }
    }

    #[test]
    fn prose_code_quotes_and_exact_markers_are_not() {
        for message in [
            "The schema proposal is ready.",
            "Here is the schema proposal: once you confirm",
            "SCHEMA_PROPOSAL: {} stayed as prose",
            "> schema_proposal: {}",
            "`schema_proposal: {}`",
            "```\nschema_proposal: {}\n```",
            "my_schema_proposal: {}",
            "schema_proposals: {}",
        ] {
            assert!(written(message).is_empty(), "{message:?}");
        }
        assert_eq!(
            written("```\nx\n```\nschema proposal: {}"),
            ["schema proposal"],
            "after a fence closes, text counts again"
        );
    }
}
