//! Schemas of payload types: the [`Dialect`]s a type's schema is written in
//! (`PayloadType::schema`), why a type has no OpenAI strict form ([`StrictRefusal`],
//! from `PayloadType::strict_schema`), and the top-level [`Shape`] a schema requires.
//! The schema tools themselves are the `payload-schema` crate's.
//!
//! Inside the crate, what the pipeline knows about a schema beyond that crate's walk:
//! which parts of a schema apply at a place (`applies`), facts learned once per schema
//! (`facts`) and how a union's variants are told apart (`variants`).
//!
//! Generating a type's schema is the payload layer's (`crate::derived`); compiling and
//! running the validator is the validation layer's (`crate::validate::compiled`).

pub use payload_schema::dialect::Dialect;
pub use payload_schema::dialect::openai_strict::{StrictRefusal, StrictRefusalKind};
use serde_json::Value;

pub(crate) mod applies;
pub(crate) mod facts;
pub(crate) mod variants;

/// The JSON kind a payload's top level takes, which decides what may follow its marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A JSON object (`{`).
    Object,
    /// A JSON array (`[`).
    Array,
    /// Either; the schema does not say.
    Any,
}

impl Shape {
    /// Whether a value opening with `byte` can be of this shape.
    pub fn accepts_opener(self, byte: u8) -> bool {
        match self {
            Shape::Object => byte == b'{',
            Shape::Array => byte == b'[',
            Shape::Any => byte == b'{' || byte == b'[',
        }
    }
}

/// The top-level kind `schema` requires.
pub(crate) fn shape_of(schema: &Value) -> Shape {
    let resolved = payload_schema::walk::resolve(schema, schema);
    match resolved.get("type").and_then(Value::as_str) {
        Some("object") => Shape::Object,
        Some("array") => Shape::Array,
        _ => Shape::Any,
    }
}
