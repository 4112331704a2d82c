//! Realistic payload types the instruction tests render: a table-schema proposal
//! (table.that), a scored analysis (the output-schema app), a recursive outline, and a database
//! command enum (the contacts bridge).

use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Proposes creating a new table or changing an existing table's schema.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SchemaProposal {
    pub mode: Mode,
    /// Brief explanation
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Required for create, optional for update (only if renaming)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 80))]
    pub table_name: Option<String>,
    #[schemars(length(min = 1))]
    pub operations: Vec<SchemaOperation>,
    /// Required for create mode. 2-3 realistic example rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 5))]
    pub sample_rows: Option<Vec<Map<String, Value>>>,
}

/// Whether the proposal creates a table or changes one.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Create,
    Update,
}

/// One change to the table's columns.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum SchemaOperation {
    /// Adds a column.
    Add {
        column: Column,
        /// Omit to append at the end.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_column_id: Option<String>,
    },
    /// Changes an existing column.
    Modify {
        #[schemars(regex(pattern = r"^col_[a-z0-9]+$"))]
        column_id: String,
        changes: Column,
    },
    Remove {
        column_id: String,
    },
    Reorder {
        column_id: String,
        /// Omit to move to the first position.
        after_column_id: Option<String>,
    },
}

/// A column definition.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Column {
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ColumnType,
    #[serde(default)]
    pub required: bool,
    /// Only for select columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    #[serde(
        rename = "filterDisplay",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub filter_display: Option<FilterDisplay>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    Text,
    Number,
    Date,
    Boolean,
    Select,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FilterDisplay {
    /// Inline filter buttons.
    Tab,
    /// A dropdown chip.
    Dropdown,
}

impl LlmPayload for SchemaProposal {
    const NAME: &'static str = "schema_proposal";
    const MARKER: &'static str = "SCHEMA_PROPOSAL";
    const DESCRIPTION: &'static str =
        "Proposes creating a new table or changing an existing table's schema.";
    const RULES: &'static [&'static str] = &[
        "In create mode use only add operations; table_name and sample_rows are required.",
        "In update mode refer to existing columns by column_id from the context.",
    ];

    fn example() -> Option<Self> {
        Some(SchemaProposal {
            mode: Mode::Create,
            reasoning: Some("Track job applications".into()),
            table_name: Some("Applications".into()),
            operations: vec![SchemaOperation::Add {
                column: Column {
                    name: "Company".into(),
                    kind: ColumnType::Text,
                    required: true,
                    options: None,
                    filter_display: None,
                },
                after_column_id: None,
            }],
            sample_rows: Some(vec![
                serde_json::from_str(r#"{"Company": "Acme Corp"}"#).unwrap_or_default(),
            ]),
        })
    }
}

/// Structured results of analysing user feedback.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Analysis {
    /// Brief summary of the analysis
    pub summary: String,
    /// Confidence level in the analysis
    #[schemars(range(min = 0, max = 1))]
    pub confidence: f64,
    /// Relevant category tags
    #[serde(default)]
    #[schemars(length(max = 5))]
    pub tags: Vec<String>,
    /// Contact for follow-up
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(email)]
    pub contact: Option<String>,
    pub priority: u8,
}

impl LlmPayload for Analysis {
    const NAME: &'static str = "analysis";
    const MARKER: &'static str = "ANALYSIS";
    const DESCRIPTION: &'static str = "Structured results of analysing user feedback.";

    fn example() -> Option<Self> {
        Some(Analysis {
            summary: "Users like the new export button".into(),
            confidence: 0.87,
            tags: vec!["positive".into(), "export".into()],
            contact: None,
            priority: 2,
        })
    }
}

/// A nested outline of a document.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Outline {
    pub title: String,
    pub root: Section,
}

/// A section with its subsections.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Section {
    pub heading: String,
    #[serde(default)]
    pub children: Vec<Section>,
}

impl LlmPayload for Outline {
    const NAME: &'static str = "outline";
    const MARKER: &'static str = "OUTLINE";
    const DESCRIPTION: &'static str = "A nested outline of a document.";
}

/// A database command (the contacts bridge): what the user wants, with its parameters.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "intent", rename_all = "snake_case")]
pub enum Command {
    /// Search the catalogue.
    Search {
        #[schemars(length(min = 1))]
        query: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 1, max = 100))]
        limit: Option<u32>,
    },
    /// Select result rows by position.
    Select {
        #[schemars(length(min = 1), inner(range(min = 1)))]
        positions: Vec<u32>,
    },
    /// Export the results.
    Export { format: ExportFormat },
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Csv,
    Json,
}

impl LlmPayload for Command {
    const NAME: &'static str = "command";
    const MARKER: &'static str = "COMMAND";
    const DESCRIPTION: &'static str =
        "A database command: what the user wants, with its parameters.";
}
