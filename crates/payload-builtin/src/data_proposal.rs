//! DATA_PROPOSAL: add, update or delete rows in bulk (table.that).

use payload_core::PayloadError;
use payload_core::{LlmPayload, Partial};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Proposes bulk data changes: adding, updating or deleting rows. Use it for multiple
/// rows, for "add some sample data" and "update all X to Y", and when unsure; the user
/// reviews every row before applying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "data_proposal",
    marker = "DATA_PROPOSAL",
    register,
    partial,
    example = crate::examples::add_and_update_rows,
    check = DataProposal::check_rows,
    rule = "add: data keyed by column names (not ids) with values for all relevant columns",
    rule = "update: row_id from the context or tools, changes with only the changed columns",
    rule = "delete: row_id only",
    rule = "a row is updated or deleted at most once per proposal",
    rule = "at most 1000 operations and 20000 values per proposal: split a bigger change into several proposals",
    rule = "a single row the user explicitly asks to add, change or delete goes through the row tools (create_row, update_row, delete_row) when they are offered; several rows, sample data, \"update all X to Y\" and anything uncertain go in a DATA_PROPOSAL",
    summary = DataProposal::summary_line
)]
pub struct DataProposal {
    /// Brief explanation of the changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The row operations, in order.
    #[schemars(length(min = 1, max = 1000))]
    pub operations: Vec<DataOperation>,
}

/// One change to the table's rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum DataOperation {
    /// Add a row.
    Add {
        /// Values keyed by column name.
        data: Map<String, Value>,
    },
    /// Change some values of a row.
    Update {
        /// The database row id (SQLite's row ids are at most 2^63 - 1).
        #[schemars(range(min = 1, max = 9_223_372_036_854_775_807u64))]
        row_id: u64,
        /// Only the columns being changed.
        changes: Map<String, Value>,
    },
    /// Delete a row.
    Delete {
        /// The database row id (SQLite's row ids are at most 2^63 - 1).
        #[schemars(range(min = 1, max = 9_223_372_036_854_775_807u64))]
        row_id: u64,
    },
}

impl DataProposal {
    /// The most operations one proposal may hold (its schema's `maxItems`).
    pub const MAX_OPERATIONS: usize = 1000;

    /// The most values (cells) all of a proposal's rows may hold together.
    pub const MAX_VALUES: usize = 20_000;

    /// Rules beyond the schema: no empty rows or changes, each row touched once, and at
    /// most [`DataProposal::MAX_VALUES`] values in all.
    pub fn check_rows(&self) -> Vec<PayloadError> {
        let mut errors = Vec::new();
        let values: usize = self
            .operations
            .iter()
            .map(|operation| match operation {
                DataOperation::Add { data } => data.len(),
                DataOperation::Update { changes, .. } => changes.len(),
                DataOperation::Delete { .. } => 0,
            })
            .sum();
        if values > Self::MAX_VALUES {
            errors.push(
                PayloadError::validation(
                    "/operations",
                    format!(
                        "the proposal holds {values} values; at most {} fit in one",
                        Self::MAX_VALUES
                    ),
                )
                .with_received(values)
                .with_expected(format!("at most {} values", Self::MAX_VALUES))
                .with_suggestion("split the rows into several proposals"),
            );
        }
        // Ordered, not hashed: a proposal touches few rows, and every parse runs this
        // check, where SipHash and a table cost more than the few comparisons.
        let mut touched: BTreeMap<u64, usize> = BTreeMap::new();
        for (index, operation) in self.operations.iter().enumerate() {
            let (row_id, values, member) = match operation {
                DataOperation::Add { data } => (None, Some(data), "data"),
                DataOperation::Update { row_id, changes } => {
                    (Some(*row_id), Some(changes), "changes")
                }
                DataOperation::Delete { row_id } => (Some(*row_id), None, ""),
            };
            if values.is_some_and(Map::is_empty) {
                errors.push(
                    PayloadError::validation(
                        format!("/operations/{index}/{member}"),
                        format!("{member} is empty"),
                    )
                    .with_suggestion("give at least one column value, keyed by column name"),
                );
            }
            if let Some(row_id) = row_id {
                if let Some(first) = touched.insert(row_id, index) {
                    errors.push(
                        PayloadError::validation(
                            format!("/operations/{index}/row_id"),
                            format!("row {row_id} is already changed by operation {first}"),
                        )
                        .with_received(row_id)
                        .with_suggestion("change each row at most once per proposal"),
                    );
                }
            }
        }
        errors
    }

    /// `3 add, 1 update, 2 delete`.
    pub fn summary_line(&self) -> String {
        let count = |f: fn(&DataOperation) -> bool| self.operations.iter().filter(|o| f(o)).count();
        let parts: Vec<String> = [
            ("add", count(|o| matches!(o, DataOperation::Add { .. }))),
            (
                "update",
                count(|o| matches!(o, DataOperation::Update { .. })),
            ),
            (
                "delete",
                count(|o| matches!(o, DataOperation::Delete { .. })),
            ),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
        format!("rows: {}", parts.join(", "))
    }
}
