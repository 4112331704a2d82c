//! The JSON Schema dialects payload writes and reads, one file each.
//!
//! Schemas are kept and validated as 2020-12. A document written in draft-07 is read
//! into 2020-12 ([`drafts`]); a schema is written out in the dialect asked for by
//! [`Dialect::write`], the one place a new dialect plugs in: a provider's subset (as
//! [`openai_strict`] is OpenAI's) is one more module beside these and one more arm there.

pub mod drafts;
pub mod openai_strict;

use serde_json::Value;
use std::fmt;
use std::str::FromStr;

/// Which JSON Schema flavour to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// JSON Schema 2020-12 (the default, and what the validator uses).
    #[default]
    Draft2020_12,
    /// JSON Schema draft-07 (`definitions` instead of `$defs`).
    Draft07,
    /// The subset OpenAI's Structured Outputs accept with `strict: true`: an object at
    /// the top, every object closed (`additionalProperties: false`), every member listed
    /// in `required` (an optional one accepts `null` instead), only the keywords and
    /// formats the subset knows (see [`openai_strict`]).
    ///
    /// For a schema that has no strict form, [`Dialect::write`] in this dialect is the
    /// best effort: every node that has a strict form is rewritten, the
    /// others are left as they were. OpenAI will reject it in strict mode, and it is not
    /// promised to accept the same values as the type's schema (closing the branches of
    /// a flattened enum, say, refuses the members beside them);
    /// [`openai_strict::rewrite`] says why there is no strict form instead.
    OpenAiStrict,
}

impl Dialect {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Draft2020_12 => "2020-12",
            Dialect::Draft07 => "draft-07",
            Dialect::OpenAiStrict => "openai-strict",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "2020-12" | "draft-2020-12" | "draft2020-12" => Ok(Dialect::Draft2020_12),
            "draft-07" | "draft07" | "7" => Ok(Dialect::Draft07),
            "openai-strict" | "openai" => Ok(Dialect::OpenAiStrict),
            other => Err(UnknownDialect(other.to_string())),
        }
    }
}

impl Dialect {
    /// `schema`, a 2020-12 document, written in this dialect. For
    /// [`Dialect::OpenAiStrict`] this is the best effort (see there);
    /// [`openai_strict::rewrite`] also says why a schema has no strict form.
    pub fn write(self, schema: &Value) -> Value {
        match self {
            Dialect::Draft2020_12 => schema.clone(),
            Dialect::Draft07 => drafts::to_draft_07(schema),
            Dialect::OpenAiStrict => openai_strict::rewrite(schema).schema,
        }
    }
}

/// A dialect name [`Dialect::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(pub String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown dialect '{}': use 2020-12, draft-07 or openai-strict",
            self.0
        )
    }
}

impl std::error::Error for UnknownDialect {}

/// Why a document's `$schema` names no dialect this crate reads ([`drafts::declared`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum UnreadableDialect {
    /// Another json-schema.org draft: its keywords mean other things.
    OtherDraft(String),
    /// `$schema` is not a string.
    NotAUri(Value),
}

impl fmt::Display for UnreadableDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnreadableDialect::OtherDraft(uri) => write!(
                f,
                "$schema '{uri}' is not a dialect this library reads: use draft-07 or 2020-12"
            ),
            UnreadableDialect::NotAUri(value) => write!(f, "$schema must be a URI, not {value}"),
        }
    }
}

impl std::error::Error for UnreadableDialect {}
