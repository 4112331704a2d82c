//! Accepting a proposal: a SCHEMA_PROPOSAL creates or alters a real table, a
//! DATA_PROPOSAL changes its rows. Each runs in one transaction, so a proposal is
//! applied whole or not at all; an operation that names something that is not there
//! (a row deleted since, a column the model invented) is skipped and said so.

use crate::tables::{self, data_table, to_sql};
use payload_builtin::{
    ColumnChanges, ColumnSpec, DataOperation, DataProposal, SchemaMode, SchemaOperation,
    SchemaProposal,
};
use rusqlite::{Connection, Transaction, params, params_from_iter};
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// What accepting a proposal did. Every operation considered is counted once: either
/// in `applied` or in `skipped` (`applied + skipped.len()` is the number of operations,
/// or of ticked rows), so nothing the model proposed is lost without a word.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Applied {
    /// The table it applied to (the new one, for a create).
    pub table_id: i64,
    /// How many operations took effect.
    pub applied: usize,
    /// The operations that did not, and why.
    pub skipped: Vec<Skipped>,
    /// Parts of applied operations that were left out (a value for a column that does
    /// not exist, a sample row that matched no column).
    pub ignored: Vec<String>,
}

/// An operation that was not applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// Its index in the proposal's `operations`, from 0.
    pub operation: usize,
    /// Why.
    pub reason: String,
}

impl Applied {
    fn new(table_id: i64) -> Applied {
        Applied {
            table_id,
            applied: 0,
            skipped: Vec::new(),
            ignored: Vec::new(),
        }
    }

    /// Counts operation `index`: applied, or skipped for `reason`.
    fn count(&mut self, index: usize, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.applied += 1,
            Err(reason) => self.skipped.push(Skipped {
                operation: index,
                reason,
            }),
        }
    }
}

/// Why a proposal could not be applied at all.
#[derive(Debug)]
pub enum ApplyError {
    /// An update needs a table, and the page showed none (or it is gone).
    NoTable,
    /// The database failed.
    Sql(rusqlite::Error),
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::NoTable => f.write_str("the proposal's table does not exist"),
            ApplyError::Sql(e) => write!(f, "the database failed: {e}"),
        }
    }
}

impl std::error::Error for ApplyError {}

impl From<rusqlite::Error> for ApplyError {
    fn from(e: rusqlite::Error) -> Self {
        ApplyError::Sql(e)
    }
}

/// Applies a schema proposal: create mode makes a new table (with its sample rows, so
/// there is something to look at); update mode changes `table_id`'s columns.
pub fn schema(
    conn: &mut Connection,
    proposal: &SchemaProposal,
    table_id: Option<i64>,
) -> Result<Applied, ApplyError> {
    let tx = conn.transaction()?;
    let table_id = match proposal.mode {
        SchemaMode::Create => {
            tx.execute(
                "INSERT INTO app_tables (name, description) VALUES (?1, ?2)",
                params![
                    proposal.table_name.as_deref().unwrap_or("Untitled"),
                    proposal.table_description.as_deref().unwrap_or_default()
                ],
            )?;
            let id = tx.last_insert_rowid();
            tx.execute_batch(&format!(
                "CREATE TABLE {} (row_id INTEGER PRIMARY KEY AUTOINCREMENT)",
                data_table(id)
            ))?;
            id
        }
        SchemaMode::Update => {
            let id = table_id.ok_or(ApplyError::NoTable)?;
            if tables::summary(&tx, id)?.is_none() {
                return Err(ApplyError::NoTable);
            }
            if let Some(name) = &proposal.table_name {
                tx.execute(
                    "UPDATE app_tables SET name = ?2 WHERE id = ?1",
                    params![id, name],
                )?;
            }
            if let Some(description) = &proposal.table_description {
                tx.execute(
                    "UPDATE app_tables SET description = ?2 WHERE id = ?1",
                    params![id, description],
                )?;
            }
            id
        }
    };
    let mut applied = Applied::new(table_id);
    for (index, operation) in proposal.operations.iter().enumerate() {
        let outcome = column_operation(&tx, table_id, operation)?;
        applied.count(index, outcome);
    }
    if proposal.mode == SchemaMode::Create {
        for (index, row) in proposal.sample_rows.iter().flatten().enumerate() {
            if let Err(why) = insert_row(&tx, table_id, row, &mut applied.ignored)? {
                applied
                    .ignored
                    .push(format!("sample row {}: {why}", index + 1));
            }
        }
    }
    tx.commit()?;
    Ok(applied)
}

