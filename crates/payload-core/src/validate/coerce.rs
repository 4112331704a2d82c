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

//! The schema is read from its compiled form (`crate::validate::plan::coercion`), which
//! holds, at each place of a value, what the walks after validation read from the
//! schema (`crate::schema::applies`); the walk that read it from the schema itself at
//! every node is kept as the reference the tests hold the compiled one to
//! ([`reference`]). The rules themselves are here, one each, for both.

use crate::caps::Capped;
use crate::validate::plan::Coercion;
use crate::validate::plan::Types;
use crate::warning::{Warning, WarningKind};
use serde_json::{Map, Number, Value};

#[cfg(any(test, feature = "__internals"))]
pub(crate) mod reference;

/// The largest magnitude up to which every integer is exactly a float (2^53).
const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Coerces `value` toward the schema `coercion` was compiled from, pushing a warning for
/// each change. Every change is pushed (or counted, once `warnings` is full): a caller
/// can tell from [`Capped::is_empty`] whether anything changed.
pub(crate) fn coerce_into(value: &mut Value, coercion: &Coercion, warnings: &mut Capped<Warning>) {
    coercion.coerce(value, &mut Fixes { warnings });
}

/// The warnings of one coercion: built only while the report has room.
pub(crate) struct Fixes<'w> {
    pub(crate) warnings: &'w mut Capped<Warning>,
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

/// Where a value sits, written as its JSON pointer only when a warning names it.
pub(crate) trait Place {
    /// Appends the pointer (empty for the value itself).
    fn write_to(&self, out: &mut String);
}

