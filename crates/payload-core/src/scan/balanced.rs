//! Balanced extraction for callers that hold a whole text: where a JSON value that
//! starts at a given `{` or `[` ends, by the same scanner the marker-mode parser and the
//! stream use (strings skipped by the one quote rule, mismatched closers tolerated).

/// How a value that opens at some offset ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Balanced {
    /// The value closes; `end` is the offset just after its closing bracket.
    Complete {
        /// Offset just past the closing bracket.
        end: usize,
    },
    /// The text ends before the value closes.
    Truncated,
}

/// Scans the value opening at `start` (which must hold `{` or `[`).
pub fn scan(text: &str, start: usize) -> Balanced {
    debug_assert!(matches!(text.as_bytes().get(start), Some(b'{' | b'[')));
    match crate::scan::value::value_end(text, start) {
        Some(end) => Balanced::Complete { end },
        None => Balanced::Truncated,
    }
}
