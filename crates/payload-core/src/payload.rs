//! The [`LlmPayload`] trait and its type-erased descriptor, [`PayloadType`].

use crate::error::PayloadError;
use crate::schema::{self, CompiledSchema, Dialect};
use crate::summary;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::any::TypeId;
use std::fmt;

/// A type a model can emit inside (or as) its response.
///
/// Implement it with `#[derive(LlmPayload)]`; the derive fills in the constants from the
/// `#[payload(...)]` attribute and the doc comment. The JSON Schema comes from
/// [`JsonSchema`], so what the prompt teaches and what the validator checks are one
/// schema.
pub trait LlmPayload: Serialize + DeserializeOwned + JsonSchema + Sized + 'static {
    /// Snake_case identifier, e.g. `schema_proposal`; `custom_payload.type` in results.
    const NAME: &'static str;
    /// The marker the model writes before the JSON, without the colon, e.g.
    /// `SCHEMA_PROPOSAL`.
    const MARKER: &'static str;
    /// When to use it: the type's doc comment.
    const DESCRIPTION: &'static str;
    /// Rules the schema says badly, in words, for the instructions (the checks
    /// themselves are [`LlmPayload::check`]).
    const RULES: &'static [&'static str] = &[];
    /// Seed 002's `x-format` options (`format(...)` in the derive), as a JSON object in
    /// text; merged into the root of the generated schema. Empty for none.
    const FORMAT_OPTIONS: &'static str = "";
    /// The type-erased descriptor that registries, parsers and prompts work with.
    const TYPE: PayloadType = PayloadType::of::<Self>();

    /// An example instance, shown in the instructions and checked by tests.
    fn example() -> Option<Self> {
        None
    }

    /// Rules beyond the schema (mode rules, cross-field rules). Every problem is
    /// returned, not only the first.
    fn check(&self) -> Vec<PayloadError> {
        Vec::new()
    }

    /// One line that describes this instance for the conversation's payload manifest.
    fn summarize(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(Value::Null);
        summary::default_summary(Self::NAME, &value)
    }
}

/// The type-erased face of an [`LlmPayload`] type: what registries, the marker parser
/// and the prompt builder need, as plain data and function pointers.
///
/// Built in a `const` context by [`PayloadType::of`], so it can live in a `static`
/// (which is what link-time registration needs).
#[derive(Clone, Copy)]
pub struct PayloadType {
    /// See [`LlmPayload::NAME`].
    pub name: &'static str,
    /// See [`LlmPayload::MARKER`].
    pub marker: &'static str,
    /// See [`LlmPayload::DESCRIPTION`].
    pub description: &'static str,
    /// See [`LlmPayload::RULES`].
    pub rules: &'static [&'static str],
    type_id: fn() -> TypeId,
    schema: fn(Dialect) -> Value,
    compiled: fn() -> &'static CompiledSchema,
    check: fn(&Value) -> Result<(), Vec<PayloadError>>,
    example: fn() -> Option<Value>,
    summarize: fn(&Value) -> Option<String>,
}

impl PayloadType {
    /// The descriptor of `T`.
    pub const fn of<T: LlmPayload>() -> PayloadType {
        PayloadType {
            name: T::NAME,
            marker: T::MARKER,
            description: T::DESCRIPTION,
            rules: T::RULES,
            type_id: TypeId::of::<T>,
            schema: schema::generate::<T>,
            compiled: schema::compiled::<T>,
            check: check_value::<T>,
            example: example_value::<T>,
            summarize: summarize_value::<T>,
        }
    }

    /// The type's JSON Schema in `dialect`.
    pub fn schema(&self, dialect: Dialect) -> Value {
        (self.schema)(dialect)
    }

    /// The compiled 2020-12 schema the validator uses (built once per type).
    pub fn compiled(&self) -> &'static CompiledSchema {
        (self.compiled)()
    }

    /// Whether the value's top level is a JSON object, array, or either.
    pub fn shape(&self) -> Shape {
        self.compiled().shape()
    }

    /// Validates `value` against the schema, then decodes it and applies the type's
    /// rules. Every problem found is returned.
    pub fn validate(&self, value: &Value) -> Result<(), Vec<PayloadError>> {
        let errors = self.compiled().validate(value);
        if !errors.is_empty() {
            return Err(errors);
        }
        (self.check)(value)
    }

    /// The example instance as JSON, if the type has one.
    pub fn example(&self) -> Option<Value> {
        (self.example)()
    }

    /// The one-line summary of a valid value (`None` if it does not decode).
    pub fn summarize(&self, value: &Value) -> Option<String> {
        (self.summarize)(value)
    }

    /// Whether this descriptor is the one of `T`.
    pub fn is<T: 'static>(&self) -> bool {
        (self.type_id)() == TypeId::of::<T>()
    }
}

impl PartialEq for PayloadType {
    fn eq(&self, other: &Self) -> bool {
        (self.type_id)() == (other.type_id)()
    }
}

impl Eq for PayloadType {}

impl fmt::Debug for PayloadType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PayloadType")
            .field("name", &self.name)
            .field("marker", &self.marker)
            .finish_non_exhaustive()
    }
}

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

fn check_value<T: LlmPayload>(value: &Value) -> Result<(), Vec<PayloadError>> {
    let decoded = T::deserialize(value).map_err(|error| vec![decode_error(error)])?;
    let errors = decoded.check();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// A serde error on a value that passed the schema: the schema and the type disagree
/// somewhere (a custom `Deserialize`, say), so the message is all there is to report.
fn decode_error(error: serde_json::Error) -> PayloadError {
    PayloadError::validation("", format!("the value does not decode: {error}"))
        .with_suggestion("follow the schema exactly")
}

fn example_value<T: LlmPayload>() -> Option<Value> {
    T::example().and_then(|example| serde_json::to_value(example).ok())
}

fn summarize_value<T: LlmPayload>(value: &Value) -> Option<String> {
    T::deserialize(value)
        .ok()
        .map(|decoded| decoded.summarize())
}
