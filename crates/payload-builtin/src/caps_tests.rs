//! The size caps are in the schemas (so instructions and grammars carry them) and in
//! the types' own checks, and a proposal over them is refused with an error that says
//! the cap.

use crate::{DataProposal, SchemaProposal};
use payload_core::{LlmPayload, schema::Dialect};
use serde_json::{Value, json};

fn add(name: String) -> Value {
    json!({"action": "add", "column": {"name": name, "type": "text"}})
}

fn errors(kind: &payload_core::PayloadType, value: &Value) -> String {
    kind.validate(value)
        .expect_err("over the cap")
        .iter()
        .map(|e| format!("{} {}", e.path(), e.message()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_schemas_state_the_caps() {
    let schema = SchemaProposal::TYPE
        .schema(Dialect::Draft2020_12)
        .to_string();
    assert!(
        schema.contains(&format!("\"maxItems\":{}", SchemaProposal::MAX_OPERATIONS)),
        "{schema}"
    );
    assert!(
        schema.contains(&format!("\"maxItems\":{}", SchemaProposal::MAX_OPTIONS)),
        "{schema}"
    );
    let schema = DataProposal::TYPE.schema(Dialect::Draft2020_12).to_string();
    assert!(
        schema.contains(&format!("\"maxItems\":{}", DataProposal::MAX_OPERATIONS)),
        "{schema}"
    );
}

#[test]
fn a_proposal_over_the_caps_is_refused_and_told_why() {
    let two_thousand: Vec<Value> = (0..2000).map(|i| add(format!("c{i}"))).collect();
    let create = json!({
        "mode": "create", "table_name": "t", "table_description": "d",
        "operations": two_thousand, "sample_rows": [{"c1": 1}, {"c2": 2}],
    });
    let said = errors(&SchemaProposal::TYPE, &create);
    assert!(said.contains("/operations"), "{said}");
    assert!(said.contains("1000"), "the cap is named: {said}");

    let at_cap = json!({
        "mode": "create", "table_name": "t", "table_description": "d",
        "operations": (0..SchemaProposal::MAX_OPERATIONS).map(|i| add(format!("c{i}"))).collect::<Vec<_>>(),
        "sample_rows": [{"c1": 1}, {"c2": 2}],
    });
    assert_eq!(SchemaProposal::TYPE.validate(&at_cap), Ok(()));

    let wide_row: serde_json::Map<String, Value> =
        (0..100).map(|i| (format!("c{i}"), json!(i))).collect();
    let rows = json!({
        "operations": (0..201).map(|_| json!({"action": "add", "data": wide_row})).collect::<Vec<_>>(),
    });
    let said = errors(&DataProposal::TYPE, &rows);
    assert!(
        said.contains("20100 values") && said.contains("20000"),
        "{said}"
    );
}
