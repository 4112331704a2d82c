//! The `null`s of strict output read as absent members ([`crate::PayloadType::strict_nulls`]).
//!
//! A strict schema lists every member in `required` and lets an optional one be `null`;
//! the type's own schema may not allow that `null` (an optional `Vec` with a default,
//! say). Which `null`s are removed is decided from the schema alone: the member is
//! declared by a schema that applies to its object ([`Applies`]: through `$ref`s,
//! `allOf` parts and the union branch the value selects), no applying schema requires
//! it, and its own schema does not accept `null`. Everything else is left as written.

use crate::limits::MAX_DEPTH;
use crate::schema::applies::Applies;
use payload_schema::walk::accepts_null;
use serde_json::Value;

/// Removes from `value` (governed by the schema `root`) every member whose `null`
/// means "left out" by the rule of the module docs.
pub(crate) fn remove(value: &mut Value, root: &Value) {
    visit(value, root, root, 0);
}

fn visit(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth >= MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(_) => {
            let applies = Applies::of(root, schema, value);
            let Value::Object(map) = value else { return };
            map.retain(|key, member| {
                !member.is_null()
                    || applies
                        .optional_member(key)
                        .is_none_or(|sub| accepts_null(root, sub))
            });
            for (key, member) in map.iter_mut() {
                if let Some(sub) = applies.member(key) {
                    visit(member, sub, root, depth + 1);
                }
            }
        }
        Value::Array(_) => {
            let applies = Applies::of(root, schema, value);
            let Value::Array(items) = value else { return };
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(sub) = applies.item(index) {
                    visit(item, sub, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn root() -> Value {
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}, "default": []},
                "note": {"type": ["string", "null"]},
                "kept": {"type": "string"},
                "inner": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]},
                "rows": {"type": "array", "items": {"$ref": "#/$defs/Inner"}}
            },
            "required": ["title", "kept"],
            "$defs": {"Inner": {"type": "object",
                "properties": {"size": {"type": "integer"}}}}
        })
    }

    #[test]
    fn only_optional_members_that_refuse_null_are_removed() {
        let root = root();
        let mut value = json!({"title": "t", "tags": null, "note": null, "kept": null,
                               "inner": {"size": null}, "rows": [{"size": null}, {"size": 2}]});
        remove(&mut value, &root);
        assert_eq!(
            value,
            json!({"title": "t", "note": null, "kept": null,
                   "inner": {}, "rows": [{}, {"size": 2}]}),
            "a required member and one that takes null keep their null"
        );
    }

    #[test]
    fn undeclared_members_and_undecided_unions_are_left_alone() {
        let root = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "object", "properties": {"b": {"type": "integer"}}}
        ]});
        let mut value = json!({"a": null, "x": null});
        remove(&mut value, &root);
        assert_eq!(value, json!({"a": null, "x": null}));
    }
}
