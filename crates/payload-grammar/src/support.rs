//! Which JSON Schema features each target can enforce, and the list of those a schema
//! uses that it cannot: the grammar is never wider without saying so.

use crate::{Target, Unsupported};
use payload_schema::dialect::openai_strict::STRING_FORMATS;
use payload_schema::keywords::{self, Property, never_refuses};
use payload_schema::limits::MAX_SCHEMA_DEPTH;
use payload_schema::pointer;
use payload_schema::walk::subschemas;
use serde_json::Value;

/// The formats llguidance enforces: OpenAI's strict list and `uri`.
fn llguidance_format(format: &str) -> bool {
    STRING_FORMATS.contains(&format) || format == "uri"
}

/// What `target` supports of `keyword` (with its value), or why not and what it does.
fn verdict(target: Target, keyword: &str, value: &Value, node: &Value) -> Option<(String, String)> {
    let all = |feature: &str, effect: &str| Some((feature.to_string(), effect.to_string()));
    match keyword {
        k if k.starts_with("x-") => None,
        k if never_refuses(k) => None,
        "type" | "properties" | "required" | "items" | "enum" | "const" | "anyOf" | "$ref" => None,
        "additionalProperties" if target != Target::Gbnf || value.is_boolean() => None,
        "additionalProperties" => all(
            "free-form map (additionalProperties with a schema)",
            "members beyond the declared ones are not allowed",
        ),
        "oneOf" if target == Target::Gbnf => all(
            "oneOf (exactly one branch)",
            "read as anyOf: a value matching two branches is allowed; the parser still refuses it",
        ),
        "oneOf" | "allOf" | "prefixItems" | "minItems" | "maxItems" => None,
        "minimum" | "maximum"
            if target == Target::Gbnf && {
                let (min, max) = integer_bounds(node.as_object().unwrap_or(&Default::default()));
                is_integer(node) && small_range(min, max).is_some()
            } =>
        {
            None
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"
            if target == Target::Gbnf =>
        {
            all(
                keyword,
                "any number is allowed; the parser still refuses one out of range",
            )
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => None,
        "minLength" | "maxLength" => None,
        "pattern" if target == Target::Gbnf => all(
            "pattern",
            "any string is allowed; the parser still refuses one that does not match",
        ),
        "pattern" => None,
        // A number's format (int32, uint64, double) restates its bounds, which are
        // enforced as bounds.
        "format" if node.get("type").and_then(Value::as_str) != Some("string") => None,
        "format" => match value.as_str() {
            Some(f) if target == Target::Lark && llguidance_format(f) => None,
            Some(f) if target == Target::StructuralTag && llguidance_format(f) => None,
            Some(f) => all(
                &format!("format \"{f}\""),
                "any string is allowed; the parser still checks the format",
            ),
            None => None,
        },
        "patternProperties" if target == Target::Lark => None,
        // A map's size and its keys' length, which the GBNF converter writes as
        // bounded repetitions (gbnf.rs).
        "minProperties" | "maxProperties" if target == Target::Gbnf && is_map(node) => None,
        "propertyNames" if target == Target::Gbnf && is_length_only(value) => None,
        "uniqueItems" if value == &Value::Bool(false) => None,
        "minProperties" | "maxProperties" if target == Target::Lark && all_required(node) => None,
        _ => all(
            keyword,
            "not enforced while writing; the parser still refuses a value that breaks it",
        ),
    }
}

/// The most values an integer range may hold for GBNF to list them one by one.
pub(crate) const SMALL_RANGE: i64 = 256;

/// An integer schema's inclusive bounds (exclusive ones moved in by one); a bound
/// beyond `i64` says nothing GBNF can use and is left out (and listed).
pub(crate) fn integer_bounds(map: &serde_json::Map<String, Value>) -> (Option<i64>, Option<i64>) {
    // A bound as an integer, rounded inwards (`up` for a lower bound).
    let read = |key: &str, up: bool| -> Option<i64> {
        let value = map.get(key)?;
        if let Some(whole) = value.as_i64() {
            return Some(whole);
        }
        let real = value.as_f64()?;
        let rounded = if up { real.ceil() } else { real.floor() };
        (rounded.abs() < 9.0e18).then_some(rounded as i64)
    };
    let tighter = |a: Option<i64>, b: Option<i64>, pick: fn(i64, i64) -> i64| match (a, b) {
        (Some(a), Some(b)) => Some(pick(a, b)),
        (a, b) => a.or(b),
    };
    let min = tighter(
        read("minimum", true),
        read("exclusiveMinimum", false).and_then(|v| v.checked_add(1)),
        i64::max,
    );
    let max = tighter(
        read("maximum", false),
        read("exclusiveMaximum", true).and_then(|v| v.checked_sub(1)),
        i64::min,
    );
    (min, max)
}

/// The values of a small inclusive range, when both bounds are given.
pub(crate) fn small_range(
    min: Option<i64>,
    max: Option<i64>,
) -> Option<std::ops::RangeInclusive<i64>> {
    let (min, max) = (min?, max?);
    (min <= max && max - min < SMALL_RANGE).then_some(min..=max)
}

/// Whether `node` is an object without declared members: a map.
fn is_map(node: &Value) -> bool {
    node.get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| p.is_empty())
}

/// Whether a `propertyNames` schema says no more than a string's length.
fn is_length_only(value: &Value) -> bool {
    value.as_object().is_some_and(|names| {
        names.iter().all(|(k, v)| {
            matches!(k.as_str(), "minLength" | "maxLength") || (k == "type" && v == "string")
        })
    })
}

fn is_integer(node: &Value) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.len() == 1 && types[0] == "integer",
        _ => false,
    }
}

