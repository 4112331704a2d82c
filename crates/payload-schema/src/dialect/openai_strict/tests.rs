//! The rewrites and refusals of [`super::rewrite`], one by one, on hand-written schemas.

use super::rules;
use super::{StrictRefusalKind as Kind, rewrite};
use serde_json::{Value, json};

/// The strict schema of `schema`, which must have one (and pass the rules).
fn strict(schema: Value) -> Value {
    let result = rewrite(&schema);
    assert!(result.refusals.is_empty(), "{:?}", result.refusals);
    assert!(rules::check(&result.schema).is_empty());
    result.schema
}

/// The first refusal of `schema`: its kind and path.
fn refused(schema: Value) -> (Kind, String, String) {
    let refusal = rewrite(&schema).into_result().expect_err("refused");
    (refusal.kind, refusal.path, refusal.reason)
}

/// The kind and path of the first refusal of `schema`.
fn kind_and_path(schema: Value) -> (Kind, String) {
    let (kind, path, _) = refused(schema);
    (kind, path)
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

#[test]
fn objects_are_closed_and_optional_members_accept_null() {
    let schema = object(
        json!({
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}, "default": []},
            "note": {"type": ["string", "null"]},
            "kind": {"type": "string", "enum": ["a", "b"], "description": "The kind."}
        }),
        &["name"],
    );
    assert_eq!(
        strict(schema),
        json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
            "note": {"type": ["string", "null"]},
            "kind": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}],
                     "description": "The kind."}
        }, "required": ["name", "tags", "note", "kind"], "additionalProperties": false})
    );
}

#[test]
fn an_optional_union_gains_a_null_branch() {
    let schema = object(
        json!({"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}),
        &[],
    );
    assert_eq!(
        strict(schema)["properties"]["v"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
    );
}

#[test]
fn annotations_and_extensions_are_dropped() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "title": "T", "description": "D",
        "properties": {"a": {"type": "number", "format": "double", "examples": [1.5]}},
        "required": ["a"],
        "x-format": {"xml": {"root-element": "t"}},
        // A member named like an extension is a member, not a keyword.
        "default": {"a": 1.0}
    });
    let mut schema = schema;
    schema["properties"]["x-note"] = json!({"type": "string"});
    schema["required"] = json!(["a", "x-note"]);
    assert_eq!(
        strict(schema),
        json!({"type": "object", "title": "T", "description": "D",
               "properties": {"a": {"type": "number"}, "x-note": {"type": "string"}},
               "required": ["a", "x-note"], "additionalProperties": false})
    );
}

#[test]
fn integer_formats_become_bounds() {
    let schema = object(
        json!({"n": {"type": "integer", "format": "uint64", "minimum": 1},
               "m": {"type": ["integer", "null"], "format": "int8"}}),
        &["n"],
    );
    let out = strict(schema);
    assert_eq!(
        out["properties"]["n"],
        json!({"type": "integer", "minimum": 1, "maximum": u64::MAX})
    );
    assert_eq!(
        out["properties"]["m"],
        json!({"type": ["integer", "null"], "minimum": -128, "maximum": 127})
    );
    let wide = object(
        json!({"n": {"type": "integer", "format": "int128"}}),
        &["n"],
    );
    assert_eq!(refused(wide).0, Kind::UnsupportedFormat);
}

#[test]
fn string_formats_outside_the_list_are_refused() {
    let kept = object(json!({"d": {"type": "string", "format": "date"}}), &["d"]);
    assert_eq!(strict(kept)["properties"]["d"]["format"], "date");
    let uri = object(json!({"u": {"type": "string", "format": "uri"}}), &["u"]);
    let (kind, path, reason) = refused(uri);
    assert_eq!(
        (kind, path.as_str()),
        (Kind::UnsupportedFormat, "/properties/u/format")
    );
    assert!(reason.contains("`uri`"), "{reason}");
}

