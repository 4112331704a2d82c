//! Schema-aligned coercion: fixing a value only where the schema makes the model's
//! intent unambiguous, each fix reported as a `coerced` warning.
//!
//! Applied only to a value that fails validation, so a valid value is never touched.
//! The fixes, and nothing beyond them:
//! - a number, integer or boolean written as a string (`"5.0"`, `"3"`, `"true"`);
//! - a member key in another case or separator style than the schema's (`Answer`,
//!   `context-score`), when exactly one property folds to it and it is not present;
//! - an enum value in another case (`"Create"` for `"create"`), when exactly one
//!   allowed value folds to it;
//! - a single value where an array is wanted (`"x"` → `["x"]`);
//! - a bare array where the schema wants an object with exactly one member, an array.

use crate::schema_errors::fold;
use crate::schema_walk::{self, types_of};
use crate::warning::{Warning, WarningKind};
use serde_json::{Map, Value};

/// Values nest at most this deep (the JSON parsers' own limit), so the walk's
/// recursion is bounded.
use crate::limits::MAX_DEPTH;

/// Coerces `value` toward `root` (a schema), returning the warnings for what changed.
pub fn coerce(value: &mut Value, root: &Value) -> Vec<Warning> {
    let mut warnings = Vec::new();
    wrap_bare_array(value, root, &mut warnings);
    walk(value, root, root, "", 0, &mut warnings);
    warnings
}

fn wrap_bare_array(value: &mut Value, root: &Value, warnings: &mut Vec<Warning>) {
    if !value.is_array() {
        return;
    }
    let schema = schema_walk::resolve(root, root);
    if !types_of(schema).contains(&"object") {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    if properties.len() != 1 {
        return;
    }
    let (name, property) = properties.iter().next().expect("one property");
    if !types_of(schema_walk::resolve(root, property)).contains(&"array") {
        return;
    }
    let items = std::mem::take(value);
    let mut map = Map::new();
    map.insert(name.clone(), items);
    *value = Value::Object(map);
    warnings.push(Warning::new(
        WarningKind::Coerced,
        format!("wrapped the bare array as the object's only member \"{name}\""),
    ));
}

fn walk(
    value: &mut Value,
    root: &Value,
    schema: &Value,
    path: &str,
    depth: usize,
    warnings: &mut Vec<Warning>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = effective(root, schema, value);
    let types = types_of(schema);
    if !types.is_empty() && !matches_type(value, &types) {
        if let Some(fixed) = convert_scalar(value, &types) {
            warnings.push(Warning::new(
                WarningKind::Coerced,
                format!("{}: converted {} to {}", at(path), value, fixed),
            ));
            *value = fixed;
        } else if types.contains(&"array") && !value.is_array() && !value.is_null() {
            let single = std::mem::take(value);
            warnings.push(Warning::new(
                WarningKind::Coerced,
                format!("{}: wrapped a single value in an array", at(path)),
            ));
            *value = Value::Array(vec![single]);
        }
    }
    if let Some(allowed) = schema_walk::enum_values(root, schema) {
        fix_enum_case(value, &allowed, path, warnings);
    }
    match value {
        Value::Object(map) => {
            fix_key_styles(map, schema, path, warnings);
            for (key, member) in map.iter_mut() {
                if let Some(sub) = schema_walk::property(root, schema, key) {
                    let sub_path = crate::error::pointer_join(path, key);
                    walk(member, root, sub, &sub_path, depth + 1, warnings);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(sub) = schema_walk::item(root, schema, index) {
                    let sub_path = format!("{path}/{index}");
                    walk(item, root, sub, &sub_path, depth + 1, warnings);
                }
            }
        }
        _ => {}
    }
}

/// The schema that applies to `value`: through `$ref`, the non-null branch of an
/// optional, or the one `oneOf`/`anyOf` branch whose constant tag the value carries.
fn effective<'a>(root: &'a Value, schema: &'a Value, value: &Value) -> &'a Value {
    let schema = schema_walk::resolve(root, schema);
    if value.is_null() {
        return schema;
    }
    if let Some(branch) = schema_walk::single_branch(root, schema) {
        return branch;
    }
    for keyword in ["oneOf", "anyOf"] {
        let Some(branches) = schema.get(keyword).and_then(Value::as_array) else {
            continue;
        };
        let tagged = branches
            .iter()
            .map(|b| schema_walk::resolve(root, b))
            .find(|b| {
                b.get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|props| {
                        props.iter().any(|(key, prop)| {
                            let prop = schema_walk::resolve(root, prop);
                            let constant = prop.get("const").or_else(|| {
                                prop.get("enum")
                                    .and_then(Value::as_array)
                                    .filter(|e| e.len() == 1)
                                    .and_then(|e| e.first())
                            });
                            constant.is_some_and(|c| value.get(key) == Some(c))
                        })
                    })
            });
        if let Some(branch) = tagged {
            return branch;
        }
    }
    schema
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "the value".to_string()
    } else {
        path.to_string()
    }
}

