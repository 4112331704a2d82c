//! OpenAI's strict-mode subset of JSON Schema (Structured Outputs with `strict: true`):
//! a type's 2020-12 schema rewritten into it, or the reason it cannot be.
//!
//! Strict mode takes an object at the top, closes every object
//! (`additionalProperties: false`), lists every member in `required` (an optional one
//! accepts `null` instead), and knows a fixed set of keywords, string formats and size
//! limits. The rewrite ([`rewrite`]) keeps what the subset takes, drops what only
//! annotates (`default`, `examples`, `$schema`, `x-...` extension keys, a float's
//! `format`), and rewrites what has a lossless equivalent:
//!
//! - an integer `format` (`uint64`, `int32`, ...) becomes `minimum`/`maximum`;
//! - a `oneOf` whose branches are provably exclusive becomes an `anyOf`;
//! - a `$ref` with keywords beside it becomes its definition inlined and merged with
//!   them, when the definition is not recursive (strict mode takes nothing beside a
//!   `$ref`); the annotations beside a `$ref` to a recursive definition are dropped;
//! - an optional member becomes a required one whose schema also accepts `null`.
//!
//! Whatever would change the set of accepted values (dropping `minLength`, an
//! overlapping `oneOf`, a free-form map, a non-object top level) is a
//! [`StrictRefusal`], never a silent change. Every result is then checked against the
//! subset and its limits (the `rules` module).
//!
//! A response that follows a strict schema writes `null` for the members the type
//! leaves out; `payload_core`'s `PayloadType::strict_nulls` reads those as absent.

mod integers;
mod refusal;
#[allow(clippy::module_inception)]
mod rewrite;
mod rules;
mod union;

#[cfg(test)]
mod tests;

pub use refusal::{StrictRefusal, StrictRefusalKind};
use serde_json::Value;

/// The string formats strict mode supports.
pub const STRING_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Whether strict mode enforces the narrowing `keyword`
/// ([`crate::keywords::Property::Narrowing`]) with `value` in `node`: `pattern`, numeric bounds,
/// `multipleOf`, array sizes, the [`STRING_FORMATS`], and an integer `format` (the
/// rewrite turns it into exact bounds). Not string lengths, `uniqueItems` or the
/// object and `contains` constraints; [`super::native`] leaves those out and lists them.
pub fn enforces(keyword: &str, value: &Value, node: &Value) -> bool {
    match keyword {
        "pattern" | "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"
        | "multipleOf" | "minItems" | "maxItems" => true,
        "format" => {
            super::native::is_numeric(node)
                || value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f))
        }
        _ => false,
    }
}

/// A schema rewritten for strict mode.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Strict {
    /// The rewritten schema: strict when `refusals` is empty, the best effort otherwise
    /// (every node that could be rewritten is, the others are left as they were).
    pub schema: Value,
    /// Why the schema is not strict, shallowest node first.
    pub refusals: Vec<StrictRefusal>,
}

impl Strict {
    /// The strict schema, or the first reason there is none.
    pub fn into_result(self) -> Result<Value, StrictRefusal> {
        match self.refusals.into_iter().next() {
            None => Ok(self.schema),
            Some(refusal) => Err(refusal),
        }
    }
}

/// Rewrites a 2020-12 schema for strict mode.
pub fn rewrite(schema: &Value) -> Strict {
    let (schema, mut refusals) = rewrite::Rewrite::run(schema);
    if refusals.is_empty() {
        refusals = rules::check(&schema);
    }
    // The shallowest first: the top level's shape says more than a leaf's keyword.
    refusals.sort_by_key(|r| r.path.matches('/').count());
    Strict { schema, refusals }
}
