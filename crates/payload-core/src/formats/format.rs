//! The formats a whole response can be written in, and what reading one gives: the
//! names every reader of the folder shares, in a file below them all.

use crate::error::{Location, PayloadError};
use crate::warning::Warning;
use serde_json::{Map, Value};
use std::fmt;
use std::str::FromStr;

/// A text format a whole response can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// A JSON value, possibly fenced or surrounded by prose.
    Json,
    /// One XML root element with an element per field.
    Xml,
    /// `---NAME---` sections.
    Delimited,
    /// `<NAME>...</NAME>` tags among prose, without a root.
    Tagged,
    /// `## Name` headers.
    Markdown,
}

impl Format {
    /// Every format, in the order detection breaks ties.
    pub const ALL: [Format; 5] = [
        Format::Json,
        Format::Xml,
        Format::Delimited,
        Format::Tagged,
        Format::Markdown,
    ];

    /// The lowercase name used in results, on the command line and in `x-format`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Xml => "xml",
            Format::Delimited => "delimited",
            Format::Tagged => "tagged",
            Format::Markdown => "markdown",
        }
    }

    /// The name used in messages to a model.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Xml => "XML",
            Format::Delimited => "delimited sections",
            Format::Tagged => "tagged content",
            Format::Markdown => "markdown",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;

    /// Parses a lowercase (or any-case) format name. `auto` is not a format: callers
    /// that accept it map it to [`detect()`](super::detect) themselves (an `Option<Format>`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == lower)
            .ok_or_else(|| {
                format!("unknown format '{s}': use json, xml, delimited, tagged or markdown")
            })
    }
}

/// Why a response could not be read as a value: every error found, and what was read.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatFailure {
    /// All problems (`parsing`, `missing`, `validation`), not only the first.
    pub errors: Vec<PayloadError>,
    /// The object of every field that did convert (the `partial_data` of docs/spec.md §4.1).
    pub partial: Value,
}

impl fmt::Display for FormatFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let messages: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
        f.write_str(&messages.join("; "))
    }
}

impl std::error::Error for FormatFailure {}

/// A value read from a text format, with what the reader noticed on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatRead {
    /// The value, or every error found and what was read.
    pub result: Result<Value, FormatFailure>,
    /// Duplicate fields, possible truncation: at most 100, then one that counts the
    /// rest. Kept on failure too.
    pub warnings: Vec<Warning>,
}

impl FormatRead {
    /// A reader that stopped at its one fatal error, a part nested deeper than
    /// [`crate::limits::MAX_DEPTH`] at `location`: nothing was read.
    pub(crate) fn too_deep(location: Location) -> FormatRead {
        let mut failure = fail_too_deep(Ok(Value::Object(Map::new())));
        for error in &mut failure.errors {
            error.details_mut().location = Some(location);
        }
        FormatRead {
            result: Err(failure),
            warnings: Vec::new(),
        }
    }
}

/// A format reader's result when the text nested too deep: the depth error first,
/// with whatever else the reader found.
pub(super) fn fail_too_deep(result: Result<serde_json::Value, FormatFailure>) -> FormatFailure {
    let (mut errors, partial) = match result {
        Ok(value) => (Vec::new(), value),
        Err(failure) => (failure.errors, failure.partial),
    };
    errors.insert(0, crate::limits::too_deep());
    FormatFailure { errors, partial }
}