/// One column operation; `Ok(Err(why))` when it names a column that is not there.
fn column_operation(
    tx: &Transaction<'_>,
    table_id: i64,
    operation: &SchemaOperation,
) -> rusqlite::Result<Result<(), String>> {
    let mut order: Vec<String> = tables::columns(tx, table_id)?
        .into_iter()
        .map(|c| c.id)
        .collect();
    let missing = |id: &str| Err(format!("there is no column '{id}'"));
    match operation {
        SchemaOperation::Add {
            column,
            after_column_id,
        } => {
            let id = add_column(tx, table_id, column, &order)?;
            place(&mut order, id, after_column_id.as_deref(), false);
        }
        SchemaOperation::Modify { column_id, changes } => {
            if !order.contains(column_id) {
                return Ok(missing(column_id));
            }
            modify_column(tx, table_id, column_id, changes)?;
        }
        SchemaOperation::Remove { column_id } => {
            let Some(column) = tables::columns(tx, table_id)?
                .into_iter()
                .find(|c| &c.id == column_id)
            else {
                return Ok(missing(column_id));
            };
            tx.execute_batch(&format!(
                "ALTER TABLE {} DROP COLUMN {}",
                data_table(table_id),
                column.sql_name
            ))?;
            tx.execute(
                "DELETE FROM app_columns WHERE table_id = ?1 AND column_id = ?2",
                params![table_id, column_id],
            )?;
            order.retain(|id| id != column_id);
        }
        SchemaOperation::Reorder {
            column_id,
            after_column_id,
        } => {
            if !order.contains(column_id) {
                return Ok(missing(column_id));
            }
            order.retain(|id| id != column_id);
            place(
                &mut order,
                column_id.clone(),
                after_column_id.as_deref(),
                true,
            );
        }
    }
    for (position, id) in order.iter().enumerate() {
        tx.execute(
            "UPDATE app_columns SET position = ?3 WHERE table_id = ?1 AND column_id = ?2",
            params![table_id, id, position as i64],
        )?;
    }
    Ok(Ok(()))
}

/// Puts `id` after the column `after`; without one (or when it is not there), an added
/// column goes last and a reordered one first, as the proposal's docs say.
fn place(order: &mut Vec<String>, id: String, after: Option<&str>, otherwise_first: bool) {
    match after.and_then(|a| order.iter().position(|o| o == a)) {
        Some(at) => order.insert(at + 1, id),
        None if otherwise_first && after.is_none() => order.insert(0, id),
        None => order.push(id),
    }
}

/// Adds a column (metadata and SQLite column); returns its id.
fn add_column(
    tx: &Transaction<'_>,
    table_id: i64,
    column: &ColumnSpec,
    taken: &[String],
) -> rusqlite::Result<String> {
    let id = unique_id(&column.name, taken);
    let next: i64 = tx.query_row(
        "UPDATE app_tables SET next_column = next_column + 1 WHERE id = ?1 RETURNING next_column - 1",
        params![table_id],
        |row| row.get(0),
    )?;
    let sql_name = format!("c{next}");
    tx.execute_batch(&format!(
        "ALTER TABLE {} ADD COLUMN {sql_name}",
        data_table(table_id)
    ))?;
    tx.execute(
        "INSERT INTO app_columns
         (table_id, column_id, sql_name, name, type, required, options, filter_display, position)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            table_id,
            id,
            sql_name,
            column.name,
            enum_text(&column.column_type),
            column.required.unwrap_or(false),
            column
                .options
                .as_ref()
                .map(|o| Value::from(o.clone()).to_string()),
            column.filter_display.as_ref().map(enum_text),
            taken.len() as i64
        ],
    )?;
    Ok(id)
}

