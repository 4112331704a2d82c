//! Strings serde reads past the schema's choices (docs/values.md, "Strings outside an
//! enum that serde takes"). schemars writes an enum's choices and nothing else, but serde
//! may take more: a `#[serde(other)]` catch-all variant takes any other string, and
//! `#[serde(alias)]` on a variant takes its other names. serde attributes mean what they
//! mean to serde (docs/guide.md), so when the schema's only objections to a value are strings
//! outside such choices, and serde reads the value, the type takes it. The value is kept
//! as the model wrote it; the typed value is what serde made of it.

use crate::caps::Capped;
use crate::error::{ErrorKind, PayloadError};
use crate::validate::decode::TypedDecode;
use payload_schema::walk;
use serde_json::Value;

/// At most this many `$ref`s and unions are followed to find a node's choices.
const MAX_DEPTH: usize = 8;

/// Whether `schema` states string choices anywhere (an `enum` or `const` holding a
/// string): where it does not, no refusal can be one this module forgives, and the
/// check costs nothing.
pub(crate) fn has_string_choices(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| match key.as_str() {
            "enum" => value
                .as_array()
                .is_some_and(|values| values.iter().any(Value::is_string)),
            "const" => value.is_string(),
            _ => has_string_choices(value),
        }),
        Value::Array(items) => items.iter().any(has_string_choices),
        _ => false,
    }
}

/// The typed value, when every one of `errors` is a string refused by the string
/// choices at its path and serde reads `value` with no error of the type's own; `None`
/// otherwise (the errors stand).
pub(crate) fn serde_reads_past(
    value: &Value,
    root: &Value,
    errors: &Capped<PayloadError>,
    decode: impl Fn(&Value, bool) -> TypedDecode,
) -> Option<TypedDecode> {
    let items = errors.items();
    if items.is_empty() || errors.omitted() > 0 {
        return None;
    }
    let forgivable = items.iter().all(|error| {
        error.kind() == ErrorKind::Validation
            && value.pointer(error.path()).is_some_and(Value::is_string)
            && walk::at_pointer(root, error.path())
                .is_some_and(|node| string_choices(root, node, MAX_DEPTH))
    });
    if !forgivable {
        return None;
    }
    let decoded = decode(value, false);
    (decoded.typed.is_some() && decoded.errors.is_empty()).then_some(decoded)
}

/// Whether `node` is a choice among strings: an `enum` or `const` of strings (and
/// `null`), or a union whose branches all are, or are `null`.
fn string_choices(root: &Value, node: &Value, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    let node = walk::resolve(root, node);
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return values.iter().any(Value::is_string)
            && values.iter().all(|v| v.is_string() || v.is_null());
    }
    if let Some(constant) = node.get("const") {
        return constant.is_string();
    }
    let Some(branches) = node
        .get("oneOf")
        .or_else(|| node.get("anyOf"))
        .and_then(Value::as_array)
    else {
        return false;
    };
    let is_null = |branch: &Value| walk::types_of(walk::resolve(root, branch)) == ["null"];
    branches.iter().any(|branch| !is_null(branch))
        && branches
            .iter()
            .all(|branch| is_null(branch) || string_choices(root, branch, depth - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_choices_are_enums_constants_and_their_unions() {
        let root = json!({"$defs": {"S": {"type": "string", "enum": ["a", "b"]}}});
        for node in [
            json!({"enum": ["a", "b"]}),
            json!({"$ref": "#/$defs/S"}),
            json!({"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}),
            json!({"oneOf": [{"const": "a", "description": "A"}, {"const": "b"}]}),
        ] {
            assert!(string_choices(&root, &node, MAX_DEPTH), "{node}");
        }
        for node in [
            json!({"type": "string"}),
            json!({"enum": [1, 2]}),
            json!({"anyOf": [{"type": "null"}]}),
            json!({"oneOf": [{"const": "a"}, {"type": "object"}]}),
        ] {
            assert!(!string_choices(&root, &node, MAX_DEPTH), "{node}");
        }
        assert!(has_string_choices(&root));
        assert!(!has_string_choices(
            &json!({"properties": {"n": {"enum": [1]}}})
        ));
    }
}
