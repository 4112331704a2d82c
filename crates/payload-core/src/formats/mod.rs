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
mod format;
mod markdown;
mod node;
mod options;
pub(crate) mod render;
mod tagged;
mod xml;

pub use detect::detect;
pub use format::{Format, FormatFailure, FormatRead};
pub use node::fold_name;
pub(crate) use node::folds_to;
pub use render::{Inexpressible, expressible, render, xml_root};

use crate::error::{ErrorKind, Location, PayloadError};
use serde_json::{Map, Value};

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

#[cfg(test)]
mod cut_tests;
#[cfg(test)]
mod list_tests;
#[cfg(test)]
mod rules_tests;
#[cfg(test)]
mod tests;
