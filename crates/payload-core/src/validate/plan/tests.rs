use super::{Plan, Verdict};
use serde_json::{Value, json};

fn verdict(schema: Value, value: Value) -> Verdict {
    Plan::compile(&schema).expect("compiles").verdict(&value)
}

#[test]
fn a_tagged_union_is_decided_by_its_tag() {
    let schema = json!({
        "type": "object",
        "properties": {"ops": {"type": "array", "items": {"$ref": "#/$defs/Op"}}},
        "required": ["ops"],
        "$defs": {"Op": {"oneOf": [
            {"type": "object", "properties": {"action": {"type": "string", "const": "add"},
                "data": {"type": "object", "additionalProperties": true}},
             "required": ["action", "data"]},
            {"type": "object", "properties": {"action": {"type": "string", "const": "delete"},
                "row_id": {"type": "integer", "format": "int64", "minimum": 1}},
             "required": ["action", "row_id"]}
        ]}}
    });
    let clean =
        json!({"ops": [{"action": "add", "data": {"a": 1}}, {"action": "delete", "row_id": 3}]});
    assert_eq!(verdict(schema.clone(), clean), Verdict::Clean);
    let unknown_tag = json!({"ops": [{"action": "move", "row_id": 3}]});
    assert_eq!(verdict(schema.clone(), unknown_tag), Verdict::Invalid);
    let below = json!({"ops": [{"action": "delete", "row_id": 0}]});
    assert_eq!(verdict(schema.clone(), below), Verdict::Invalid);
    let float = json!({"ops": [{"action": "delete", "row_id": 3.0}]});
    assert_eq!(verdict(schema.clone(), float), Verdict::Report);
    let undeclared = json!({"ops": [{"action": "delete", "row_id": 3, "why": "x"}]});
    assert_eq!(verdict(schema, undeclared), Verdict::Report);
}

#[test]
fn what_the_plan_does_not_compile_decides_nothing() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "number", "multipleOf": 3}}});
    assert_eq!(verdict(schema.clone(), json!({"n": 4})), Verdict::Unsure);
    assert_eq!(verdict(schema, json!({})), Verdict::Clean);
    let overlapping = json!({"anyOf": [{"type": "string"}, {"type": "string", "minLength": 2}]});
    assert_eq!(verdict(overlapping, json!("a")), Verdict::Unsure);
}

#[test]
fn an_option_is_decided_by_type_and_formats_by_the_validator() {
    let schema = json!({
        "type": "object",
        "properties": {"when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
                       "ratio": {"type": "number", "format": "float"}},
        "additionalProperties": false
    });
    assert_eq!(
        verdict(schema.clone(), json!({"when": null})),
        Verdict::Clean
    );
    assert_eq!(
        verdict(schema.clone(), json!({"when": "2024-03-01"})),
        Verdict::Clean
    );
    assert_eq!(
        verdict(schema.clone(), json!({"when": "March"})),
        Verdict::Invalid
    );
    assert_eq!(
        verdict(schema.clone(), json!({"when": 3})),
        Verdict::Invalid
    );
    assert_eq!(
        verdict(schema.clone(), json!({"ratio": 0.5})),
        Verdict::Clean
    );
    assert_eq!(
        verdict(schema.clone(), json!({"ratio": 0.123456789})),
        Verdict::Report
    );
    assert_eq!(verdict(schema, json!({"other": 1})), Verdict::Invalid);
}

#[test]
fn a_recursive_schema_compiles_once_per_node() {
    let schema = json!({"$ref": "#/$defs/Tree", "$defs": {"Tree": {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}
    }}});
    let plan = Plan::compile(&schema).unwrap();
    assert!(plan.nodes.len() <= 5, "{}", plan.nodes.len());
    let mut tree = json!({});
    for _ in 0..200 {
        tree = json!({"children": [tree]});
    }
    // Deeper than the walks go: the plan does not decide.
    assert_eq!(plan.verdict(&tree), Verdict::Unsure);
    assert_eq!(
        plan.verdict(&json!({"children": [{"children": []}]})),
        Verdict::Clean
    );
}