fn matches_type(value: &Value, types: &[&str]) -> bool {
    types.iter().any(|t| match *t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    })
}

/// A string that spells exactly a number, integer or boolean of the wanted type.
fn convert_scalar(value: &Value, types: &[&str]) -> Option<Value> {
    let text = value.as_str()?.trim();
    if types.contains(&"integer") {
        if let Ok(n) = text.parse::<i64>() {
            return Some(n.into());
        }
        if let Ok(f) = text.parse::<f64>() {
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                return Some((f as i64).into());
            }
        }
    }
    if types.contains(&"number") {
        if let Ok(f) = text.parse::<f64>() {
            if f.is_finite() && !text.eq_ignore_ascii_case("nan") && !text.contains("inf") {
                return serde_json::Number::from_f64(f).map(Value::Number);
            }
        }
    }
    if types.contains(&"boolean") {
        match text.to_ascii_lowercase().as_str() {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    None
}

fn fix_enum_case(value: &mut Value, allowed: &[Value], path: &str, warnings: &mut Vec<Warning>) {
    let Some(text) = value.as_str() else { return };
    if allowed.iter().any(|a| a.as_str() == Some(text)) {
        return;
    }
    let folded = fold(text);
    let mut matches = allowed
        .iter()
        .filter_map(Value::as_str)
        .filter(|a| fold(a) == folded);
    if let (Some(only), None) = (matches.next(), matches.next()) {
        warnings.push(Warning::new(
            WarningKind::Coerced,
            format!(
                "{}: changed \"{text}\" to the allowed value \"{only}\"",
                at(path)
            ),
        ));
        *value = Value::String(only.to_string());
    }
}

fn fix_key_styles(
    map: &mut Map<String, Value>,
    schema: &Value,
    path: &str,
    warnings: &mut Vec<Warning>,
) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let renames: Vec<(String, String)> = map
        .keys()
        .filter(|key| !properties.contains_key(*key))
        .filter_map(|key| {
            let folded = fold(key);
            let mut candidates = properties.keys().filter(|p| fold(p) == folded);
            match (candidates.next(), candidates.next()) {
                (Some(only), None) if !map.contains_key(only) => Some((key.clone(), only.clone())),
                _ => None,
            }
        })
        .collect();
    for (from, to) in renames {
        if let Some(member) = map.remove(&from) {
            warnings.push(Warning::new(
                WarningKind::Coerced,
                format!("{}: renamed member \"{from}\" to \"{to}\"", at(path)),
            ));
            map.insert(to, member);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "answer": {"type": "string"},
                "context_score": {"type": "integer", "minimum": 0, "maximum": 5},
                "confidence": {"type": "number"},
                "answerable_question": {"type": "boolean"},
                "mode": {"type": "string", "enum": ["create", "update"]},
                "tags": {"type": "array", "items": {"type": "string"}}
            }
        })
    }

    #[test]
    fn strings_that_spell_the_wanted_type_are_converted() {
        let mut value = json!({"context_score": "4", "confidence": "0.85",
                               "answerable_question": "True", "answer": "42"});
        let warnings = coerce(&mut value, &schema());
        assert_eq!(
            value,
            json!({"context_score": 4, "confidence": 0.85,
                   "answerable_question": true, "answer": "42"})
        );
        assert_eq!(warnings.len(), 3);
        assert!(warnings.iter().all(|w| w.kind == WarningKind::Coerced));
    }

    #[test]
    fn nothing_is_guessed() {
        let mut value = json!({"context_score": "four", "confidence": "high",
                               "answerable_question": "maybe"});
        let before = value.clone();
        assert!(coerce(&mut value, &schema()).is_empty());
        assert_eq!(value, before);
    }

    #[test]
    fn keys_in_another_style_are_renamed() {
        let mut value = json!({"Answer": "Paris", "Context-Score": 3});
        coerce(&mut value, &schema());
        assert_eq!(value, json!({"answer": "Paris", "context_score": 3}));
    }

    #[test]
    fn a_key_is_not_renamed_over_an_existing_one() {
        let mut value = json!({"Answer": "Paris", "answer": "Lyon"});
        coerce(&mut value, &schema());
        assert_eq!(value, json!({"Answer": "Paris", "answer": "Lyon"}));
    }

    #[test]
    fn enum_values_in_another_case_are_fixed() {
        let mut value = json!({"mode": "Create"});
        coerce(&mut value, &schema());
        assert_eq!(value["mode"], "create");
    }

    #[test]
    fn single_values_become_arrays_and_bare_arrays_objects() {
        let mut value = json!({"tags": "solo"});
        coerce(&mut value, &schema());
        assert_eq!(value["tags"], json!(["solo"]));

        let wrapper = json!({"type": "object", "properties": {
            "paraphrased_questions": {"type": "array", "items": {"type": "string"}}}});
        let mut bare = json!(["a?", "b?"]);
        coerce(&mut bare, &wrapper);
        assert_eq!(bare, json!({"paraphrased_questions": ["a?", "b?"]}));
    }
}
