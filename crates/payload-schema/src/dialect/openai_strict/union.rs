//! When a `oneOf` may be written as an `anyOf`: only when no value can match two of its
//! branches, since `oneOf` refuses such a value and `anyOf` would take it.
//!
//! Exclusivity is proved from what the branches state, never tried on values: two
//! branches are exclusive when their `type`s share no JSON type, when their constant
//! values (`const`, `enum`) share none, or when both require one member whose constant
//! values share none (the tag of a tagged enum).

use crate::walk::{resolve, types_of};
use serde_json::Value;

/// Whether every pair of `branches` (resolved against `root`) is provably exclusive.
pub(super) fn exclusive(root: &Value, branches: &[Value]) -> bool {
    let resolved: Vec<&Value> = branches.iter().map(|b| resolve(root, b)).collect();
    resolved
        .iter()
        .enumerate()
        .all(|(i, a)| resolved[i + 1..].iter().all(|b| exclusive_pair(root, a, b)))
}

fn exclusive_pair(root: &Value, a: &Value, b: &Value) -> bool {
    disjoint_types(a, b)
        || disjoint_constants(a, b)
        || required_in_both(a, b).any(
            |name| match (member(root, a, name), member(root, b, name)) {
                (Some(x), Some(y)) => disjoint_constants(x, y),
                _ => false,
            },
        )
}

/// The schema of member `name` of an object schema, resolved.
fn member<'a>(root: &'a Value, schema: &'a Value, name: &str) -> Option<&'a Value> {
    schema
        .get("properties")
        .and_then(|p| p.get(name))
        .map(|m| resolve(root, m))
}

/// Whether both schemas state types and share none (`integer` counts as a `number`).
fn disjoint_types(a: &Value, b: &Value) -> bool {
    let (ta, tb) = (number_types(a), number_types(b));
    !ta.is_empty() && !tb.is_empty() && !ta.iter().any(|t| tb.contains(t))
}

/// The types a schema states, an `integer` named a `number`.
fn number_types(schema: &Value) -> Vec<&str> {
    types_of(schema)
        .into_iter()
        .map(|t| if t == "integer" { "number" } else { t })
        .collect()
}

/// Whether both schemas list their only values (`const` or `enum`) and share none.
fn disjoint_constants(a: &Value, b: &Value) -> bool {
    match (constants(a), constants(b)) {
        (Some(va), Some(vb)) => !va.iter().any(|x| vb.iter().any(|y| same(x, y))),
        _ => false,
    }
}

fn constants(schema: &Value) -> Option<Vec<&Value>> {
    if let Some(value) = schema.get("const") {
        return Some(vec![value]);
    }
    schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|values| values.iter().collect())
}

/// JSON Schema equality: `1` and `1.0` are the same number.
fn same(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Number(a), Value::Number(b)) => a == b || a.as_f64() == b.as_f64(),
        _ => x == y,
    }
}

fn required_in_both<'a>(a: &'a Value, b: &'a Value) -> impl Iterator<Item = &'a str> {
    let names = |schema: &'a Value| -> Vec<&'a str> {
        schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    let theirs = names(b);
    names(a).into_iter().filter(move |n| theirs.contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn constants_types_and_tags_make_branches_exclusive() {
        let root = json!({"$defs": {"Add": {"type": "object",
            "properties": {"action": {"const": "add"}}, "required": ["action"]}}});
        let tagged = [
            json!({"$ref": "#/$defs/Add"}),
            json!({"type": "object", "properties": {"action": {"type": "string", "enum": ["drop"]}},
                   "required": ["action"]}),
        ];
        assert!(exclusive(&root, &tagged));
        assert!(exclusive(
            &root,
            &[json!({"const": "client"}), json!({"const": "server"})]
        ));
        assert!(exclusive(
            &root,
            &[
                json!({"type": "string"}),
                json!({"type": ["integer", "null"]})
            ]
        ));
    }

    #[test]
    fn overlapping_branches_are_not() {
        let root = json!({});
        assert!(!exclusive(
            &root,
            &[json!({"type": "integer"}), json!({"type": "number"})]
        ));
        assert!(!exclusive(
            &root,
            &[json!({"const": 1}), json!({"const": 1.0})]
        ));
        // A tag that one branch only allows (not requires) does not tell them apart.
        let untagged = [
            json!({"type": "object", "properties": {"kind": {"const": "a"}}}),
            json!({"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}),
        ];
        assert!(!exclusive(&root, &untagged));
    }
}
