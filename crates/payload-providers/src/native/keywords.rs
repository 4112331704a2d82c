//! The one table of keywords that only narrow what a schema accepts, and which of the
//! native dialects enforce each: what a dialect does not enforce is left out of what is
//! sent and listed, and the parser checks it locally after the answer (it validates
//! every value against the type's own schema anyway). Leaving out a narrowing keyword
//! widens what the provider lets through, never what the type accepts.

use super::Dialect;

/// Whether a dialect enforces a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Enforced {
    /// Sent and enforced.
    Yes,
    /// Left out and checked locally.
    No,
    /// Depends on its value: the dialect's own file decides.
    Depends,
}

use Enforced::{Depends, No, Yes};

/// Narrowing keywords, with their enforcement by openai-strict, anthropic-strict and
/// gemini (the providers' documented structured-output subsets).
pub(super) const NARROWING: [(&str, [Enforced; 3]); 17] = [
    ("minLength", [No, No, No]),
    ("maxLength", [No, No, No]),
    ("pattern", [Yes, Yes, No]),
    ("format", [Depends, Depends, Depends]),
    ("minimum", [Yes, No, Yes]),
    ("maximum", [Yes, No, Yes]),
    ("exclusiveMinimum", [Yes, No, No]),
    ("exclusiveMaximum", [Yes, No, No]),
    ("multipleOf", [Yes, No, No]),
    ("minItems", [Yes, Depends, Yes]),
    ("maxItems", [Yes, No, Yes]),
    ("uniqueItems", [No, No, No]),
    ("minProperties", [No, No, No]),
    ("maxProperties", [No, No, No]),
    ("contains", [No, No, No]),
    ("not", [No, No, No]),
    ("dependentRequired", [No, No, No]),
];

/// How `dialect` treats `keyword` (absent from the table: not a narrowing keyword, left
/// to the strict rewrite).
pub(super) fn enforced(dialect: Dialect, keyword: &str) -> Option<Enforced> {
    let column = match dialect {
        Dialect::OpenAiStrict => 0,
        Dialect::AnthropicStrict => 1,
        Dialect::Gemini => 2,
    };
    NARROWING
        .iter()
        .find(|(name, _)| *name == keyword)
        .map(|(_, by)| by[column])
}