fn modify_column(
    tx: &Transaction<'_>,
    table_id: i64,
    column_id: &str,
    changes: &ColumnChanges,
) -> rusqlite::Result<()> {
    let set = |column: &str, value: rusqlite::types::Value| {
        tx.execute(
            &format!("UPDATE app_columns SET {column} = ?3 WHERE table_id = ?1 AND column_id = ?2"),
            params![table_id, column_id, value],
        )
    };
    use rusqlite::types::Value as Sql;
    if let Some(name) = &changes.name {
        set("name", Sql::Text(name.clone()))?;
    }
    if let Some(kind) = &changes.column_type {
        set("type", Sql::Text(enum_text(kind)))?;
    }
    if let Some(options) = &changes.options {
        set(
            "options",
            Sql::Text(Value::from(options.clone()).to_string()),
        )?;
    }
    if let Some(required) = changes.required {
        set("required", Sql::Integer(i64::from(required)))?;
    }
    if let Some(display) = &changes.filter_display {
        set("filter_display", Sql::Text(enum_text(display)))?;
    }
    Ok(())
}

/// `col_` and the name in lower case with `_` between words, numbered when taken:
/// "Role" is `col_role`, as the model expects from the recorded conversation.
fn unique_id(name: &str, taken: &[String]) -> String {
    let slug: String = name
        .to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    let base = format!("col_{}", if slug.is_empty() { "column" } else { &slug });
    let mut id = base.clone();
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{base}_{n}");
        n += 1;
    }
    id
}

/// A lowercase enum's serde name (`select`, `tab`).
fn enum_text<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Applies a data proposal to `table_id`; with `keep`, only the operations at those
/// indices (the rows the user left ticked).
pub fn data(
    conn: &mut Connection,
    proposal: &DataProposal,
    table_id: i64,
    keep: Option<&[usize]>,
) -> Result<Applied, ApplyError> {
    let tx = conn.transaction()?;
    if tables::summary(&tx, table_id)?.is_none() {
        return Err(ApplyError::NoTable);
    }
    let mut applied = Applied::new(table_id);
    for (index, operation) in proposal.operations.iter().enumerate() {
        if keep.is_some_and(|keep| !keep.contains(&index)) {
            continue;
        }
        let outcome = match operation {
            DataOperation::Add { data } => insert_row(&tx, table_id, data, &mut applied.ignored)?,
            DataOperation::Update { row_id, changes } => {
                update_row(&tx, table_id, *row_id, changes, &mut applied.ignored)?
            }
            DataOperation::Delete { row_id } => {
                let deleted = match i64::try_from(*row_id) {
                    Ok(row) => tx.execute(
                        &format!("DELETE FROM {} WHERE row_id = ?1", data_table(table_id)),
                        params![row],
                    )?,
                    Err(_) => 0,
                };
                if deleted == 0 {
                    Err(format!("row {row_id} does not exist"))
                } else {
                    Ok(())
                }
            }
        };
        applied.count(index, outcome);
    }
    tx.commit()?;
    Ok(applied)
}

/// The values of `data` by SQLite column, for the columns that exist (matched by name,
/// ignoring case, or by id); the others are noted in `ignored`.
fn sql_values(
    tx: &Transaction<'_>,
    table_id: i64,
    data: &Map<String, Value>,
    ignored: &mut Vec<String>,
) -> rusqlite::Result<Vec<(String, rusqlite::types::Value)>> {
    let columns = tables::columns(tx, table_id)?;
    let mut values = Vec::new();
    for (key, value) in data {
        match columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(key) || &c.id == key)
        {
            Some(column) => {
                values.push((column.sql_name.clone(), to_sql(value, &column.column_type)))
            }
            None => ignored.push(format!("there is no column '{key}'")),
        }
    }
    Ok(values)
}

