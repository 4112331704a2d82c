//! Errors as data an LLM can act on (docs/spec.md §2).
//!
//! Every problem found in a model's output becomes one [`PayloadError`]: what kind of
//! problem it is, where it is (a JSON Pointer into the payload and, when known, a line and
//! column in the model's text), what was received, what was expected and how to fix it.
//! The caller decides what to do with them; [`crate::reprompt`] turns a list into one
//! message a model can act on.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// What went wrong, as one of the kinds docs/spec.md §2 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text is not JSON (or not the expected format), even after repair.
    Parsing,
    /// The value does not satisfy the schema or the type's rules.
    Validation,
    /// A required member is absent.
    Missing,
    /// The text ends before the value closes.
    Truncated,
    /// A parsing error: the value was still open where the text went on with something
    /// else (a closing fence, the next marker, or prose after a blank line), so the
    /// block was cut there and the rest of the response read as usual (docs/spec.md §1.14).
    Unclosed,
    /// The block belongs to a registered type that the page does not offer.
    NotOnPage,
    /// A valid custom payload after the first one.
    ExtraPayload,
    /// A parsed payload replaced by a payload a tool returned in the same turn.
    SupersededByTool,
    /// A suggested action that is not registered for the page.
    UnknownAction,
}

impl ErrorKind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Parsing => "parsing",
            ErrorKind::Validation => "validation",
            ErrorKind::Missing => "missing",
            ErrorKind::Truncated => "truncated",
            ErrorKind::Unclosed => "unclosed",
            ErrorKind::NotOnPage => "not_on_page",
            ErrorKind::ExtraPayload => "extra_payload",
            ErrorKind::SupersededByTool => "superseded_by_tool",
            ErrorKind::UnknownAction => "unknown_action",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A 1-based line and column (in characters) in the model's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl Location {
    /// The location of byte offset `offset` in `text` (clamped to the text's length and
    /// to a character boundary).
    pub fn of_offset(text: &str, offset: usize) -> Location {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        Location { line: 1, column: 1 }.advance(&text[..offset])
    }

    /// The location just past `span`, which starts here: the one cursor every caller
    /// that walks a text in order moves, so each byte is counted once.
    pub fn advance(self, span: &str) -> Location {
        match memchr::memrchr(b'\n', span.as_bytes()) {
            Some(nl) => Location {
                line: self.line + memchr::memchr_iter(b'\n', span.as_bytes()).count(),
                column: span[nl + 1..].chars().count() + 1,
            },
            None => Location {
                line: self.line,
                column: self.column + span.chars().count(),
            },
        }
    }
}

/// One problem with a model's output, in the shape docs/spec.md §2 gives.
///
/// The parts live behind one box, as `serde_json::Error` keeps its own, so a
/// `Result<T, PayloadError>` costs a pointer on the error side however much an error
/// says: errors are built only when input is wrong, results are passed on every call.
/// The parts ([`ErrorDetails`]) are read through accessors (`error.kind()`,
/// `error.path()`, …), as `serde_json::Error` and `std::io::Error` expose theirs, built
/// with the `with_*` methods, and changed in place through [`PayloadError::details_mut`]
/// (as `std::io::Error::get_mut`); they serialize as one flat object.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PayloadError(Box<ErrorDetails>);

/// The parts of a [`PayloadError`]: what, where, what was received and what to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorDetails {
    /// What kind of problem this is.
    pub kind: ErrorKind,
    /// JSON Pointer into the payload (`""` for the whole value; for a missing member,
    /// the pointer to that member).
    pub path: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it, in words a model can act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// The value (or text) that was received, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<Value>,
    /// What was expected instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// Where in the model's text the problem is, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

// What the box is for, checked when the crate compiles.
const _: () =
    assert!(std::mem::size_of::<Result<(), PayloadError>>() == std::mem::size_of::<usize>());

impl From<ErrorDetails> for PayloadError {
    fn from(details: ErrorDetails) -> PayloadError {
        PayloadError(Box::new(details))
    }
}

// Written by hand so that the box does not show: the same text as the parts' own.
impl fmt::Debug for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let details = &*self.0;
        f.debug_struct("PayloadError")
            .field("kind", &details.kind)
            .field("path", &details.path)
            .field("message", &details.message)
            .field("suggestion", &details.suggestion)
            .field("received", &details.received)
            .field("expected", &details.expected)
            .field("location", &details.location)
            .finish()
    }
}