#[test]
fn an_exclusive_one_of_becomes_any_of() {
    let schema = json!({
        "type": "object",
        "properties": {"op": {"$ref": "#/$defs/Op"}},
        "required": ["op"],
        "$defs": {"Op": {"oneOf": [
            {"type": "object", "properties": {"action": {"type": "string", "const": "add"},
                                              "row": {"type": "integer"}},
             "required": ["action", "row"]},
            {"type": "object", "properties": {"action": {"type": "string", "const": "delete"}},
             "required": ["action"]}
        ], "description": "One change."}}
    });
    let out = strict(schema);
    assert_eq!(out["properties"]["op"], json!({"$ref": "#/$defs/Op"}));
    let op = &out["$defs"]["Op"];
    assert!(op.get("oneOf").is_none());
    assert_eq!(op["anyOf"].as_array().unwrap().len(), 2);
    assert_eq!(op["anyOf"][1]["additionalProperties"], false);
}

#[test]
fn an_overlapping_one_of_is_refused() {
    let schema = object(
        json!({"v": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}}),
        &["v"],
    );
    assert_eq!(
        kind_and_path(schema),
        (Kind::OverlappingUnion, "/properties/v/oneOf".to_string())
    );
}

#[test]
fn a_ref_with_a_description_is_inlined_with_it() {
    let schema = json!({
        "type": "object",
        "properties": {"category": {"$ref": "#/$defs/Category", "description": "The category."}},
        "required": ["category"],
        "$defs": {"Category": {"type": "string", "enum": ["a", "b"], "description": "Any category."}}
    });
    assert_eq!(
        strict(schema),
        json!({"type": "object",
               "properties": {"category": {"type": "string", "enum": ["a", "b"],
                                           "description": "The category."}},
               "required": ["category"], "additionalProperties": false}),
        "the definition no longer used is not kept"
    );
}

#[test]
fn a_recursive_ref_keeps_its_ref_and_loses_only_annotations() {
    let schema = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node", "description": "The tree."}},
        "required": ["root"],
        "$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        }, "required": ["children"]}}
    });
    let out = strict(schema);
    assert_eq!(out["properties"]["root"], json!({"$ref": "#/$defs/Node"}));
    assert_eq!(out["$defs"]["Node"]["additionalProperties"], false);

    let constrained = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node", "maxItems": 3}},
        "required": ["root"],
        "$defs": {"Node": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
    });
    assert_eq!(refused(constrained).0, Kind::RefWithSiblings);
}

#[test]
fn a_ref_whose_siblings_contradict_the_definition_is_refused() {
    let schema = json!({
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N", "maximum": 3}},
        "required": ["n"],
        "$defs": {"N": {"type": "integer", "maximum": 5}}
    });
    assert_eq!(refused(schema).0, Kind::RefWithSiblings);
    let merged = json!({
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N", "minimum": 3}},
        "required": ["n"],
        "$defs": {"N": {"type": "integer", "maximum": 5}}
    });
    assert_eq!(
        strict(merged)["properties"]["n"],
        json!({"type": "integer", "maximum": 5, "minimum": 3})
    );
    let elsewhere = object(json!({"n": {"$ref": "other.json#/N"}}), &["n"]);
    assert_eq!(refused(elsewhere).0, Kind::UnresolvableRef);
}

