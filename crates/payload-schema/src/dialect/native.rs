//! A schema as a provider's dialect can send it natively: the narrowing keywords
//! ([`crate::keywords::Property::Narrowing`]) the dialect does not enforce left out and listed,
//! a root that is not an object wrapped in an object member ([`WRAPPED_MEMBER`]), then
//! the strict rewrite ([`super::openai_strict::rewrite`]: closed objects, every member
//! required, lossless rewrites). What cannot be sent at all (a free-form map, a value
//! of any type, an overlapping union) is still a [`StrictRefusal`].
//!
//! Leaving out a narrowing keyword widens only what the provider lets through: the
//! caller checks every value against the whole schema after the answer.

use super::Dialect;
use super::openai_strict::{self, StrictRefusal, StrictRefusalKind};
use crate::keywords::{Holds, holds, is_narrowing};
use crate::pointer::push_token;
use serde_json::{Map, Value, json};

/// The member a non-object root is wrapped in.
pub const WRAPPED_MEMBER: &str = "value";

/// A keyword left out of what is sent, to be checked after the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Unenforced {
    /// JSON Pointer to the node that has it, in the schema given.
    pub path: String,
    /// The keyword.
    pub keyword: String,
    /// Its value.
    pub value: Value,
}

/// A schema as a dialect sends it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Native {
    /// The schema to send.
    pub schema: Value,
    /// What was left out of it.
    pub unenforced: Vec<Unenforced>,
    /// The member the value is wrapped in, when the root is not an object.
    pub wrapped: Option<&'static str>,
}

/// Whether `dialect` enforces `keyword` with `value` in `node`: every keyword for the
/// drafts; for a provider's dialect, what its module says.
fn enforces(dialect: Dialect, keyword: &str, value: &Value, node: &Value) -> bool {
    match dialect {
        Dialect::OpenAiStrict => openai_strict::enforces(keyword, value, node),
        Dialect::AnthropicStrict => super::anthropic_strict::enforces(keyword, value, node),
        Dialect::Gemini => super::gemini::enforces(keyword, value, node),
        Dialect::Draft2020_12 | Dialect::Draft07 => true,
    }
}

/// `schema` (2020-12) as `dialect` sends it natively, or why it cannot be sent.
pub fn native(schema: &Value, dialect: Dialect) -> Result<Native, StrictRefusal> {
    let (prepared, unenforced, wrapped) = prepare(schema, dialect)?;
    let schema = openai_strict::rewrite(&prepared).into_result()?;
    Ok(Native {
        schema,
        unenforced,
        wrapped,
    })
}

/// The best effort of [`native`] for a schema that cannot be sent: every node that has
/// a strict form rewritten, the others left as they were.
pub(crate) fn best_effort(schema: &Value, dialect: Dialect) -> Value {
    match prepare(schema, dialect) {
        Ok((prepared, _, _)) => openai_strict::rewrite(&prepared).schema,
        Err(_) => openai_strict::rewrite(schema).schema,
    }
}

type Prepared = (Value, Vec<Unenforced>, Option<&'static str>);

/// The schema stripped of what `dialect` does not enforce, and wrapped if need be.
fn prepare(schema: &Value, dialect: Dialect) -> Result<Prepared, StrictRefusal> {
    let mut stripped = schema.clone();
    let mut unenforced = Vec::new();
    strip(&mut stripped, dialect, "", &mut unenforced);
    let (prepared, wrapped) = wrap_root(stripped)?;
    Ok((prepared, unenforced, wrapped))
}

/// Whether the root is an object schema with no union beside it.
fn is_object_root(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema.get("anyOf").is_none()
        && schema.get("oneOf").is_none()
}

/// Whether a node is a number or an integer schema.
pub(crate) fn is_numeric(node: &Value) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "integer" || t == "number",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer" || t == "number"),
        _ => false,
    }
}

/// Leaves out of `node`, and of the schemas in it, every narrowing keyword `dialect`
/// does not enforce, recording each.
fn strip(node: &mut Value, dialect: Dialect, path: &str, out: &mut Vec<Unenforced>) {
    let Value::Object(map) = node else { return };
    let snapshot = Value::Object(map.clone());
    let dropped: Vec<String> = map
        .iter()
        .filter(|(key, value)| is_narrowing(key) && !enforces(dialect, key, value, &snapshot))
        .map(|(key, _)| key.clone())
        .collect();
    for key in dropped {
        if let Some(value) = map.remove(&key) {
            out.push(Unenforced {
                path: path.to_string(),
                keyword: key,
                value,
            });
        }
    }
    for (key, value) in map.iter_mut() {
        let mut here = path.to_string();
        push_token(&mut here, key);
        match (holds(key), value) {
            (Some(Holds::One | Holds::OneOrList), value @ Value::Object(_)) => {
                strip(value, dialect, &here, out)
            }
            (Some(Holds::Map), Value::Object(children)) => {
                for (name, child) in children.iter_mut() {
                    let mut there = here.clone();
                    push_token(&mut there, name);
                    strip(child, dialect, &there, out);
                }
            }
            (Some(Holds::List | Holds::OneOrList), Value::Array(children)) => {
                for (n, child) in children.iter_mut().enumerate() {
                    strip(child, dialect, &format!("{here}/{n}"), out);
                }
            }
            _ => {}
        }
    }
}

