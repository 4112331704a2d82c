//! The one marker table: every marker and every opening tag of a page, compiled into
//! one automaton.

use aho_corasick::{AhoCorasick, Input, MatchKind};

/// A match of a marker's name or of an opening tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameMatch {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Which marker, as an index into the table's markers.
    pub(crate) pattern: usize,
}

/// How a type's block is written (docs/spec.md §1.2, §1.21).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// `NAME:` before the value.
    Marker(&'static str),
    /// `<name>` before the value and `</name>` after it.
    Tag(&'static str),
}

impl Written {
    /// The marker's name, or the tag's.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Written::Marker(name) | Written::Tag(name) => name,
        }
    }
}

/// The markers of one page, searched in one pass whatever their number.
#[derive(Debug, Clone)]
pub(crate) struct MarkerTable {
    automaton: AhoCorasick,
    markers: Vec<&'static str>,
    /// What the automaton searches for, in pattern order: a marker's name, or an
    /// opening tag with its angle brackets.
    patterns: Vec<String>,
    /// The closing tag of each pattern that is an opening tag.
    closers: Vec<Option<String>>,
    longest: usize,
}

impl MarkerTable {
    /// A table of `markers` (distinct, non-empty), all written as markers.
    #[cfg(test)]
    pub(crate) fn new(markers: Vec<&'static str>) -> Self {
        Self::of(markers.into_iter().map(Written::Marker).collect())
    }

    /// A table of markers and tags (distinct, non-empty).
    pub(crate) fn of(written: Vec<Written>) -> Self {
        let patterns: Vec<String> = written
            .iter()
            .map(|w| match w {
                Written::Marker(name) => (*name).to_string(),
                Written::Tag(name) => format!("<{name}>"),
            })
            .collect();
        let closers = written
            .iter()
            .map(|w| match w {
                Written::Marker(_) => None,
                Written::Tag(name) => Some(format!("</{name}>")),
            })
            .collect();
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .expect("a handful of short literal markers always compiles");
        MarkerTable {
            automaton,
            longest: patterns.iter().map(String::len).max().unwrap_or(0),
            markers: written.iter().map(|w| w.name()).collect(),
            patterns,
            closers,
        }
    }

    /// The markers (a tagged type's tag name), in pattern order.
    pub(crate) fn markers(&self) -> &[&'static str] {
        &self.markers
    }

    /// The closing tag of pattern `pattern` when it is an opening tag; `None` for a
    /// marker.
    pub(crate) fn closer(&self, pattern: usize) -> Option<&str> {
        self.closers.get(pattern)?.as_deref()
    }

    /// The length of the longest marker.
    pub(crate) fn longest(&self) -> usize {
        self.longest
    }

    /// The leftmost-longest match starting at or after `from`.
    pub(crate) fn find(&self, text: &str, from: usize) -> Option<NameMatch> {
        if self.patterns.is_empty() || from >= text.len() {
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
        if self.patterns.is_empty() || from >= to {
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
                    .patterns
                    .iter()
                    .any(|m| m.len() > bytes.len() - p && m.as_bytes().starts_with(&bytes[p..]))
        })
    }
}