#[test]
fn keywords_that_would_widen_are_refused() {
    for (keyword, value) in [
        ("minLength", json!(1)),
        ("maxLength", json!(9)),
        ("uniqueItems", json!(true)),
        ("not", json!({"type": "null"})),
        ("allOf", json!([{"type": "string"}])),
    ] {
        let mut member = json!({"type": "string"});
        member[keyword] = value;
        let (kind, path, reason) = refused(object(json!({"v": member}), &["v"]));
        assert_eq!(kind, Kind::UnsupportedKeyword, "{keyword}");
        assert_eq!(path, format!("/properties/v/{keyword}"));
        assert!(reason.contains(keyword), "{reason}");
    }
    // Object keywords without members to go with them.
    let stray = object(json!({"v": {"required": ["a"]}}), &["v"]);
    assert_eq!(
        kind_and_path(stray),
        (
            Kind::UnsupportedKeyword,
            "/properties/v/required".to_string()
        )
    );
    // The no-op forms are dropped instead.
    let noop = object(
        json!({"v": {"type": "string", "minLength": 0},
               "w": {"type": "array", "items": {"type": "string"}, "uniqueItems": false}}),
        &["v", "w"],
    );
    assert_eq!(strict(noop)["properties"]["v"], json!({"type": "string"}));
}

#[test]
fn maps_and_any_values_are_refused() {
    let map = object(
        json!({"meta": {"type": "object", "additionalProperties": {"type": "string"}}}),
        &["meta"],
    );
    let (kind, path, reason) = refused(map);
    assert_eq!(
        (kind, path.as_str()),
        (Kind::FreeFormMap, "/properties/meta")
    );
    assert_eq!(reason, "a free-form map cannot be strict");
    let flattened = json!({"type": "object", "properties": {"a": {"type": "string"}},
                           "required": ["a"], "additionalProperties": true});
    assert_eq!(refused(flattened).0, Kind::FreeFormMap);
    let any = object(
        json!({"v": {"description": "Anything.", "default": null}}),
        &["v"],
    );
    assert_eq!(
        kind_and_path(any),
        (Kind::AnyValue, "/properties/v".to_string())
    );
    let empty = json!({"type": "object", "additionalProperties": false});
    assert_eq!(
        strict(empty),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn a_top_level_that_is_not_an_object_is_refused() {
    let array = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(kind_and_path(array), (Kind::NotAnObjectRoot, String::new()));
    let variants = json!({"oneOf": [{"const": "a"}, {"const": "b"}]});
    let (kind, _, reason) = refused(variants);
    assert_eq!(kind, Kind::NotAnObjectRoot);
    assert!(reason.contains("union of variants"), "{reason}");
}

#[test]
fn a_flattened_enum_is_refused_at_its_own_node() {
    let schema = json!({
        "type": "object",
        "properties": {"note": {"type": "string"}},
        "oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
        ]
    });
    assert_eq!(
        kind_and_path(schema),
        (Kind::UnionBesideMembers, String::new())
    );
}

#[test]
fn a_type_beside_a_union_is_dropped_when_the_branches_say_it() {
    let schema = object(
        json!({"h": {"type": "string", "oneOf": [{"type": "string", "const": "a"},
                                                 {"type": "string", "const": "b"}]}}),
        &["h"],
    );
    assert_eq!(
        strict(schema)["properties"]["h"],
        json!({"anyOf": [{"type": "string", "const": "a"}, {"type": "string", "const": "b"}]})
    );
}

#[test]
fn limits_are_checked() {
    let mut inner = json!({"type": "string"});
    for _ in 0..11 {
        inner = object(json!({"a": inner}), &["a"]);
    }
    let (kind, _, reason) = refused(inner);
    assert_eq!(kind, Kind::Limit);
    assert!(reason.contains("nest"), "{reason}");

    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    let many = object(json!({"e": {"type": "string", "enum": values}}), &["e"]);
    assert_eq!(refused(many).0, Kind::Limit);
}

#[test]
fn refusals_keep_the_best_effort_schema_whole() {
    let schema = object(
        json!({"name": {"type": "string", "minLength": 1},
               "n": {"type": "integer", "format": "uint8"}}),
        &["name"],
    );
    let result = rewrite(&schema);
    assert_eq!(result.refusals.len(), 1);
    assert_eq!(result.schema["properties"]["name"]["minLength"], 1);
    assert_eq!(result.schema["properties"]["n"]["maximum"], 255);
    assert_eq!(result.schema["additionalProperties"], false);
}
