//! table.that's own examples parse to what the document says, and its availability
//! matrix and mode rules hold.

use payload_builtin::{DataProposal, SchemaMode, SchemaProposal};
use payload_core::{ErrorKind, WarningKind};
use payload_tests::parse;

const SCHEMA_FORMAT: &str = r#"SCHEMA_PROPOSAL: {
  "mode": "create",
  "reasoning": "Brief explanation",
  "table_name": "My Table",
  "table_description": "What this table tracks",
  "operations": [
    {"action": "add", "column": {"name": "Name", "type": "text", "required": true}},
    {"action": "add", "column": {"name": "Status", "type": "select", "options": ["Active", "Inactive"]}}
  ],
  "sample_rows": [
    {"Name": "Acme Corp", "Status": "Active"},
    {"Name": "Globex", "Status": "Inactive"}
  ]
}"#;

const DATA_FORMAT: &str = r#"DATA_PROPOSAL: {
  "reasoning": "Adding sample job applications",
  "operations": [
    {"action": "add", "data": {"Company": "Acme Corp", "Position": "Engineer", "Status": "Applied"}},
    {"action": "update", "row_id": 5, "changes": {"Status": "Interview"}},
    {"action": "delete", "row_id": 12}
  ]
}"#;

const VALUES_FORMAT: &str = r#"SUGGESTED_VALUES:
[
  {"label": "Display Text", "value": "text to send as next message"},
  {"label": "Another Option", "value": "another thing to send"}
]"#;

const ACTIONS_FORMAT: &str = r#"SUGGESTED_ACTIONS:
[
  {"label": "Button Text", "action": "action_identifier", "handler": "client"}
]"#;

#[test]
fn the_schema_proposal_format_example_is_a_valid_create() {
    let parsed = parse("tables_list", SCHEMA_FORMAT);
    let proposal: &SchemaProposal = parsed.payload().unwrap();
    assert_eq!(proposal.mode, SchemaMode::Create);
    assert_eq!(proposal.table_name.as_deref(), Some("My Table"));
    assert_eq!(parsed.message, "");
    assert_eq!(
        serde_json::to_value(&parsed.custom_payload).unwrap()["type"],
        "schema_proposal"
    );
}

#[test]
fn the_data_proposal_format_example_is_valid_on_table_view_only() {
    let parsed = parse("table_view", DATA_FORMAT);
    let proposal: &DataProposal = parsed.payload().unwrap();
    assert_eq!(proposal.operations.len(), 3);
    for page in ["tables_list", "table_edit"] {
        let parsed = parse(page, DATA_FORMAT);
        assert!(parsed.custom_payload.is_none());
        assert_eq!(parsed.rejected[0].errors[0].kind(), ErrorKind::NotOnPage);
    }
}

#[test]
fn the_suggestion_format_examples() {
    let parsed = parse("tables_list", VALUES_FORMAT);
    let values = parsed.suggested_values.unwrap();
    assert_eq!(values[0].label, "Display Text");
    assert_eq!(values[1].value, "another thing to send");
    // `action_identifier` is a placeholder, not a registered action: it is dropped.
    let parsed = parse("tables_list", ACTIONS_FORMAT);
    assert!(parsed.suggested_actions.is_none());
    assert_eq!(parsed.warnings[0].kind, WarningKind::UnknownAction);
}

#[test]
fn the_four_marker_spellings_match() {
    let body = &SCHEMA_FORMAT["SCHEMA_PROPOSAL:".len()..];
    for marker in [
        "SCHEMA_PROPOSAL:",
        "**SCHEMA_PROPOSAL**:",
        "*SCHEMA_PROPOSAL*:",
        "**SCHEMA_PROPOSAL:**",
    ] {
        let parsed = parse("table_edit", &format!("{marker}{body}"));
        assert!(parsed.custom_payload.is_some(), "{marker}");
    }
}

