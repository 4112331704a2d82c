//! A value as a model answering with a strict schema writes it: every member the type
//! declares is present, the ones the value leaves out written as `null`.
//!
//! Walks the type's 2020-12 schema beside the value; a union's branch is the one
//! `jsonschema` says the value matches (with the schema's `$defs`), so this shares no
//! code with payload-core's own schema walks.

use serde_json::Value;

/// `value` (valid under `root`) with every declared member it leaves out written as
/// `null`.
pub fn of(value: &Value, root: &Value) -> Value {
    fill(value, root, root)
}

fn fill(value: &Value, schema: &Value, root: &Value) -> Value {
    let schema = resolve(schema, root);
    let mut value = match value {
        Value::Object(map) => {
            let mut map = map.clone();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, member) in properties {
                    match map.get(name) {
                        Some(present) => {
                            let filled = fill(present, member, root);
                            map.insert(name.clone(), filled);
                        }
                        None => {
                            map.insert(name.clone(), Value::Null);
                        }
                    }
                }
            }
            Value::Object(map)
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) => Value::Array(items.iter().map(|i| fill(i, item, root)).collect()),
            None => value.clone(),
        },
        other => other.clone(),
    };
    for union in ["oneOf", "anyOf"] {
        let branches = schema.get(union).and_then(Value::as_array);
        if let Some(branch) = branches
            .into_iter()
            .flatten()
            .find(|branch| matches(&value, branch, root))
        {
            value = fill(&value, branch, root);
        }
    }
    value
}

/// Follows `$ref`s into `root`.
fn resolve<'a>(mut schema: &'a Value, root: &'a Value) -> &'a Value {
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        match reference.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// Whether `value` satisfies `branch` (a sub-schema of `root`).
fn matches(value: &Value, branch: &Value, root: &Value) -> bool {
    let mut schema = match branch {
        Value::Object(map) => map.clone(),
        other => return other.as_bool().unwrap_or(false),
    };
    if let Some(defs) = root.get("$defs") {
        schema.insert("$defs".into(), defs.clone());
    }
    jsonschema::validator_for(&Value::Object(schema)).is_ok_and(|v| v.is_valid(value))
}
