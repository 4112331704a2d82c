//! Schema-aligned coercion (docs/spec.md §7.4, whole-response mode only): fixing a value only
//! where the schema makes the model's intent unambiguous, each fix reported as a
//! `coerced` warning naming its path.
//!
//! Applied only to a value that fails validation, so a valid value is never touched.
//! Marker mode never coerces. The fixes, and nothing beyond them:
//!
//! - a number written as a string, where a number or integer is wanted, when the
//!   string is exactly one JSON number: `"42"`, `"-3.5"`, `"1e2"`, `" 7 "` (surrounding
//!   space is not part of the number). JSON's own grammar decides, so `"042"` (a
//!   leading zero: often a code whose zero matters), `"+5"`, `".5"`, `"1,000"`,
//!   `"1_000"`, `"50%"`, `"0x1F"`, `"NaN"`, `"N/A"` and `"1e400"` stay strings. For an
//!   integer the number must be one exactly: `"3.0"` is 3, `"3.5"` is refused, and so
//!   is a float-spelled number past 2^53, whose digits may already be rounded;
//! - `"true"` / `"false"`, in any case, where a boolean is wanted; never `"yes"`,
//!   `"no"`, `"1"` or `"on"`, which need a guess;
//! - a member key in another case or separator style than the schema's (`Title`,
//!   `rowId`, `context-score`), when exactly one declared member folds to it and that
//!   member is absent (maps keep their keys as written);
//! - an enum value in another case or separator style (`"High"` for `"high"`), when
//!   exactly one allowed value folds to it;
//! - a single value where an array is wanted (`"x"` → `["x"]`);
//! - a bare array where the schema wants an object with exactly one member, an array.
//!
//! Integer-valued floats (`12.0` for an integer) are rewritten before validation, in
//! both modes (`crate::validate::numbers`); whole-response mode reports those as `coerced` too.

use crate::caps::Capped;
use crate::schema::applies::{Applies, Members};
use crate::validate::schema_errors::fold;
use crate::warning::{Warning, WarningKind};
use payload_schema::pointer;
use payload_schema::walk::{self as schema_walk, types_of};
use serde_json::{Map, Number, Value};

/// Values nest at most this deep (the JSON parsers' own limit), so the walk's
/// recursion is bounded.
use crate::limits::MAX_DEPTH;

/// The largest magnitude up to which every integer is exactly a float (2^53).
const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Coerces `value` toward `root` (a schema), pushing a warning for each change. Every
/// change is pushed (or counted, once `warnings` is full): a caller can tell from
/// [`Capped::is_empty`] whether anything changed.
pub(crate) fn coerce_into(value: &mut Value, root: &Value, warnings: &mut Capped<Warning>) {
    let mut fixes = Fixes { warnings };
    wrap_bare_array(value, root, &mut fixes);
    walk(value, root, root, &mut String::new(), 0, &mut fixes);
}

/// The warnings of one coercion: built only while the report has room.
struct Fixes<'w> {
    warnings: &'w mut Capped<Warning>,
}

impl Fixes<'_> {
    fn note(&mut self, message: impl FnOnce() -> String) {
        if self.warnings.is_full() {
            self.warnings.count_omitted(1);
        } else {
            self.warnings
                .push(Warning::new(WarningKind::Coerced, message()));
        }
    }
}

fn wrap_bare_array(value: &mut Value, root: &Value, fixes: &mut Fixes<'_>) {
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
    let Some((name, property)) = properties.iter().next() else {
        return;
    };
    if !types_of(schema_walk::resolve(root, property)).contains(&"array") {
        return;
    }
    let items = std::mem::take(value);
    let mut map = Map::new();
    map.insert(name.clone(), items);
    *value = Value::Object(map);
    fixes.note(|| format!("wrapped the bare array as the object's only member \"{name}\""));
}

