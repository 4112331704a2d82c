//! table.that's rules written into the proposal schemas, so that the validator, the
//! instructions and every grammar read them from one source (ARCHITECTURE.md,
//! constrained decoding): a schema proposal is a union on `mode` (a create adds
//! columns only and names the table, describes it and gives 2-5 sample rows; an update
//! takes every operation), and a column is a union on its type (a select column lists
//! its options; any other has neither options nor filterDisplay). What a schema cannot
//! state (distinct names, sample rows keyed by the new columns) stays the types'
//! `check`, listed among their rules.

use crate::schema_proposal::{ColumnType, SchemaOperation};
use schemars::Schema;
use serde_json::{Map, Value, json};

/// `SchemaProposal`'s schema as a union on `mode`: the create branch holds the create
/// rules, the update branch the members as they were.
pub(crate) fn mode_union(schema: &mut Schema) {
    let Some(root) = schema.as_object_mut() else {
        return;
    };
    let properties = take_object(root, "properties");
    let member = |name: &str| properties.get(name).cloned().unwrap_or(json!({}));
    let description = |name: &str| member(name).get("description").cloned();
    let with = |name: &str, mut body: Value| {
        if let (Some(text), Some(object)) = (description(name), body.as_object_mut()) {
            object.insert("description".into(), text);
        }
        body
    };
    let create = json!({
        "type": "object",
        "properties": {
            "mode": with("mode", json!({"const": "create"})),
            "reasoning": member("reasoning"),
            "table_name": with("table_name", non_empty()),
            "table_description": with("table_description", non_empty()),
            "operations": with("operations", json!({
                "type": "array",
                "items": add_operation(),
                "minItems": 1,
                "maxItems": crate::SchemaProposal::MAX_OPERATIONS,
            })),
            "sample_rows": with("sample_rows", json!({
                "type": "array",
                "items": {"type": "object", "additionalProperties": true},
                "minItems": 2,
                "maxItems": 5,
            })),
        },
        "required": ["mode", "table_name", "table_description", "operations", "sample_rows"],
    });
    let update = json!({
        "type": "object",
        "properties": {
            "mode": with("mode", json!({"const": "update"})),
            "reasoning": member("reasoning"),
            "table_name": member("table_name"),
            "table_description": member("table_description"),
            "operations": member("operations"),
        },
        "required": ["mode", "operations"],
    });
    root.remove("type");
    root.remove("required");
    root.insert("oneOf".into(), json!([create, update]));
}

/// `ColumnSpec`'s schema as a union on its type: a select column with its options
/// (at least one) and its filter display, or a column of another type with neither.
pub(crate) fn column_union(schema: &mut Schema) {
    let Some(root) = schema.as_object_mut() else {
        return;
    };
    let properties = take_object(root, "properties");
    let member = |name: &str| properties.get(name).cloned().unwrap_or(json!({}));
    let described = |name: &str, mut body: Value| {
        if let (Some(text), Some(object)) = (
            member(name).get("description").cloned(),
            body.as_object_mut(),
        ) {
            object.insert("description".into(), text);
        }
        body
    };
    let select = json!({
        "type": "object",
        "properties": {
            "name": member("name"),
            "type": described("type", json!({"const": "select"})),
            "required": member("required"),
            "options": described("options", json!({
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": crate::SchemaProposal::MAX_OPTIONS,
            })),
            "filterDisplay": member("filterDisplay"),
        },
        "required": ["name", "type", "options"],
    });
    let other = json!({
        "type": "object",
        "properties": {
            "name": member("name"),
            "type": described("type", json!({"enum": other_types()})),
            "required": member("required"),
            "options": described("options", json!({"type": "null"})),
            "filterDisplay": described("filterDisplay", json!({"type": "null"})),
        },
        "required": ["name", "type"],
    });
    root.remove("type");
    root.remove("required");
    root.insert("oneOf".into(), json!([select, other]));
}

/// Every column type but `select`, as `ColumnType`'s derived schema lists them.
fn other_types() -> Vec<Value> {
    // Documented variants are derived as `oneOf` of constants, bare ones as `enum`.
    let types = schemars::schema_for!(ColumnType);
    let listed: Vec<Value> = match (types.get("enum"), types.get("oneOf")) {
        (Some(Value::Array(all)), _) => all.clone(),
        (_, Some(Value::Array(variants))) => variants
            .iter()
            .filter_map(|v| v.get("const").cloned())
            .collect(),
        _ => Vec::new(),
    };
    listed.into_iter().filter(|t| t != "select").collect()
}

/// A string with something other than whitespace in it.
fn non_empty() -> Value {
    json!({"type": "string", "minLength": 1, "pattern": "\\S"})
}

/// The `add` variant of `SchemaOperation`, as its derived schema states it (its
/// `$ref`s point into the proposal's `$defs`, which hold the same definitions).
fn add_operation() -> Value {
    let operation = schemars::schema_for!(SchemaOperation);
    operation
        .get("oneOf")
        .and_then(Value::as_array)
        .and_then(|variants| {
            variants
                .iter()
                .find(|v| v.pointer("/properties/action/const") == Some(&json!("add")))
        })
        .cloned()
        .unwrap_or_else(|| json!({"properties": {"action": {"const": "add"}}}))
}

fn take_object(root: &mut Map<String, Value>, key: &str) -> Map<String, Value> {
    match root.remove(key) {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{add_operation, other_types};
    use serde_json::json;

    #[test]
    fn the_pieces_come_from_the_derived_schemas() {
        let add = add_operation();
        assert_eq!(add.pointer("/properties/action/const"), Some(&json!("add")));
        assert!(add.pointer("/properties/column/$ref").is_some(), "{add}");
        assert_eq!(
            other_types(),
            [
                json!("text"),
                json!("number"),
                json!("date"),
                json!("boolean")
            ]
        );
    }
}