impl Place for str {
    fn write_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

/// A warning's text: the place (`the value` for the whole value), then what was done,
/// written in pieces into one buffer of the right size.
fn located(place: &(impl Place + ?Sized), pieces: &[&str]) -> String {
    const PLACE: usize = 32;
    let mut message = String::with_capacity(PLACE + pieces.iter().map(|p| p.len()).sum::<usize>());
    place.write_to(&mut message);
    if message.is_empty() {
        message.push_str("the value");
    }
    message.push_str(": ");
    for piece in pieces {
        message.push_str(piece);
    }
    message
}

/// Wraps a bare array as the only member, `name`, of an object.
pub(crate) fn wrap_bare_array(value: &mut Value, name: &str, fixes: &mut Fixes<'_>) {
    let items = std::mem::take(value);
    let mut map = Map::new();
    map.insert(name.to_string(), items);
    *value = Value::Object(map);
    fixes.note(|| format!("wrapped the bare array as the object's only member \"{name}\""));
}

/// Converts a scalar to a wanted type (`types`, which `value` does not have), or wraps
/// a single value in an array; returns whether it wrapped one (a union may be decided
/// differently for an array).
pub(crate) fn fix_type(
    value: &mut Value,
    types: Types,
    place: &(impl Place + ?Sized),
    fixes: &mut Fixes<'_>,
) -> bool {
    if let Some(fixed) = convert_scalar(value, types) {
        fixes.note(|| {
            let (from, to) = (value.to_string(), fixed.to_string());
            located(place, &["converted ", &from, " to ", &to])
        });
        *value = fixed;
        false
    } else if types.0 & Types::ARRAY != 0 && !value.is_array() && !value.is_null() {
        let single = std::mem::take(value);
        fixes.note(|| located(place, &["wrapped a single value in an array"]));
        *value = Value::Array(vec![single]);
        true
    } else {
        false
    }
}

/// Whether `value` has one of `types`; a name that is no JSON type allows every value.
pub(crate) fn matches_type(value: &Value, types: Types) -> bool {
    let kind = match value {
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::Number(n) if n.is_f64() => Types::NUMBER,
        Value::Number(_) => Types::INTEGER | Types::NUMBER,
        Value::String(_) => Types::STRING,
        Value::Array(_) => Types::ARRAY,
        Value::Object(_) => Types::OBJECT,
    };
    types.0 & (kind | Types::OTHER) != 0
}

/// A string that spells exactly a number, integer or boolean of a wanted type (the
/// rules are in the module docs).
fn convert_scalar(value: &Value, types: Types) -> Option<Value> {
    let text = value.as_str()?.trim();
    let (integer, number) = (types.0 & Types::INTEGER != 0, types.0 & Types::NUMBER != 0);
    if integer || number {
        if let Some(found) = exact_number(text) {
            if integer {
                if let Some(exact) = exact_integer(&found) {
                    return Some(exact);
                }
            }
            if number {
                return Some(Value::Number(found));
            }
        }
    }
    if types.0 & Types::BOOLEAN != 0 {
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
    crate::json::precision::read_number(text)
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

/// A string in another case or separator style than the one allowed value it folds
/// to, changed to that value.
pub(crate) fn fix_enum_case(
    value: &mut Value,
    allowed: &[Value],
    place: &(impl Place + ?Sized),
    fixes: &mut Fixes<'_>,
) {
    let Some(text) = value.as_str() else { return };
    if allowed.iter().any(|a| a.as_str() == Some(text)) {
        return;
    }
    let folded = crate::validate::schema_errors::fold(text);
    let mut matches = allowed
        .iter()
        .filter_map(Value::as_str)
        .filter(|a| crate::validate::schema_errors::fold(a) == folded);
    if let (Some(only), None) = (matches.next(), matches.next()) {
        fixes.note(|| {
            located(
                place,
                &["changed \"", text, "\" to the allowed value \"", only, "\""],
            )
        });
        *value = Value::String(only.to_string());
    }
}

/// Renames members (from, to), in order. Two keys folding to one member: the first is
/// renamed, the second stays (and is reported as unknown), never overwriting the first.
/// A renamed member moves to the end, in the order of `renames`.
///
/// Each `to` is a declared member the map does not hold, and each `from` a key it holds
/// that no member declares: so the renames that apply are the first for each `to`, and
/// the map is built again once, every key hashed once, instead of a removal (which
/// shifts the members after it) and an insertion per rename.
pub(crate) fn rename_members(
    map: &mut Map<String, Value>,
    mut renames: Vec<(String, &str)>,
    place: &(impl Place + ?Sized),
    fixes: &mut Fixes<'_>,
) {
    if renames.is_empty() {
        return;
    }
    let mut seen = 0;
    for at in 0..renames.len() {
        if renames[..seen].iter().all(|(_, to)| *to != renames[at].1) {
            renames.swap(seen, at);
            seen += 1;
        }
    }
    renames.truncate(seen);
    let old = std::mem::replace(map, Map::with_capacity(0));
    let mut moved: Vec<Option<Value>> = (0..renames.len()).map(|_| None).collect();
    let mut kept = Map::with_capacity(old.len());
    for (key, member) in old {
        match renames.iter().position(|(from, _)| *from == key) {
            Some(at) => moved[at] = Some(member),
            None => {
                kept.insert(key, member);
            }
        }
    }
    for ((from, to), member) in renames.into_iter().zip(moved) {
        if let Some(member) = member {
            fixes.note(|| located(place, &["renamed member \"", &from, "\" to \"", to, "\""]));
            // The old name's buffer holds the new one (they differ in case and
            // separators only, so mostly in no length).
            let mut key = from;
            key.clear();
            key.push_str(to);
            kept.insert(key, member);
        }
    }
    *map = kept;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coerces `value` toward `root`, returning the warnings for what changed; the
    /// walk that reads the schema at every node does the same.
    fn coerce(value: &mut Value, root: &Value) -> Vec<Warning> {
        let mut by_reference = value.clone();
        let mut expected = Capped::warnings();
        reference::coerce_into(&mut by_reference, root, &mut expected);
        let mut warnings = Capped::warnings();
        coerce_into(value, &Coercion::compile(root), &mut warnings);
        let warnings = warnings.finish();
        assert_eq!(*value, by_reference);
        assert_eq!(warnings, expected.finish());
        warnings
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
    fn renamed_members_move_to_the_end_in_order_and_the_first_of_two_wins() {
        let mut value = json!({"Mode": "create", "answer": "a", "CONFIDENCE": 0.5,
                               "mode": "x", "Tags": ["t"]});
        let schema = schema();
        let warnings = coerce(&mut value, &schema);
        assert_eq!(
            value.to_string(),
            r#"{"Mode":"create","answer":"a","mode":"x","confidence":0.5,"tags":["t"]}"#
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");

        let mut twice = json!({"Answer": "a", "x": 1, "ANSWER": "b"});
        let warnings = coerce(&mut twice, &schema);
        assert_eq!(twice.to_string(), r#"{"x":1,"ANSWER":"b","answer":"a"}"#);
        assert_eq!(
            warnings[0].message,
            "the value: renamed member \"Answer\" to \"answer\""
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
