//! A payload type's schema compiled once into a plan that decides, in one walk over a
//! value with no keyword lookups and no allocation of its own (a `pattern` or string
//! `format` is the validator's check of that string), that the value is *clean*: valid
//! under the schema, and with nothing for the walk after validation to report or
//! rewrite (no undeclared member, no integer-valued float where an integer is wanted,
//! no number a field cannot hold: docs/spec.md §7.1, §7.2).
//!
//! A clean value skips that walk and the `jsonschema` validator and goes straight to
//! decoding (`crate::validate::check`). Any other verdict changes nothing: the value
//! takes the full path, so every error and warning, its text and its path, is what
//! the validator and the walks make of it. The plan only has to be right when it says
//! clean; when it says more, it is right too ([`Verdict`]), and the property tests
//! hold it to both.
//!
//! What is compiled (`compile`): `type`, `enum`, `const`, the number bounds, `minLength`,
//! `maxLength`, `pattern` and string `format`s (checked by the validator on the string
//! alone, so that they mean what they mean to it), the integer and float `format`s,
//! `minItems`, `maxItems`, `items`, `prefixItems`, `properties`, `required`,
//! `additionalProperties`, `allOf`, local `$ref`s (recursive ones too), and the
//! `oneOf`/`anyOf` whose branches exclude one another: by a tag member (serde's tagged
//! enums), by type (`Option<T>`), or by constant (unit-only enums). A union whose
//! branches may overlap, or any other keyword, leaves its place undecided.
//!
//! Beside it, the same schema compiled for coercion ([`Coercion`], `coercion`, and its
//! walk, `coercing`): what the walks after validation read at each place, held in
//! fields, so that whole-response mode coerces a value with no keyword lookups.

mod coercing;
mod coercion;
mod compile;
#[cfg(feature = "__internals")]
pub(crate) mod judge;
mod node;
mod run;
#[cfg(test)]
mod tests;
mod verdict;

pub(crate) use coercion::Coercion;
use node::Node;
pub(crate) use node::Types;
use serde_json::Value;
pub use verdict::Verdict;

/// A schema compiled into nodes (the root's first).
#[derive(Debug)]
pub(crate) struct Plan {
    nodes: Box<[Node]>,
}

impl Plan {
    /// Compiles `schema` (a 2020-12 schema, the root of its `$ref`s); `None` when it is
    /// larger than a plan holds.
    pub(crate) fn compile(schema: &Value) -> Option<Plan> {
        compile::compile(schema).map(|nodes| Plan {
            nodes: nodes.into_boxed_slice(),
        })
    }

    /// The verdict on `value`.
    pub(crate) fn verdict(&self, value: &Value) -> Verdict {
        run::check(&self.nodes, value, 0, 0)
    }
}