impl PayloadError {
    /// A new error of `kind` at `path` with `message`; the optional parts start empty.
    pub fn new(kind: ErrorKind, path: impl Into<String>, message: impl Into<String>) -> Self {
        PayloadError::from(ErrorDetails {
            kind,
            path: path.into(),
            message: message.into(),
            suggestion: None,
            received: None,
            expected: None,
            location: None,
        })
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The JSON Pointer into the payload (`""` for the whole value; for a missing
    /// member, the pointer to that member).
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// What is wrong, in one sentence.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// How to fix it, in words a model can act on, when known.
    pub fn suggestion(&self) -> Option<&str> {
        self.0.suggestion.as_deref()
    }

    /// The value (or text) that was received, when there is one.
    pub fn received(&self) -> Option<&Value> {
        self.0.received.as_ref()
    }

    /// What was expected instead, when known.
    pub fn expected(&self) -> Option<&str> {
        self.0.expected.as_deref()
    }

    /// Where in the model's text the problem is, when known.
    pub fn location(&self) -> Option<Location> {
        self.0.location
    }

    /// All the parts at once, borrowed.
    pub fn details(&self) -> &ErrorDetails {
        &self.0
    }

    /// The parts, to change in place (a path prefixed, a location filled in, a message
    /// reworded) without rebuilding the error.
    pub fn details_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }

    /// The parts, out of their box (to move a message or a received value out).
    pub fn into_details(self) -> ErrorDetails {
        *self.0
    }

    /// A `validation` error: the shorthand for per-type rules.
    pub fn validation(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Validation, path, message)
    }

    /// A `missing` error for the member at `path`.
    pub fn missing(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Missing, path, message)
    }

    /// Sets how to fix the problem.
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.0.suggestion = Some(suggestion.into());
        self
    }

    /// Sets the value that was received.
    pub fn with_received(mut self, received: impl Into<Value>) -> Self {
        self.0.received = Some(received.into());
        self
    }

    /// Sets what was expected.
    pub fn with_expected(mut self, expected: impl Into<String>) -> Self {
        self.0.expected = Some(expected.into());
        self
    }

    /// Sets where in the model's text the problem is.
    pub fn with_location(mut self, location: Location) -> Self {
        self.0.location = Some(location);
        self
    }

    /// Prefixes the path with `prefix` (a JSON Pointer), for errors of a nested value.
    pub fn nested_under(mut self, prefix: &str) -> Self {
        self.0.path = format!("{prefix}{}", self.0.path);
        self
    }
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path().is_empty() {
            write!(f, "{}: {}", self.kind(), self.message())?;
        } else {
            write!(f, "{} at {}: {}", self.kind(), self.path(), self.message())?;
        }
        if let Some(suggestion) = &self.suggestion() {
            write!(f, " ({suggestion})")?;
        }
        Ok(())
    }
}

impl std::error::Error for PayloadError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_counts_lines_and_characters() {
        let text = "ab\ncdé\nxyz";
        assert_eq!(
            Location::of_offset(text, 0),
            Location { line: 1, column: 1 }
        );
        assert_eq!(
            Location::of_offset(text, 3),
            Location { line: 2, column: 1 }
        );
        // 'é' is two bytes: offset 7 is after it.
        assert_eq!(
            Location::of_offset(text, 7),
            Location { line: 2, column: 4 }
        );
        assert_eq!(
            Location::of_offset(text, 6),
            Location { line: 2, column: 3 }
        );
        assert_eq!(
            Location::of_offset(text, 999),
            Location { line: 3, column: 4 }
        );
    }

    #[test]
    fn the_box_is_unseen_in_reading_writing_and_serializing() {
        let mut error = PayloadError::validation("/a", "too long").with_suggestion("shorten it");
        error.details_mut().path = "/b".into();
        assert_eq!(error.kind(), ErrorKind::Validation);
        assert_eq!(error.path(), "/b");
        assert_eq!(error.message(), "too long");
        assert_eq!(error.suggestion(), Some("shorten it"));
        assert_eq!(error.received(), None);
        assert_eq!(error.expected(), None);
        assert_eq!(error.location(), None);
        assert_eq!(error.to_string(), "validation at /b: too long (shorten it)");
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(json["path"], "/b");
        let back: PayloadError = serde_json::from_value(json).unwrap();
        assert_eq!(back, error);
        assert!(format!("{error:?}").starts_with("PayloadError { kind: Validation, path: \"/b\""));
        assert_eq!(
            error.into_details().suggestion.as_deref(),
            Some("shorten it")
        );
    }

    #[test]
    fn errors_serialize_without_empty_parts() {
        let error = PayloadError::missing("/operations", "required member 'operations' is missing");
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "missing", "path": "/operations",
                "message": "required member 'operations' is missing"})
        );
    }
}
