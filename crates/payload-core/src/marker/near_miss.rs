//! Near-miss markers (docs/spec.md §1.16): a page marker written in another case or with spaces or
//! hyphens for its underscores (`schema_proposal:`, `Schema Proposal:`,
//! `SCHEMA-PROPOSAL:`) and followed by a JSON value, or written in any of those
//! spellings as a label with no colon, alone on its line, with a value on the next
//! (`### SCHEMA_PROPOSAL` above a fenced JSON block). Markers are case-sensitive, so such
//! a block is not read and stays in the message; but the model plainly meant to send
//! it, so it is reported (a `near_miss_marker` warning, and a missed block an agent
//! re-asks for) instead of passing in silence.
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
        let normalized: Vec<u8> = message.bytes().map(normal).collect();
        let mut context = Context::new(message);
        let mut found = Vec::new();
        for m in automaton.find_iter(&normalized) {
            let (start, end) = (m.start(), m.end());
            let written = &message[start..end];
            // The exact marker with its colon, where it stays in the message, is prose
            // on purpose (quoted, in code, mid-sentence).
            let exact = written == self.markers[m.pattern().as_usize()];
            let why = match spelling::spell(message, start, end, true) {
                Spelling::Marker(spelled) if !exact && spelled.value_start.is_some() => {
                    Why::Spelling
                }
                _ if spelling::colonless_label(message, start, end) => Why::NoColon,
                _ => continue,
            };
            if context.is_code_or_quote(start) {
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
        let fenced = self.fences.line(line);
        let quoted = lines::line_kind(line, true) == Some(LineKind::Quote);
        self.line = (start, end, fenced || quoted);
        self.ticks_to = start;
        self.in_span = false;
    }

    /// Whether `at` is in a code fence, on a quoted line or inside a code span.
    fn is_code_or_quote(&mut self, at: usize) -> bool {
        while at > self.line.1 {
            self.read_line(self.line.1 + 1);
        }
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
        for message in [
            "SCHEMA_PROPOSAL\nThe table is ready.",
            "The SCHEMA_PROPOSAL\n{}",
            "SCHEMA_PROPOSAL is next\n{}",
            "> SCHEMA_PROPOSAL\n> {}",
            "```\nSCHEMA_PROPOSAL\n{}\n```",
            "MY_SCHEMA_PROPOSAL\n{}",
        ] {
            assert!(written(message).is_empty(), "{message:?}");
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
