//! Draft-07 and 2020-12, converted both ways, for schemas written by hand: a runtime
//! type may be given in either, is kept and validated as 2020-12, and is written out in
//! the dialect asked for. Only schema positions are rewritten (a property named
//! `definitions` stays a property): the keywords whose values are schemas, maps of
//! schemas or lists of schemas are walked, and nothing else.

use super::{Dialect, UnreadableDialect};
use crate::keywords::{Holds, holds};
use serde_json::{Map, Value};

/// The URI that names JSON Schema 2020-12.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
/// The URI that names JSON Schema draft-07.
pub const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// Which dialect a document declares with `$schema`: draft-07 or 2020-12 by their
/// json-schema.org URIs; 2020-12 when it declares none, or an extension vocabulary of
/// its own (the output-schema app's `https://legion.dev/output-schema/v1` is 2020-12 with
/// `x-format` and `x-parsing`). Another json-schema.org draft is refused: its keywords mean other
/// things, and reading it as 2020-12 would check something else than was written.
pub fn declared(schema: &Value) -> Result<Dialect, UnreadableDialect> {
    match schema.get("$schema") {
        None => Ok(Dialect::Draft2020_12),
        Some(Value::String(uri)) if uri.contains("draft-07") => Ok(Dialect::Draft07),
        Some(Value::String(uri)) if uri.contains("2020-12") => Ok(Dialect::Draft2020_12),
        Some(Value::String(uri)) if uri.contains("json-schema.org") => {
            Err(UnreadableDialect::OtherDraft(uri.clone()))
        }
        Some(Value::String(_)) => Ok(Dialect::Draft2020_12),
        Some(other) => Err(UnreadableDialect::NotAUri(other.clone())),
    }
}

/// The document with `$schema` naming 2020-12 (an extension vocabulary's URI would send
/// the validator looking for a meta-schema it cannot fetch).
pub fn as_2020_12(schema: &Value) -> Value {
    let mut out = schema.clone();
    set_dialect(&mut out, DRAFT_2020_12);
    out
}

/// A draft-07 document as 2020-12.
pub fn to_2020_12(schema: &Value) -> Value {
    let mut out = convert(schema, &|map| {
        if let Some(definitions) = map.remove("definitions") {
            map.insert("$defs".into(), definitions);
        }
        if let Some(Value::Array(items)) = map.get("items").cloned() {
            map.remove("items");
            map.insert("prefixItems".into(), Value::Array(items));
            if let Some(additional) = map.remove("additionalItems") {
                map.insert("items".into(), additional);
            }
        }
        if let Some(Value::Object(dependencies)) = map.remove("dependencies") {
            let (required, schemas): (Map<String, Value>, Map<String, Value>) =
                dependencies.into_iter().partition(|(_, v)| v.is_array());
            if !required.is_empty() {
                map.insert("dependentRequired".into(), Value::Object(required));
            }
            if !schemas.is_empty() {
                map.insert("dependentSchemas".into(), Value::Object(schemas));
            }
        }
        rewrite_ref(map, "#/definitions/", "#/$defs/");
    });
    set_dialect(&mut out, DRAFT_2020_12);
    out
}

/// A 2020-12 document as draft-07.
pub fn to_draft_07(schema: &Value) -> Value {
    let mut out = convert(schema, &|map| {
        if let Some(defs) = map.remove("$defs") {
            map.insert("definitions".into(), defs);
        }
        if let Some(prefix) = map.remove("prefixItems") {
            if let Some(rest) = map.remove("items") {
                map.insert("additionalItems".into(), rest);
            }
            map.insert("items".into(), prefix);
        }
        let mut dependencies = Map::new();
        for keyword in ["dependentRequired", "dependentSchemas"] {
            if let Some(Value::Object(entries)) = map.remove(keyword) {
                dependencies.extend(entries);
            }
        }
        if !dependencies.is_empty() {
            map.insert("dependencies".into(), Value::Object(dependencies));
        }
        rewrite_ref(map, "#/$defs/", "#/definitions/");
    });
    set_dialect(&mut out, DRAFT_07);
    out
}

fn set_dialect(schema: &mut Value, uri: &str) {
    if let Value::Object(map) = schema {
        map.insert("$schema".into(), Value::String(uri.to_string()));
    }
}

fn rewrite_ref(map: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(Value::String(reference)) = map.get_mut("$ref") {
        if let Some(rest) = reference.strip_prefix(from) {
            *reference = format!("{to}{rest}");
        }
    }
}

/// Applies `change` to every schema object of the document, children first.
fn convert(schema: &Value, change: &dyn Fn(&mut Map<String, Value>)) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        // draft-07's `dependencies` maps names to schemas or to lists of names.
        let holds = holds(key).or((key == "dependencies").then_some(Holds::Map));
        let converted = match (holds, value) {
            (Some(Holds::One), one) | (Some(Holds::OneOrList), one @ Value::Object(_)) => {
                convert(one, change)
            }
            (Some(Holds::List | Holds::OneOrList), Value::Array(list)) => {
                Value::Array(list.iter().map(|s| convert(s, change)).collect())
            }
            (Some(Holds::Map), Value::Object(entries)) => Value::Object(
                entries
                    .iter()
                    .map(|(name, s)| (name.clone(), convert(s, change)))
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    change(&mut out);
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn draft_07_keywords_become_2020_12_and_back_in_schema_positions_only() {
        let draft07 = json!({
            "$schema": DRAFT_07,
            "type": "object",
            "properties": {
                "definitions": {"type": "string"},
                "pair": {"type": "array", "items": [{"type": "string"}, {"$ref": "#/definitions/n"}], "additionalItems": false},
                "list": {"type": "array", "items": {"$ref": "#/definitions/n"}}
            },
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
            "definitions": {"n": {"type": "number"}}
        });
        let modern = to_2020_12(&draft07);
        assert_eq!(modern["$schema"], DRAFT_2020_12);
        assert_eq!(
            modern["properties"]["definitions"],
            json!({"type": "string"}),
            "a property, not a keyword"
        );
        assert_eq!(
            modern["properties"]["pair"]["prefixItems"][1]["$ref"],
            "#/$defs/n"
        );
        assert_eq!(modern["properties"]["pair"]["items"], false);
        assert_eq!(modern["properties"]["list"]["items"]["$ref"], "#/$defs/n");
        assert_eq!(modern["dependentRequired"], json!({"a": ["b"]}));
        assert_eq!(
            modern["dependentSchemas"],
            json!({"c": {"required": ["d"]}})
        );
        assert_eq!(modern["$defs"], json!({"n": {"type": "number"}}));
        assert!(jsonschema::meta::is_valid(&modern));
        assert_eq!(to_draft_07(&modern), draft07, "and back");
    }

    #[test]
    fn the_declared_dialect_is_read_and_others_are_refused() {
        assert_eq!(declared(&json!({})), Ok(Dialect::Draft2020_12));
        assert_eq!(
            declared(&json!({"$schema": DRAFT_07})),
            Ok(Dialect::Draft07)
        );
        assert!(declared(&json!({"$schema": "http://json-schema.org/draft-04/schema#"})).is_err());
        assert_eq!(
            declared(&json!({"$schema": "https://legion.dev/output-schema/v1"})),
            Ok(Dialect::Draft2020_12)
        );
    }
}
