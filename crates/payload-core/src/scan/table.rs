//! The one marker table: every marker a page knows, compiled into one automaton.

use aho_corasick::{AhoCorasick, Input, MatchKind};

/// A match of a marker's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameMatch {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Which marker, as an index into the table's markers.
    pub(crate) pattern: usize,
}

/// The markers of one page, searched in one pass whatever their number.
#[derive(Debug, Clone)]
pub(crate) struct MarkerTable {
    automaton: AhoCorasick,
    markers: Vec<&'static str>,
    longest: usize,
}

impl MarkerTable {
    /// A table of `markers` (distinct, non-empty).
    pub(crate) fn new(markers: Vec<&'static str>) -> Self {
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&markers)
            .expect("a handful of short literal markers always compiles");
        MarkerTable {
            automaton,
            longest: markers.iter().map(|m| m.len()).max().unwrap_or(0),
            markers,
        }
    }

    /// The markers, in pattern order.
    pub(crate) fn markers(&self) -> &[&'static str] {
        &self.markers
    }

    /// The length of the longest marker.
    pub(crate) fn longest(&self) -> usize {
        self.longest
    }

    /// The leftmost-longest match starting at or after `from`.
    pub(crate) fn find(&self, text: &str, from: usize) -> Option<NameMatch> {
        if self.markers.is_empty() || from >= text.len() {
            return None;
        }
        let found = self.automaton.find(Input::new(text).range(from..))?;
        Some(NameMatch {
            start: found.start(),
            end: found.end(),
            pattern: found.pattern().as_usize(),
        })
    }

    /// The leftmost-longest match lying wholly inside `from..to`.
    pub(crate) fn find_in(&self, text: &str, from: usize, to: usize) -> Option<NameMatch> {
        if self.markers.is_empty() || from >= to {
            return None;
        }
        let found = self.automaton.find(Input::new(text).range(from..to))?;
        Some(NameMatch {
            start: found.start(),
            end: found.end(),
            pattern: found.pattern().as_usize(),
        })
    }

    /// The first offset in `from..` where the rest of `text` is a proper prefix of a
    /// marker: a name that may be arriving.
    pub(crate) fn partial_tail(&self, text: &str, from: usize) -> Option<usize> {
        let bytes = text.as_bytes();
        let low = from.max(bytes.len().saturating_sub(self.longest.saturating_sub(1)));
        (low..bytes.len()).find(|&p| {
            text.is_char_boundary(p)
                && self
                    .markers
                    .iter()
                    .any(|m| m.len() > bytes.len() - p && m.as_bytes().starts_with(&bytes[p..]))
        })
    }
}
