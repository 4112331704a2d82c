//! SCHEMA_PROPOSAL: create a table, or change an existing table's columns (table.that).
//! The mode and column rules are in the schema (`schema_rules.rs`); what it cannot
//! state is checked here.

use payload_core::PayloadError;
use payload_core::{LlmPayload, Partial};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Proposes creating a new table or changing an existing table's schema. The user
/// reviews it and applies or dismisses it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[schemars(transform = crate::schema_rules::mode_union)]
#[payload(
    name = "schema_proposal",
    marker = "SCHEMA_PROPOSAL",
    register,
    partial,
    example = crate::examples::create_jobs_table,
    check = SchemaProposal::check_mode_rules,
    rule = "create mode: columns are referenced by name, and every new column has a distinct name",
    rule = "update mode: columns are referenced by column_id from the current context; table_name only when renaming, no sample_rows",
    rule = "a modify operation changes at least one field; when changing a column to select, give the full, non-empty options list",
    rule = "sample_rows use the new columns' names as keys",
    rule = "at most 1000 operations per proposal, 200 options per select column, and 1000 columns per table: split a bigger change into several proposals",
    summary = SchemaProposal::summary_line
)]
pub struct SchemaProposal {
    /// `create` for a new table, `update` to change the current one.
    pub mode: SchemaMode,
    /// Brief explanation of the proposal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Required for create; for update only when renaming the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    /// Required for create, optional for update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_description: Option<String>,
    /// The column operations, in order.
    #[schemars(length(min = 1, max = 1000))]
    pub operations: Vec<SchemaOperation>,
    /// Required for create mode: 2-3 realistic example rows keyed by column name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 5))]
    pub sample_rows: Option<Vec<Map<String, Value>>>,
}

/// Whether a proposal creates a table or updates one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(rename_all = "lowercase")]
pub enum SchemaMode {
    /// A new table.
    Create,
    /// Changes to the current table.
    Update,
}

/// One change to the table's columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum SchemaOperation {
    /// Add a column.
    Add {
        /// The new column.
        column: ColumnSpec,
        /// Place it after this column; omit to append at the end.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_column_id: Option<String>,
    },
    /// Change an existing column.
    Modify {
        /// The column, by id from the current context.
        column_id: String,
        /// Only the fields being changed.
        changes: ColumnChanges,
    },
    /// Remove a column.
    Remove {
        /// The column, by id from the current context.
        column_id: String,
    },
    /// Move a column.
    Reorder {
        /// The column, by id from the current context.
        column_id: String,
        /// Place it after this column; omit to move it first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_column_id: Option<String>,
    },
}

/// A column to add.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[schemars(transform = crate::schema_rules::column_union)]
pub struct ColumnSpec {
    /// Column name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// Column type.
    #[serde(rename = "type")]
    pub column_type: ColumnType,
    /// Whether a value is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Choices, for select columns only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 200))]
    pub options: Option<Vec<String>>,
    /// How a select column's filter is shown.
    #[serde(
        default,
        rename = "filterDisplay",
        skip_serializing_if = "Option::is_none"
    )]
    pub filter_display: Option<FilterDisplay>,
}

/// The changed fields of a column; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
pub struct ColumnChanges {
    /// New name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub column_type: Option<ColumnType>,
    /// The full new options list (select columns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 200))]
    pub options: Option<Vec<String>>,
    /// Whether a value is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// How a select column's filter is shown.
    #[serde(
        default,
        rename = "filterDisplay",
        skip_serializing_if = "Option::is_none"
    )]
    pub filter_display: Option<FilterDisplay>,
}

/// The type of a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    /// Free text.
    Text,
    /// A number.
    Number,
    /// A date (YYYY-MM-DD).
    Date,
    /// Yes or no.
    Boolean,
    /// One of a fixed list of options.
    Select,
}

/// How a select column's filter is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(rename_all = "lowercase")]
pub enum FilterDisplay {
    /// Inline filter buttons.
    Tab,
    /// A dropdown chip.
    Dropdown,
}

impl SchemaProposal {
    /// The most operations one proposal may hold (its schema's `maxItems`): what an app
    /// applies in one transaction without keeping its users waiting.
    pub const MAX_OPERATIONS: usize = 1000;

    /// The most columns a table may have: well under SQLite's limit of 2000 per table
    /// (which counts the row id too), and more than any table a person reads. A create
    /// proposal adding more is refused when it is parsed; an app refuses an update that
    /// would pass it.
    pub const MAX_COLUMNS: usize = 1000;