/// Whether `target` enforces `keyword` of `node` (annotations count as enforced: they
/// constrain nothing). A grammar embeds only these, so the engine never refuses the
/// grammar over a keyword it does not know; the others are in the unsupported list.
pub(crate) fn enforced(target: Target, keyword: &str, value: &Value, node: &Value) -> bool {
    verdict(target, keyword, value, node).is_none()
}

/// Whether every declared property of `node` is required.
fn all_required(node: &Value) -> bool {
    let declared = node
        .get("properties")
        .and_then(Value::as_object)
        .map_or(0, |p| p.len());
    let required = node
        .get("required")
        .and_then(Value::as_array)
        .map_or(0, |r| r.len());
    declared == required
}

/// Every feature of `schema` that `target` cannot enforce, located under `name`.
pub(crate) fn scan(target: Target, name: &str, schema: &Value) -> Vec<Unsupported> {
    let mut out = Vec::new();
    walk(target, name, schema, &mut String::new(), &mut out, 0);
    if has_free_form(schema, 0) {
        out.push(Unsupported {
            location: format!("{name}#"),
            feature: "values nested deeper than 128 levels where the schema takes any value".into(),
            effect:
                "allowed (no grammar counts nesting); the parser refuses them (docs/spec.md §8.3)"
                    .into(),
        });
    }
    if target != Target::StructuralTag && has_object_with_many_members(schema) {
        out.push(Unsupported {
            location: format!("{name}#"),
            feature: "members in any order".into(),
            effect: "members are written in the schema's order (narrower: a valid order)".into(),
        });
    }
    out
}

/// Records what `target` cannot enforce in `node` and, through the one table of which
/// keywords hold schemas, in every schema under it; `at` is `node`'s JSON Pointer.
fn walk(
    target: Target,
    name: &str,
    node: &Value,
    at: &mut String,
    out: &mut Vec<Unsupported>,
    depth: usize,
) {
    let Value::Object(map) = node else { return };
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    for (key, value) in map {
        if let Some((feature, effect)) = verdict(target, key, value, node) {
            out.push(Unsupported {
                location: format!("{name}#{}", pointer::join(at, key)),
                feature,
                effect,
            });
        }
    }
    let len = at.len();
    for sub in subschemas(node) {
        sub.push_pointer(at);
        walk(target, name, sub.schema, at, out, depth + 1);
        at.truncate(len);
    }
}

/// Whether some part of the schema takes any JSON value (a map's values, an untyped
/// member): there a value may nest as deep as the text goes.
fn has_free_form(node: &Value, depth: usize) -> bool {
    match node {
        _ if depth > MAX_SCHEMA_DEPTH => false,
        Value::Bool(any) => *any,
        Value::Object(map) => {
            let untyped = !keywords::names_any(map, Property::Shapes);
            let open_map = map.get("additionalProperties") == Some(&Value::Bool(true))
                || (map.get("type") == Some(&Value::String("object".into()))
                    && !map.contains_key("properties")
                    && !map.contains_key("additionalProperties"));
            untyped
                || open_map
                || map.iter().any(|(key, child)| match (key.as_str(), child) {
                    ("properties" | "$defs" | "definitions", Value::Object(members)) => {
                        members.values().any(|m| has_free_form(m, depth + 1))
                    }
                    ("enum" | "const" | "required" | "examples" | "default", _) => false,
                    (_, child) => has_free_form_inside(child, depth + 1),
                })
        }
        _ => false,
    }
}

/// [`has_free_form`] of a keyword's value: a schema, or a list of them.
fn has_free_form_inside(value: &Value, depth: usize) -> bool {
    match value {
        Value::Array(list) => list
            .iter()
            .any(|v| matches!(v, Value::Object(_)) && has_free_form(v, depth)),
        Value::Object(_) => has_free_form(value, depth),
        _ => false,
    }
}

fn has_object_with_many_members(node: &Value) -> bool {
    match node {
        Value::Object(map) => {
            map.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.len() > 1)
                || map.values().any(has_object_with_many_members)
        }
        Value::Array(list) => list.iter().any(has_object_with_many_members),
        _ => false,
    }
}

/// The type's own rules (beyond its schema): no target enforces them.
pub(crate) fn rules(name: &str, rules: &[String]) -> Vec<Unsupported> {
    rules
        .iter()
        .map(|rule| Unsupported {
            location: format!("{name}#"),
            feature: format!("the type's own rule: {rule}"),
            effect: "not enforced while writing; the parser checks it and rejects a value that breaks it".into(),
        })
        .collect()
}
