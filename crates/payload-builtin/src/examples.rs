//! The examples shown in each type's instructions (and checked against the type's own
//! schema and rules by the tests).

use crate::{
    ColumnSpec, ColumnType, DataOperation, DataProposal, SchemaMode, SchemaOperation,
    SchemaProposal, SuggestedActions, SuggestedValues,
};
use payload_core::suggestions::Handler;
use payload_core::{suggestions::SuggestedAction, suggestions::SuggestedValue};
use serde_json::{Map, Value, json};

fn row(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn column(name: &str, column_type: ColumnType, options: Option<&[&str]>) -> SchemaOperation {
    SchemaOperation::Add {
        column: ColumnSpec {
            name: name.to_string(),
            column_type,
            required: (name == "Company").then_some(true),
            options: options.map(|o| o.iter().map(|s| s.to_string()).collect()),
            filter_display: None,
        },
        after_column_id: None,
    }
}

/// A job-application tracker, created with three columns and two sample rows.
pub fn create_jobs_table() -> SchemaProposal {
    SchemaProposal {
        mode: SchemaMode::Create,
        reasoning: Some("A simple tracker for job applications".into()),
        table_name: Some("Job Applications".into()),
        table_description: Some("Tracks job applications and their status".into()),
        operations: vec![
            column("Company", ColumnType::Text, None),
            column("Position", ColumnType::Text, None),
            column(
                "Status",
                ColumnType::Select,
                Some(&["Applied", "Interview", "Offer", "Rejected"]),
            ),
        ],
        sample_rows: Some(vec![
            row(json!({"Company": "Acme Corp", "Position": "Engineer", "Status": "Applied"})),
            row(json!({"Company": "Globex", "Position": "Designer", "Status": "Interview"})),
        ]),
    }
}

/// One row added and one updated.
pub fn add_and_update_rows() -> DataProposal {
    DataProposal {
        reasoning: Some("Adding the new application and moving Globex to Offer".into()),
        operations: vec![
            DataOperation::Add {
                data: row(
                    json!({"Company": "Initech", "Position": "Analyst", "Status": "Applied"}),
                ),
            },
            DataOperation::Update {
                row_id: 5,
                changes: row(json!({"Status": "Offer"})),
            },
        ],
    }
}

/// Two chips.
pub fn suggested_values() -> SuggestedValues {
    SuggestedValues(vec![
        SuggestedValue {
            label: "Add sample data".into(),
            value: "Add a few sample rows".into(),
        },
        SuggestedValue {
            label: "Add a column".into(),
            value: "I'd like to add another column".into(),
        },
    ])
}

/// One button.
pub fn suggested_actions() -> SuggestedActions {
    SuggestedActions(vec![SuggestedAction {
        label: "Close chat".into(),
        action: "close_chat".into(),
        handler: Handler::Client,
    }])
}
