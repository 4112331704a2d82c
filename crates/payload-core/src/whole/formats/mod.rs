//! Whole-response values in text formats other than JSON (docs/spec.md §4, the output-schema app):
//! XML, delimited sections, tagged content and markdown, and detection of which one a
//! response is written in.
//!
//! ```text
//! text ──reader──▶ Node tree (names, text, children) ──convert + schema──▶ Value
//! ```
//!
//! Each reader (`xml`, `tagged`, `delimited`, `markdown`) only finds structure; the
//! schema decides what it means, once, in `convert`: field names match property names
//! with case and separators folded (`due_date` ~ `Due Date` ~ `DUE-DATE`) plus the
//! names the schema's `x-format` extension gives; text becomes numbers, booleans,
//! arrays and objects without guessing. Schema validation is not done here: callers
//! check the returned value with [`crate::PayloadType::validate`], so every format is
//! held to the same rules as JSON.
//!
//! The readers are hand-written because model output is rarely well-formed and a
//! strict parser returns nothing where a person reads the answer; each reader's
//! module says what it tolerates. All of them are linear in the text, keep their
//! working memory and output within a constant factor of it, and read 128 levels of
//! nesting: the first part at level 129 stops the reader with a `parsing` error
//! ([`crate::limits::MAX_DEPTH`]).
//!
//! # The same rules in every format
//!
//! - **Truncation** (docs/spec.md §4.5): a value the text ends inside is `truncated` where the
//!   format has an end marker, and gets a `possibly_truncated` warning where it has
//!   none; `ending` states exactly when.
//! - **Duplicates** (docs/spec.md §7.3): a field written twice (an element, tag, section, header
//!   or attribute) that is not an array: the last one wins, with a `duplicate_key`
//!   warning naming it. Repeated parts of an array field are its items.
//! - **Bounded reports** (docs/spec.md §8.1): at most 100 errors per value and 100 warnings per
//!   response are kept ([`crate::limits::MAX_ERRORS`], [`crate::limits::MAX_WARNINGS`]); the rest are counted.
//!
//! # `x-format`
//!
//! Options are read from the schema as the output-schema app spells them, at the root and on
//! property schemas (put there with `#[schemars(extend("x-format" = {...}))]`):
//!
//! ```json
//! {"x-format": {
//!   "xml": {"root-element": "response",
//!           "properties": {"steps": {"element": "steps", "item-element": "step",
//!                                     "attribute": false, "cdata": false}}},
//!   "delimited": {"section-pattern": "---{NAME}---", "end-pattern": "---END-{NAME}---",
//!                 "properties": {"steps": {"list-format": "numbered"}}},
//!   "tagged": {"tag-case": "uppercase",
//!              "properties": {"steps": {"tag": "STEP_LIST", "multi-value": "comma-separated"}}},
//!   "markdown": {"properties": {"steps": {"header": "## Steps", "level": 2,
//!                                          "list-style": "ordered"}}}}}
//! ```
//!
//! Names (`element`, `item-element`, `tag`, `header`) and patterns change what is
//! accepted; styles (`list-format`, `list-style`, `tag-case`, `level`, `cdata`) are
//! accepted in any form when reading and only shape the hints in errors.

mod convert;
mod delimited;
pub(crate) mod detect;
mod ending;
mod markdown;
mod node;
mod options;
pub(crate) mod render;
mod tagged;
mod xml;

pub use detect::detect;
pub use node::fold_name;
pub(crate) use node::folds_to;
pub use render::{Inexpressible, expressible, render, xml_root};

use crate::error::{ErrorKind, Location, PayloadError};
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
    /// that accept it map it to [`detect()`] themselves (an `Option<Format>`).
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
            error.location = Some(location);
        }
        FormatRead {
            result: Err(failure),
            warnings: Vec::new(),
        }
    }
}

