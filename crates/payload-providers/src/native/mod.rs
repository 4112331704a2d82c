//! Native structured output for realistic types: a payload type's schema as each
//! provider's dialect can enforce it.
//!
//! - A narrowing keyword the dialect does not enforce (a `minLength`, a bound, a
//!   `pattern`, a format: the table in [`keywords`]) is left out of what is sent and
//!   listed ([`NativeSchema::unenforced`]); the parser checks it locally after the answer,
//!   as it validates every value against the type's own schema.
//! - A root that is not an object (a tagged enum, an array, a scalar) is wrapped in an
//!   object member ([`WRAPPED_MEMBER`]) and unwrapped on the way back
//!   ([`NativeSchema::wrapped`]).
//! - The result then goes through the strict rewrite (closed objects, every member
//!   required, lossless rewrites); what cannot be sent at all (a free-form map, a value
//!   of any type, an overlapping union) is still a [`StrictRefusal`].

mod anthropic_strict;
mod gemini;
mod keywords;
mod openai_strict;

use keywords::{Enforced, enforced};
use payload_core::{
    PayloadType, runtime::RuntimeOptions, schema::StrictRefusal, schema::StrictRefusalKind,
};
use serde_json::{Map, Value, json};

/// The member a non-object root is wrapped in.
pub const WRAPPED_MEMBER: &str = "value";

/// A provider's structured-output dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI Structured Outputs, `strict: true` (Chat Completions and Responses).
    OpenAiStrict,
    /// Anthropic structured outputs and strict tools.
    AnthropicStrict,
    /// Gemini's `responseJsonSchema`.
    Gemini,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 3] = [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ];

    /// Its name: `openai-strict`, `anthropic-strict`, `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::AnthropicStrict => "anthropic-strict",
            Dialect::Gemini => "gemini",
        }
    }
}

/// A keyword left out of what is sent, checked locally instead.
#[derive(Debug, Clone, PartialEq)]
pub struct Unenforced {
    /// JSON Pointer to the schema node that has it, in the type's 2020-12 schema.
    pub path: String,
    /// The keyword.
    pub keyword: String,
    /// Its value.
    pub value: Value,
}

/// A type's schema as a dialect can send it.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeSchema {
    /// The schema to send.
    pub schema: Value,
    /// What was left out of it, to be checked locally.
    pub unenforced: Vec<Unenforced>,
    /// The member the value is wrapped in, when the type's root is not an object.
    pub wrapped: Option<&'static str>,
}

/// `payload`'s schema as `dialect` can send it, or why it cannot be sent at all.
pub fn native_schema(
    payload: &PayloadType,
    dialect: Dialect,
) -> Result<NativeSchema, StrictRefusal> {
    let mut schema = payload.schema(payload_core::schema::Dialect::Draft2020_12);
    let mut unenforced = Vec::new();
    strip(&mut schema, dialect, "", &mut unenforced);
    let wrapped = if is_object_root(&schema) {
        None
    } else {
        schema = wrap(schema)?;
        Some(WRAPPED_MEMBER)
    };
    let options = RuntimeOptions {
        name: Some(payload.name.to_string()),
        ..RuntimeOptions::default()
    };
    let runtime = PayloadType::from_schema(&schema, options).map_err(|error| {
        StrictRefusal::new(
            StrictRefusalKind::UnsupportedKeyword,
            "",
            format!("the schema without its unenforced keywords is not a schema: {error}"),
        )
    })?;
    let schema = runtime.strict_schema()?;
    Ok(NativeSchema {
        schema,
        unenforced,
        wrapped,
    })
}

/// Whether a node is a number or an integer schema.
fn is_numeric(node: &Value) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "integer" || t == "number",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer" || t == "number"),
        _ => false,
    }
}

/// Whether the root is an object schema with no union beside it.
fn is_object_root(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema.get("anyOf").is_none()
        && schema.get("oneOf").is_none()
}

