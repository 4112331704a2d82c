//! Native structured output for realistic types: a payload type's schema as each
//! provider's dialect sends it. The work is payload-schema's
//! ([`payload_schema::dialect::native`]: what a dialect does not enforce left out and
//! listed, a non-object root wrapped, the strict rewrite); here it is asked of a payload
//! type, for the dialects of the providers this crate talks to.

use payload_core::{PayloadType, runtime::RuntimeOptions, schema::Dialect, schema::StrictRefusal};
pub use payload_schema::dialect::native::{Native as NativeSchema, Unenforced, WRAPPED_MEMBER};
use serde_json::{Value, json};

/// The dialects of this crate's providers: OpenAI (both APIs), Anthropic, Gemini.
pub const PROVIDER_DIALECTS: [Dialect; 3] = [
    Dialect::OpenAiStrict,
    Dialect::AnthropicStrict,
    Dialect::Gemini,
];

/// `payload`'s schema as `dialect` sends it natively, or why it cannot be sent at all.
pub fn native_schema(
    payload: &PayloadType,
    dialect: Dialect,
) -> Result<NativeSchema, StrictRefusal> {
    payload_schema::dialect::native::native(&payload.schema(Dialect::Draft2020_12), dialect)
}

/// `schema` wrapped in a [`WRAPPED_MEMBER`] object when its root is not an object, and
/// the member (`None`: left as it was, a recursive root included).
pub(crate) fn wrap_root(schema: Value) -> (Value, Option<&'static str>) {
    match payload_schema::dialect::native::wrap_root(schema.clone()) {
        Ok(wrapped) => wrapped,
        Err(_) => (schema, None),
    }
}

/// The type an answer to a wrapped output is first read as: an object with `member`
/// (one runtime type per member name, made once).
pub(crate) fn wrapper_type(member: &str) -> Option<&'static PayloadType> {
    let schema = json!({
        "type": "object",
        "properties": { member: {} },
        "required": [member],
    });
    let options = RuntimeOptions {
        name: Some("wrapped_answer".into()),
        ..RuntimeOptions::default()
    };
    PayloadType::from_schema(&schema, options).ok()
}

#[cfg(test)]
mod tests;