/// Reads `text` as one value of `schema` written in `format`.
///
/// The value is shaped by the schema but not validated against it (call
/// [`crate::PayloadType::validate`] on it). For [`Format::Json`] the text (inside a
/// fence, or from the first `{`/`[` to the last `}`/`]`) goes through the same strict-
/// then-lenient reader as marker blocks; its repairs are not reported here, which is
/// why whole-response JSON should go through the JSON path when warnings matter.
/// The warnings of the other formats are in [`read_as`].
pub fn parse_as(format: Format, text: &str, schema: &Value) -> Result<Value, FormatFailure> {
    read_as(format, text, schema).result
}

/// [`parse_as`], with the warnings: duplicate fields (docs/spec.md §7.3) and possible
/// truncation (docs/spec.md §4.5).
pub fn read_as(format: Format, text: &str, schema: &Value) -> FormatRead {
    match format {
        Format::Json => FormatRead {
            result: parse_json(text),
            warnings: Vec::new(),
        },
        Format::Xml => xml::parse(text, schema),
        Format::Delimited => delimited::parse(text, schema),
        Format::Tagged => tagged::parse(text, schema),
        Format::Markdown => markdown::parse(text, schema),
    }
}

/// What [`parse_detected`] read: the format it detected, how sure it was, the value.
#[derive(Debug, Clone, PartialEq)]
pub struct Detected {
    /// The format detection chose ([`Format::Json`] when nothing scored).
    pub format: Format,
    /// The detection's confidence, 0..1.
    pub confidence: f64,
    /// The value read in that format, or every error found and what was read.
    pub result: Result<Value, FormatFailure>,
}

/// Detects the format of `text` and reads it. This is the detector's reading only,
/// unvalidated and with no fallback; [`crate::extract_as`] in `auto` checks detection
/// against the result and reads the other formats when the detected one gives no valid
/// value (docs/spec.md §4.7).
pub fn parse_detected(text: &str, schema: &Value) -> Detected {
    let (format, confidence) = detect(text, schema)
        .into_iter()
        .next()
        .unwrap_or((Format::Json, 0.0));
    Detected {
        format,
        confidence,
        result: parse_as(format, text, schema),
    }
}

/// How to write field `field` of the object `schema` in `format`, as one sentence for
/// a re-prompt: `In XML: <task>...</task>`, `In delimited sections: ---TASK--- ...
/// ---END-TASK---`, `In markdown: ## Task, then the value on the lines below`.
/// Names and patterns come from the schema's `x-format`.
pub fn format_hint(format: Format, field: &str, schema: &Value) -> String {
    options::hint(schema, schema, field, format, 0)
}

fn parse_json(text: &str) -> Result<Value, FormatFailure> {
    let (inner, base) = node::unwrap_fence(text, &["json", "json5"]);
    let start = inner.find(['{', '[']);
    let end = inner.rfind(['}', ']']).map(|e| e + 1);
    let (start, end) = match (start, end) {
        (Some(s), Some(e)) if e > s => (s, e),
        (Some(s), _) => (s, inner.len()),
        _ => {
            let error = PayloadError::new(
                ErrorKind::Parsing,
                "",
                "no JSON value found in the response",
            )
            .with_suggestion("Write the whole response as one JSON object");
            return Err(FormatFailure {
                errors: vec![error],
                partial: Value::Object(Map::new()),
            });
        }
    };
    let origin = Location::of_offset(text, base + start);
    crate::json::decode(&inner[start..end], origin)
        .map(|decoded| decoded.value)
        .map_err(|error| FormatFailure {
            errors: vec![error],
            partial: Value::Object(Map::new()),
        })
}

/// A format reader's result when the text nested too deep: the depth error first,
/// with whatever else the reader found.
fn fail_too_deep(result: Result<serde_json::Value, FormatFailure>) -> FormatFailure {
    let (mut errors, partial) = match result {
        Ok(value) => (Vec::new(), value),
        Err(failure) => (failure.errors, failure.partial),
    };
    errors.insert(0, crate::limits::too_deep());
    FormatFailure { errors, partial }
}

#[cfg(test)]
mod cut_tests;
#[cfg(test)]
mod list_tests;
#[cfg(test)]
mod rules_tests;
#[cfg(test)]
mod tests;