/// Keywords whose value is one schema, a map of schemas, or a list of schemas.
const ONE: [&str; 6] = [
    "additionalProperties",
    "items",
    "if",
    "then",
    "else",
    "propertyNames",
];
const MAP: [&str; 3] = ["properties", "patternProperties", "$defs"];
const LIST: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];

/// Leaves out of `node` and the schemas in it every narrowing keyword `dialect` does
/// not enforce, recording each.
fn strip(node: &mut Value, dialect: Dialect, path: &str, out: &mut Vec<Unenforced>) {
    let Value::Object(map) = node else { return };
    let snapshot = Value::Object(map.clone());
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let keep = match enforced(dialect, &key) {
            None | Some(Enforced::Yes) => true,
            Some(Enforced::No) => false,
            Some(Enforced::Depends) => {
                let value = &map[&key];
                match dialect {
                    Dialect::OpenAiStrict => openai_strict::enforces(&key, value, &snapshot),
                    Dialect::AnthropicStrict => anthropic_strict::enforces(&key, value, &snapshot),
                    Dialect::Gemini => gemini::enforces(&key, value, &snapshot),
                }
            }
        };
        if !keep {
            if let Some(value) = map.remove(&key) {
                out.push(Unenforced {
                    path: path.to_string(),
                    keyword: key,
                    value,
                });
            }
        }
    }
    for (key, value) in map.iter_mut() {
        let here = format!("{path}/{}", escape(key));
        if ONE.contains(&key.as_str()) {
            strip(value, dialect, &here, out);
        } else if MAP.contains(&key.as_str()) {
            if let Value::Object(children) = value {
                for (name, child) in children.iter_mut() {
                    strip(child, dialect, &format!("{here}/{}", escape(name)), out);
                }
            }
        } else if LIST.contains(&key.as_str()) {
            if let Value::Array(children) = value {
                for (n, child) in children.iter_mut().enumerate() {
                    strip(child, dialect, &format!("{here}/{n}"), out);
                }
            }
        }
    }
}

/// A JSON Pointer token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// `schema` wrapped in a [`WRAPPED_MEMBER`] object when its root is not an object, and
/// the member it is wrapped in (`None`: left as it was). A recursive root cannot be
/// wrapped and is left as it was.
pub(crate) fn wrap_root(schema: Value) -> (Value, Option<&'static str>) {
    if is_object_root(&schema) {
        return (schema, None);
    }
    match wrap(schema.clone()) {
        Ok(wrapped) => (wrapped, Some(WRAPPED_MEMBER)),
        Err(_) => (schema, None),
    }
}

/// The type an answer to a wrapped output is first read as: an object with `member`.
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

/// The root wrapped in an object member, its definitions kept at the top. A reference
/// to the root itself (`#`) would then point at the wrapper: refused.
fn wrap(mut root: Value) -> Result<Value, StrictRefusal> {
    if mentions_root_ref(&root) {
        return Err(StrictRefusal::new(
            StrictRefusalKind::UnresolvableRef,
            "",
            "a recursive root (a $ref to #) cannot be wrapped in an object member",
        ));
    }
    let mut top = Map::new();
    if let Value::Object(map) = &mut root {
        for keyword in ["$schema", "$defs", "title", "description"] {
            if let Some(value) = map.remove(keyword) {
                top.insert(keyword.to_string(), value);
            }
        }
    }
    top.insert("type".into(), json!("object"));
    top.insert("properties".into(), json!({ WRAPPED_MEMBER: root }));
    top.insert("required".into(), json!([WRAPPED_MEMBER]));
    top.insert("additionalProperties".into(), json!(false));
    Ok(Value::Object(top))
}

fn mentions_root_ref(node: &Value) -> bool {
    match node {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| (k == "$ref" && v == "#") || mentions_root_ref(v)),
        Value::Array(items) => items.iter().any(mentions_root_ref),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