#[test]
fn the_availability_matrix() {
    let rows: [(&str, &str, [bool; 3]); 4] = [
        ("SUGGESTED_VALUES", VALUES_FORMAT, [true, true, true]),
        (
            "SUGGESTED_ACTIONS",
            "SUGGESTED_ACTIONS: [{\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"client\"}]",
            [true, true, true],
        ),
        ("SCHEMA_PROPOSAL", SCHEMA_FORMAT, [true, true, true]),
        ("DATA_PROPOSAL", DATA_FORMAT, [false, false, true]),
    ];
    for (element, text, available) in rows {
        for (page, expected) in ["tables_list", "table_edit", "table_view"]
            .iter()
            .zip(available)
        {
            let parsed = parse(page, text);
            let found = parsed.suggested_values.is_some()
                || parsed.suggested_actions.is_some()
                || parsed.custom_payload.is_some();
            assert_eq!(found, expected, "{element} on {page}");
        }
    }
}

#[test]
fn create_mode_allows_only_add_operations() {
    let text = SCHEMA_FORMAT.replace(
        r#"{"action": "add", "column": {"name": "Name", "type": "text", "required": true}}"#,
        r#"{"action": "modify", "column_id": "col_1", "changes": {"name": "Title"}}"#,
    );
    let parsed = parse("tables_list", &text);
    assert!(parsed.custom_payload.is_none());
    let error = &parsed.rejected[0].errors[0];
    assert_eq!(error.path(), "/operations/0/action");
    // The rule is the schema's (its union on mode), so the validator states it.
    assert_eq!(error.expected(), Some("exactly \"add\""));
}

#[test]
fn update_mode_allows_every_operation_and_needs_no_name() {
    let text = r#"SCHEMA_PROPOSAL: {"mode": "update", "operations": [
  {"action": "add", "column": {"name": "Priority", "type": "select", "options": ["Low", "High"], "filterDisplay": "tab"}, "after_column_id": "col_2"},
  {"action": "modify", "column_id": "col_3", "changes": {"type": "select", "options": ["Full", "Options", "List"], "filterDisplay": "dropdown"}},
  {"action": "remove", "column_id": "col_4"},
  {"action": "reorder", "column_id": "col_5"}
]}"#;
    let parsed = parse("table_edit", text);
    let proposal: &SchemaProposal = parsed.payload().unwrap();
    assert_eq!(proposal.operations.len(), 4);
}

#[test]
fn select_columns_need_options_and_filter_display_needs_select() {
    // A new column's rules are the schema's (a union on its type)...
    let text = r#"SCHEMA_PROPOSAL: {"mode": "update", "operations": [
  {"action": "add", "column": {"name": "Stage", "type": "select"}},
  {"action": "add", "column": {"name": "Notes", "type": "text", "filterDisplay": "tab"}}
]}"#;
    let parsed = parse("table_edit", text);
    let paths: Vec<&str> = parsed.rejected[0].errors.iter().map(|e| e.path()).collect();
    assert_eq!(
        paths,
        [
            "/operations/0/column/options",
            "/operations/1/column/filterDisplay"
        ]
    );
    // ...and a modify to select without options is the type's own check.
    let text = r#"SCHEMA_PROPOSAL: {"mode": "update", "operations": [
  {"action": "modify", "column_id": "col_3", "changes": {"type": "select"}}
]}"#;
    let parsed = parse("table_edit", text);
    assert_eq!(
        parsed.rejected[0].errors[0].path(),
        "/operations/0/changes/options"
    );
}

#[test]
fn create_mode_needs_two_to_five_sample_rows_keyed_by_new_columns() {
    let one_row = SCHEMA_FORMAT.replace(
        r#",
    {"Name": "Globex", "Status": "Inactive"}"#,
        "",
    );
    let parsed = parse("tables_list", &one_row);
    assert_eq!(parsed.rejected[0].errors[0].path(), "/sample_rows");

    let bad_key = SCHEMA_FORMAT.replace(r#""Status": "Inactive""#, r#""State": "Inactive""#);
    let parsed = parse("tables_list", &bad_key);
    assert_eq!(parsed.rejected[0].errors[0].path(), "/sample_rows/1/State");
}