    /// The most options a select column may list (the schema's `maxItems`).
    pub const MAX_OPTIONS: usize = 200;

    /// The rules the schema cannot state (the mode, sample-row count and column-type
    /// rules are in it: `schema_rules.rs`): the columns a create adds (each name once,
    /// at most [`SchemaProposal::MAX_COLUMNS`]), the sample rows' keys, and what a
    /// modify operation changes.
    pub fn check_mode_rules(&self) -> Vec<PayloadError> {
        let mut errors = Vec::new();
        let added = self
            .operations
            .iter()
            .filter(|op| matches!(op, SchemaOperation::Add { .. }))
            .count();
        if self.mode == SchemaMode::Create && added > Self::MAX_COLUMNS {
            errors.push(
                PayloadError::validation(
                    "/operations",
                    format!(
                        "the new table would have {added} columns; a table has at most {}",
                        Self::MAX_COLUMNS
                    ),
                )
                .with_received(added)
                .with_expected(format!("at most {} columns", Self::MAX_COLUMNS))
                .with_suggestion("create the table with fewer columns"),
            );
        }
        if self.mode == SchemaMode::Create {
            self.check_create(&mut errors);
        }
        for (index, operation) in self.operations.iter().enumerate() {
            check_operation(index, operation, &mut errors);
        }
        errors
    }

    fn check_create(&self, errors: &mut Vec<PayloadError>) {
        let rows = self.sample_rows.as_deref().unwrap_or_default();
        let mut names = HashSet::new();
        for (index, operation) in self.operations.iter().enumerate() {
            if let SchemaOperation::Add { column, .. } = operation {
                if !names.insert(column.name.as_str()) {
                    errors.push(
                        PayloadError::validation(
                            format!("/operations/{index}/column/name"),
                            format!("the column '{}' is added twice", column.name),
                        )
                        .with_received(column.name.clone())
                        .with_suggestion("give every new column a distinct name"),
                    );
                }
            }
        }
        for (row_index, row) in rows.iter().enumerate() {
            for key in row.keys() {
                if !names.contains(key.as_str()) {
                    let mut known: Vec<&str> = names.iter().copied().collect();
                    known.sort_unstable();
                    errors.push(
                        PayloadError::validation(
                            payload_schema::pointer::join(
                                &format!("/sample_rows/{row_index}"),
                                key,
                            ),
                            format!("sample row uses '{key}', which is not a new column"),
                        )
                        .with_expected(format!("one of the columns {}", known.join(", ")))
                        .with_suggestion("key sample rows by the names of the added columns"),
                    );
                }
            }
        }
    }

    /// `create table "Jobs" (3 columns)` / `update: 2 operations`.
    pub fn summary_line(&self) -> String {
        match self.mode {
            SchemaMode::Create => format!(
                "create table \"{}\" ({} columns)",
                self.table_name.as_deref().unwrap_or("untitled"),
                self.operations.len()
            ),
            SchemaMode::Update => {
                let mut counts: Vec<String> = Vec::new();
                for kind in ["add", "modify", "remove", "reorder"] {
                    let n = self
                        .operations
                        .iter()
                        .filter(|op| operation_name(op) == kind)
                        .count();
                    if n > 0 {
                        counts.push(format!("{n} {kind}"));
                    }
                }
                format!("update table: {}", counts.join(", "))
            }
        }
    }
}

fn operation_name(operation: &SchemaOperation) -> &'static str {
    match operation {
        SchemaOperation::Add { .. } => "add",
        SchemaOperation::Modify { .. } => "modify",
        SchemaOperation::Remove { .. } => "remove",
        SchemaOperation::Reorder { .. } => "reorder",
    }
}

fn check_operation(index: usize, operation: &SchemaOperation, errors: &mut Vec<PayloadError>) {
    let SchemaOperation::Modify { changes, .. } = operation else {
        return;
    };
    let base = format!("/operations/{index}/changes");
    if changes == &ColumnChanges::default() {
        errors.push(
            PayloadError::validation(base.clone(), "a modify operation changes nothing")
                .with_suggestion("list the fields being changed in \"changes\""),
        );
    }
    if changes.column_type == Some(ColumnType::Select)
        && changes.options.as_deref().is_none_or(<[String]>::is_empty)
    {
        errors.push(
            PayloadError::missing(
                format!("{base}/options"),
                "a select column needs a non-empty options list",
            )
            .with_expected("array of option strings")
            .with_suggestion("add \"options\": [\"...\", \"...\"] with every choice"),
        );
    }
}