/// `schema` wrapped in a [`WRAPPED_MEMBER`] object when its root is not an object, and
/// the member (`None` when it is left as it was); its definitions stay at the top. A
/// root that refers to itself (`$ref: "#"`) would then refer to the wrapper: refused.
pub fn wrap_root(schema: Value) -> Result<(Value, Option<&'static str>), StrictRefusal> {
    if is_object_root(&schema) {
        return Ok((schema, None));
    }
    if mentions_root_ref(&schema) {
        return Err(StrictRefusal::new(
            StrictRefusalKind::UnresolvableRef,
            "",
            "a recursive root (a $ref to #) cannot be wrapped in an object member",
        ));
    }
    let mut root = schema;
    let mut top = Map::new();
    if let Value::Object(map) = &mut root {
        for keyword in crate::keywords::with(crate::keywords::Property::StaysAtRoot) {
            if let Some(value) = map.remove(keyword) {
                top.insert(keyword.to_string(), value);
            }
        }
    }
    top.insert("type".into(), json!("object"));
    top.insert("properties".into(), json!({ WRAPPED_MEMBER: root }));
    top.insert("required".into(), json!([WRAPPED_MEMBER]));
    top.insert("additionalProperties".into(), json!(false));
    Ok((Value::Object(top), Some(WRAPPED_MEMBER)))
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
mod tests {
    use super::*;

    fn signup() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 80},
                "age": {"type": "integer", "format": "uint8", "minimum": 13, "maximum": 150},
                "postcode": {"type": "string", "pattern": "^[0-9]{5}$"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            },
            "required": ["name", "age", "postcode", "tags"],
        })
    }

    fn left_out(native: &Native) -> Vec<String> {
        native
            .unenforced
            .iter()
            .map(|u| format!("{} {}", u.path, u.keyword))
            .collect()
    }

    #[test]
    fn each_dialect_leaves_out_what_it_does_not_enforce() {
        // No strict form as written: minLength.
        assert!(openai_strict::rewrite(&signup()).into_result().is_err());
        let openai = native(&signup(), Dialect::OpenAiStrict).unwrap();
        assert_eq!(
            left_out(&openai),
            ["/properties/name minLength", "/properties/name maxLength"]
        );
        assert_eq!(
            openai.schema["properties"]["postcode"]["pattern"],
            "^[0-9]{5}$"
        );
        let anthropic = native(&signup(), Dialect::AnthropicStrict).unwrap();
        let out = left_out(&anthropic);
        for expected in [
            "/properties/age minimum",
            "/properties/age maximum",
            "/properties/age format",
            "/properties/tags maxItems",
        ] {
            assert!(out.contains(&expected.to_string()), "{out:?}");
        }
        assert!(
            !out.contains(&"/properties/tags minItems".to_string()),
            "minItems 1 is kept"
        );
        let gemini = native(&signup(), Dialect::Gemini).unwrap();
        let out = left_out(&gemini);
        assert!(
            out.contains(&"/properties/postcode pattern".to_string()),
            "{out:?}"
        );
        assert_eq!(gemini.schema["properties"]["age"]["maximum"], 150);
    }

    #[test]
    fn a_union_at_the_root_is_wrapped_and_a_map_is_still_refused() {
        let union = json!({
            "oneOf": [
                {"type": "object", "properties": {"kind": {"const": "add"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "remove"}}, "required": ["kind"]},
            ],
        });
        let wrapped = native(&union, Dialect::Gemini).unwrap();
        assert_eq!(wrapped.wrapped, Some(WRAPPED_MEMBER));
        assert_eq!(wrapped.schema["required"], json!(["value"]));
        let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let refused = native(&map, Dialect::AnthropicStrict).unwrap_err();
        assert_eq!(refused.kind, StrictRefusalKind::FreeFormMap);
        let recursive = json!({"type": "array", "items": {"$ref": "#"}});
        assert_eq!(
            native(&recursive, Dialect::OpenAiStrict).unwrap_err().kind,
            StrictRefusalKind::UnresolvableRef
        );
    }

    #[test]
    fn the_drafts_leave_nothing_out() {
        let (prepared, unenforced, _) = prepare(&signup(), Dialect::Draft2020_12).unwrap();
        assert!(unenforced.is_empty());
        assert_eq!(prepared, signup());
    }
}
