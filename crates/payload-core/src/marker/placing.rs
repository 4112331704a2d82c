//! A reasoning section as the assembly places it among the parts (docs/spec.md §1.21),
//! and what placing one gives a stream to send.

use std::ops::Range;

/// A reasoning section, for its part.
#[derive(Debug)]
pub(crate) struct Section {
    /// The answer offset where it was cut out.
    pub(crate) at: usize,
    /// The response offset where it opens.
    pub(crate) open: usize,
    /// The response offset where the answer resumes after it, once it has closed.
    pub(crate) end: Option<usize>,
    /// Its own text in the joined reasoning, once it has any.
    pub(crate) text: Option<Range<usize>>,
    /// Its part, once placed with text.
    pub(crate) part: Option<usize>,
    /// Reasoning deltas not sent yet: the section is not placed.
    pub(crate) held: String,
}

/// What the assembly has for the stream to send, in order, when a section is placed.
#[derive(Debug)]
pub(crate) enum Placed {
    /// Message text, and its part.
    Text(String, usize),
    /// Reasoning held back, and its part.
    Reasoning(String, usize),
}