fn insert_row(
    tx: &Transaction<'_>,
    table_id: i64,
    data: &Map<String, Value>,
    ignored: &mut Vec<String>,
) -> rusqlite::Result<Result<(), String>> {
    let values = sql_values(tx, table_id, data, ignored)?;
    if values.is_empty() {
        // A row of nothing but unknown columns is not what the model meant to add.
        return Ok(Err("the row names none of the table's columns".to_string()));
    }
    let names: Vec<&str> = values.iter().map(|(n, _)| n.as_str()).collect();
    let marks = vec!["?"; names.len()].join(", ");
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({marks})",
        data_table(table_id),
        names.join(", ")
    );
    tx.execute(&sql, params_from_iter(values.into_iter().map(|(_, v)| v)))?;
    Ok(Ok(()))
}

fn update_row(
    tx: &Transaction<'_>,
    table_id: i64,
    row_id: u64,
    changes: &Map<String, Value>,
    ignored: &mut Vec<String>,
) -> rusqlite::Result<Result<(), String>> {
    let values = sql_values(tx, table_id, changes, ignored)?;
    if values.is_empty() {
        return Ok(Err(format!(
            "row {row_id}: the changes name none of the table's columns"
        )));
    }
    let Ok(row) = i64::try_from(row_id) else {
        return Ok(Err(format!("row {row_id} does not exist")));
    };
    let sets: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, (name, _))| format!("{name} = ?{}", i + 2))
        .collect();
    let sql = format!(
        "UPDATE {} SET {} WHERE row_id = ?1",
        data_table(table_id),
        sets.join(", ")
    );
    let params = std::iter::once(rusqlite::types::Value::Integer(row))
        .chain(values.into_iter().map(|(_, v)| v));
    if tx.execute(&sql, params_from_iter(params))? == 0 {
        return Ok(Err(format!("row {row_id} does not exist")));
    }
    Ok(Ok(()))
}

impl crate::Db {
    /// Applies a schema proposal (see [`Applied`]): a new table in create mode, changes
    /// to `table_id`'s columns in update mode, in one transaction.
    pub fn apply_schema(
        &self,
        proposal: &SchemaProposal,
        table_id: Option<i64>,
    ) -> Result<Applied, ApplyError> {
        schema(&mut self.conn(), proposal, table_id)
    }

    /// Applies a data proposal's operations to `table_id` (only those at the indices in
    /// `keep`, when given), in one transaction.
    pub fn apply_data(
        &self,
        proposal: &DataProposal,
        table_id: i64,
        keep: Option<&[usize]>,
    ) -> Result<Applied, ApplyError> {
        data(&mut self.conn(), proposal, table_id, keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_added_column_goes_after_its_anchor_or_last_and_a_moved_one_first() {
        let mut columns = order(&["a", "b"]);
        place(&mut columns, "x".into(), Some("a"), false);
        assert_eq!(columns, ["a", "x", "b"]);
        place(&mut columns, "y".into(), None, false);
        assert_eq!(columns, ["a", "x", "b", "y"]);
        place(&mut columns, "z".into(), None, true);
        assert_eq!(columns, ["z", "a", "x", "b", "y"]);
        // An anchor that is not there: last, for both (never silently first).
        place(&mut columns, "w".into(), Some("gone"), true);
        assert_eq!(columns.last().unwrap(), "w");
    }

    #[test]
    fn column_ids_are_slugs_numbered_when_taken() {
        assert_eq!(unique_id("Applied on", &[]), "col_applied_on");
        assert_eq!(unique_id("Role", &order(&["col_role"])), "col_role_2");
        assert_eq!(unique_id("\"; DROP TABLE x; --", &[]), "col_drop_table_x");
        assert_eq!(unique_id("✓", &[]), "col_column");
    }
}