/// Coerces `value` where `schema` governs it. `path` is its pointer: one buffer for the
/// whole walk, a segment pushed and popped per level, so that no member costs a string.
fn walk(
    value: &mut Value,
    root: &Value,
    schema: &Value,
    path: &mut String,
    depth: usize,
    fixes: &mut Fixes<'_>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut applies = Applies::of(root, schema, value);
    let types = applies.types();
    if !types.is_empty() && !matches_type(value, &types) {
        if let Some(fixed) = convert_scalar(value, &types) {
            fixes.note(|| format!("{}: converted {} to {}", at(path), value, fixed));
            *value = fixed;
        } else if types.contains(&"array") && !value.is_array() && !value.is_null() {
            let single = std::mem::take(value);
            fixes.note(|| format!("{}: wrapped a single value in an array", at(path)));
            *value = Value::Array(vec![single]);
            // A union may be decided differently now that the value is an array.
            applies = Applies::of(root, schema, value);
        }
    }
    // Only a string's case is fixed: the allowed values (a copy) are looked up for
    // strings alone, not at every node.
    if value.is_string() {
        if let Some(allowed) = applies.enum_values() {
            fix_enum_case(value, allowed, path, fixes);
        }
    }
    match value {
        Value::Object(map) => {
            fix_key_styles(map, &applies, path, fixes);
            for (key, member) in map.iter_mut() {
                if let Some(sub) = applies.member(key) {
                    let len = path.len();
                    pointer::push_token(path, key);
                    walk(member, root, sub, path, depth + 1, fixes);
                    path.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(sub) = applies.item(index) {
                    let len = path.len();
                    pointer::push_index(path, index);
                    walk(item, root, sub, path, depth + 1, fixes);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
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

/// A string that spells exactly a number, integer or boolean of a wanted type (the
/// rules are in the module docs).
fn convert_scalar(value: &Value, types: &[&str]) -> Option<Value> {
    let text = value.as_str()?.trim();
    if types.contains(&"integer") || types.contains(&"number") {
        if let Some(number) = exact_number(text) {
            if types.contains(&"integer") {
                if let Some(integer) = exact_integer(&number) {
                    return Some(integer);
                }
            }
            if types.contains(&"number") {
                return Some(Value::Number(number));
            }
        }
    }
    if types.contains(&"boolean") {
        if text.eq_ignore_ascii_case("true") {
            return Some(Value::Bool(true));
        }
        if text.eq_ignore_ascii_case("false") {
            return Some(Value::Bool(false));
        }
    }
    None
}

/// `text` read as one JSON number, if that is all it is.
fn exact_number(text: &str) -> Option<Number> {
    // serde_json would skip whitespace around the number; inside the text none is
    // allowed, and the grammar's own characters are all that may appear.
    if !crate::json::precision::number_characters_only(text) {
        return None;
    }
    // `"1e-400"` or thirty digits would be read as another number: not exact, so not
    // coerced (the schema then reports the string).
    serde_json::from_str::<Number>(text)
        .ok()
        .filter(|number| crate::json::precision::number_holds(text, number))
}

/// `number` as an integer, when it is exactly one.
fn exact_integer(number: &Number) -> Option<Value> {
    if number.is_i64() || number.is_u64() {
        return Some(Value::Number(number.clone()));
    }
    let float = number.as_f64()?;
    (float.fract() == 0.0 && float.abs() <= EXACT_LIMIT).then(|| Value::from(float as i64))
}

fn fix_enum_case(value: &mut Value, allowed: &[Value], path: &str, fixes: &mut Fixes<'_>) {
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
        fixes.note(|| {
            format!(
                "{}: changed \"{text}\" to the allowed value \"{only}\"",
                at(path)
            )
        });
        *value = Value::String(only.to_string());
    }
}

fn fix_key_styles(
    map: &mut Map<String, Value>,
    applies: &Applies<'_>,
    path: &str,
    fixes: &mut Fixes<'_>,
) {
    // A map's keys are data, and an undecided union's members cannot be told apart.
    if !matches!(applies.members(), Members::Open | Members::Closed) || applies.undecided() {
        return;
    }
    // Most objects have no undeclared key: the declared names are folded only for one
    // that does.
    let undeclared: Vec<&String> = map.keys().filter(|key| !applies.declares(key)).collect();
    if undeclared.is_empty() {
        return;
    }
    let declared = applies.declared();
    let folded: Vec<String> = declared.iter().map(|name| fold(name)).collect();
    let renames: Vec<(String, String)> = undeclared
        .into_iter()
        .filter_map(|key| {
            let key_folded = fold(key);
            let mut candidates = declared
                .iter()
                .zip(&folded)
                .filter(|(_, f)| **f == key_folded)
                .map(|(name, _)| *name);
            match (candidates.next(), candidates.next()) {
                (Some(only), None) if !map.contains_key(only) => {
                    Some((key.clone(), only.to_string()))
                }
                _ => None,
            }
        })
        .collect();
    for (from, to) in renames {
        // Two keys folding to one member: the first is renamed, the second stays
        // (and is reported as unknown), never overwriting the first.
        if map.contains_key(&to) {
            continue;
        }
        if let Some(member) = map.shift_remove(&from) {
            fixes.note(|| format!("{}: renamed member \"{from}\" to \"{to}\"", at(path)));
            map.insert(to, member);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coerces `value` toward `root`, returning the warnings for what changed.
    fn coerce(value: &mut Value, root: &Value) -> Vec<Warning> {
        let mut warnings = Capped::warnings();
        coerce_into(value, root, &mut warnings);
        warnings.finish()
    }
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

    /// What `text` becomes where `wanted` is the schema, or `None` if it stays as is.
    fn converted(text: &str, wanted: Value) -> Option<Value> {
        let schema = json!({"type": "object", "properties": {"field": wanted}});
        let mut value = json!({"field": text});
        let warnings = coerce(&mut value, &schema);
        if value["field"] == json!(text) {
            assert!(warnings.is_empty(), "{warnings:?}");
            None
        } else {
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert!(warnings[0].message.starts_with("/field: converted"));
            Some(value["field"].clone())
        }
    }

    #[test]
    fn exact_numbers_and_booleans_are_accepted() {
        let integer = || json!({"type": "integer"});
        let number = || json!({"type": "number"});
        let boolean = || json!({"type": "boolean"});
        assert_eq!(converted("42", integer()), Some(json!(42)));
        assert_eq!(converted("-7", integer()), Some(json!(-7)));
        assert_eq!(converted(" 7 ", integer()), Some(json!(7)));
        assert_eq!(converted("3.0", integer()), Some(json!(3)));
        assert_eq!(converted("1e2", integer()), Some(json!(100)));
        assert_eq!(
            converted("18446744073709551615", integer()),
            Some(json!(u64::MAX))
        );
        assert_eq!(converted("3.5", number()), Some(json!(3.5)));
        assert_eq!(converted("-0.25", number()), Some(json!(-0.25)));
        assert_eq!(converted("42", number()), Some(json!(42)));
        assert_eq!(converted("true", boolean()), Some(json!(true)));
        assert_eq!(converted("False", boolean()), Some(json!(false)));
        let optional = json!({"type": ["integer", "null"]});
        assert_eq!(converted("5", optional), Some(json!(5)));
    }

    #[test]
    fn anything_that_needs_a_guess_is_refused() {
        for text in [
            "042", "+5", ".5", "5.", "1,000", "1_000", "1 000", "50%", "N/A", "NaN", "inf", "-inf",
            "0x1F", "1e400", "", "twelve", "$5", "5 apples",
        ] {
            assert_eq!(converted(text, json!({"type": "number"})), None, "{text:?}");
            assert_eq!(
                converted(text, json!({"type": "integer"})),
                None,
                "{text:?}"
            );
        }
        // Not exactly an integer: a fraction, or digits past 2^53 read as a float.
        assert_eq!(converted("3.5", json!({"type": "integer"})), None);
        assert_eq!(
            converted("12345678901234567890123", json!({"type": "integer"})),
            None
        );
        assert_eq!(converted("1e17", json!({"type": "integer"})), None);
        // Not exactly the number written: underflow, or digits a float loses.
        for text in [
            "1e-400",
            "0.1000000000000000000001",
            "123456789012345678901234567890",
            "123456789012345678901234567890.5",
        ] {
            assert_eq!(converted(text, json!({"type": "number"})), None, "{text}");
        }
        for text in ["yes", "no", "1", "0", "on", "off", "y", "TRUE!", "t"] {
            assert_eq!(
                converted(text, json!({"type": "boolean"})),
                None,
                "{text:?}"
            );
        }
        // Strings are never numbers' or booleans' text the other way round.
        assert_eq!(converted("42", json!({"type": "string"})), None);
    }

    #[test]
    fn keys_in_another_style_are_renamed() {
        let mut value = json!({"Answer": "Paris", "Context-Score": 3});
        coerce(&mut value, &schema());
        assert_eq!(value, json!({"answer": "Paris", "context_score": 3}));
    }

    #[test]
    fn camel_case_keys_find_their_snake_case_members_and_maps_keep_theirs() {
        let schema = json!({"type": "object", "properties": {
            "row_id": {"type": "integer"},
            "scores": {"type": "object", "additionalProperties": {"type": "integer"}}
        }});
        let mut value = json!({"rowId": 3, "scores": {"Row_Id": 1}});
        let warnings = coerce(&mut value, &schema);
        assert_eq!(value, json!({"scores": {"Row_Id": 1}, "row_id": 3}));
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].message,
            "the value: renamed member \"rowId\" to \"row_id\""
        );
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
