//! Accepting a proposal: a SCHEMA_PROPOSAL creates or alters a real table, a
//! DATA_PROPOSAL changes its rows. Each runs in one transaction, so a proposal is
//! applied whole or not at all; an operation that names something that is not there
//! (a row deleted since, a column the model invented) is skipped and said so.

use crate::SqliteConn;
use crate::column_ids::ColumnIds;
use crate::column_order::ColumnOrder;
use crate::tables::{self, data_table, to_sql};
use payload_builtin::{
    ColumnChanges, ColumnSpec, DataOperation, DataProposal, SchemaMode, SchemaOperation,
    SchemaProposal,
};
use rusqlite::{Connection, params, params_from_iter};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
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

/// Why a proposal could not be applied at all (nothing of it was).
#[derive(Debug)]
pub enum ApplyError {
    /// An update needs a table, and the page showed none (or it is gone).
    NoTable,
    /// The table would have more columns than a table may have.
    TooManyColumns {
        /// How many it would have had when the proposal was stopped.
        columns: usize,
    },
    /// The database failed.
    Sql(rusqlite::Error),
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::NoTable => f.write_str("the proposal's table does not exist"),
            ApplyError::TooManyColumns { columns } => write!(
                f,
                "the table would have {columns} columns; a table has at most {}",
                SchemaProposal::MAX_COLUMNS
            ),
            // The database's error is the `source()`, printed once by a chain reporter.
            ApplyError::Sql(_) => f.write_str("the database failed"),
        }
    }
}

impl std::error::Error for ApplyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ApplyError::Sql(error) => Some(error),
            ApplyError::NoTable | ApplyError::TooManyColumns { .. } => None,
        }
    }
}

impl From<rusqlite::Error> for ApplyError {
    fn from(e: rusqlite::Error) -> Self {
        ApplyError::Sql(e)
    }
}

/// Applies a schema proposal inside `tx` (the caller commits): create mode makes a new
/// table (with its sample rows, so there is something to look at); update mode changes
/// `table_id`'s columns. The work is linear in the proposal and the table's width: the
/// columns are read once, kept in memory while the operations run ([`ColumnOrder`],
/// [`ColumnIds`]), and each position that changed is written once at the end.
pub fn schema(
    tx: &Connection,
    proposal: &SchemaProposal,
    table_id: Option<i64>,
) -> Result<Applied, ApplyError> {
    let table_id = match proposal.mode {
        SchemaMode::Create => {
            tx.execute(
                "INSERT INTO app_tables (name, description) VALUES (?1, ?2)",
                params![
                    proposal.table_name.as_deref().unwrap_or("Untitled"),
                    proposal.table_description.as_deref().unwrap_or_default()
                ],
            )?;
            // Its SQLite table is made by `Table::save`, with every column at once.
            tx.last_insert_rowid()
        }
        SchemaMode::Update => {
            let id = table_id.ok_or(ApplyError::NoTable)?;
            if tables::summary(tx, id)?.is_none() {
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
    let mut table = Table::load(tx, table_id, proposal.mode == SchemaMode::Create)?;
    let mut applied = Applied::new(table_id);
    for (index, operation) in proposal.operations.iter().enumerate() {
        let outcome = table.apply(tx, operation)?;
        applied.count(index, outcome);
    }
    table.save(tx)?;
    if proposal.mode == SchemaMode::Create {
        let columns = ColumnLookup::load(tx, table_id)?;
        for (index, row) in proposal.sample_rows.iter().flatten().enumerate() {
            if let Err(why) = insert_row(tx, table_id, &columns, row, &mut applied.ignored)? {
                applied
                    .ignored
                    .push(format!("sample row {}: {why}", index + 1));
            }
        }
    }
    Ok(applied)
}

/// A table's columns while a schema proposal changes them.
struct Table {
    id: i64,
    order: ColumnOrder,
    ids: ColumnIds,
    /// Each column's SQLite name, by id.
    sql_names: HashMap<String, String>,
    /// Each column's position when the proposal started (what need not be rewritten).
    positions: HashMap<String, usize>,
    /// The number of the next SQLite column (`c{n}`): never reused, so a value of a
    /// removed column can never show up under a new one.
    next_column: i64,
    /// A new table: its SQLite table is created once, with its final columns, when the
    /// operations are done (one `ALTER TABLE` per column would cost SQLite a re-read
    /// of the whole schema each).
    creating: bool,
    /// The SQLite columns the table had when the proposal started. The SQLite table is
    /// changed once, at the end, from these to the final columns.
    initial_sql: HashSet<String>,
}

/// Up to this many added columns (and none removed) are added one `ALTER TABLE` each;
/// more, or any removal (which SQLite does by rewriting the table anyway), rebuild the
/// table once.
const ALTER_AT_MOST: usize = 8;

impl Table {
    fn load(tx: &Connection, id: i64, creating: bool) -> rusqlite::Result<Table> {
        let columns = tables::columns(tx, id)?;
        let next_column = tx.query_row(
            "SELECT next_column FROM app_tables WHERE id = ?1",
            params![id],
            |row| row.get(0),
        )?;
        Ok(Table {
            id,
            order: ColumnOrder::new(columns.iter().map(|c| c.id.clone())),
            ids: ColumnIds::new(columns.iter().map(|c| c.id.clone())),
            positions: columns
                .iter()
                .enumerate()
                .map(|(position, c)| (c.id.clone(), position))
                .collect(),
            initial_sql: columns.iter().map(|c| c.sql_name.clone()).collect(),
            sql_names: columns.into_iter().map(|c| (c.id, c.sql_name)).collect(),
            next_column,
            creating,
        })
    }

    /// One column operation; `Ok(Err(why))` when it names a column that is not there.
    fn apply(
        &mut self,
        tx: &Connection,
        operation: &SchemaOperation,
    ) -> Result<Result<(), String>, ApplyError> {
        let missing = |id: &str| Ok(Err(format!("there is no column '{id}'")));
        match operation {
            SchemaOperation::Add {
                column,
                after_column_id,
            } => {
                if self.order.len() >= SchemaProposal::MAX_COLUMNS {
                    return Err(ApplyError::TooManyColumns {
                        columns: self.order.len() + 1,
                    });
                }
                let id = self.ids.allocate(&column.name);
                let sql_name = format!("c{}", self.next_column);
                self.next_column += 1;
                add_column(tx, self.id, &id, &sql_name, column)?;
                self.sql_names.insert(id.clone(), sql_name);
                self.order.place(id, after_column_id.as_deref(), false);
            }
            SchemaOperation::Modify { column_id, changes } => {
                if !self.order.contains(column_id) {
                    return missing(column_id);
                }
                modify_column(tx, self.id, column_id, changes)?;
            }
            SchemaOperation::Remove { column_id } => {
                if self.sql_names.remove(column_id).is_none() {
                    return missing(column_id);
                }
                tx.execute(
                    "DELETE FROM app_columns WHERE table_id = ?1 AND column_id = ?2",
                    params![self.id, column_id],
                )?;
                self.order.remove(column_id);
                self.ids.release(column_id);
                self.positions.remove(column_id);
            }
            SchemaOperation::Reorder {
                column_id,
                after_column_id,
            } => {
                if !self.order.remove(column_id) {
                    return missing(column_id);
                }
                self.order
                    .place(column_id.clone(), after_column_id.as_deref(), true);
            }
        }
        Ok(Ok(()))
    }

    /// Writes the positions that changed and the next column number, and creates a new
    /// table's SQLite table.
    fn save(&self, tx: &Connection) -> rusqlite::Result<()> {
        let table = data_table(self.id);
        let columns: Vec<&str> = self
            .order
            .ids()
            .into_iter()
            .map(|id| self.sql_names[id].as_str())
            .collect();
        let added: Vec<&str> = columns
            .iter()
            .copied()
            .filter(|c| !self.initial_sql.contains(*c))
            .collect();
        let kept = columns.len() - added.len();
        if self.creating {
            create_data_table(tx, &table, &columns)?;
        } else if kept == self.initial_sql.len() && added.len() <= ALTER_AT_MOST {
            for column in added {
                tx.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column}"))?;
            }
        } else {
            rebuild(tx, &table, &columns, &self.initial_sql)?;
        }
        let mut statement = tx.prepare_cached(
            "UPDATE app_columns SET position = ?3 WHERE table_id = ?1 AND column_id = ?2",
        )?;
        for (position, id) in self.order.ids().into_iter().enumerate() {
            if self.positions.get(id) != Some(&position) {
                statement.execute(params![self.id, id, position as i64])?;
            }
        }
        tx.execute(
            "UPDATE app_tables SET next_column = ?2 WHERE id = ?1",
            params![self.id, self.next_column],
        )?;
        Ok(())
    }
}

/// `CREATE TABLE` of a user's table with these SQLite columns.
fn create_data_table(tx: &Connection, table: &str, columns: &[&str]) -> rusqlite::Result<()> {
    let columns: String = columns.iter().map(|c| format!(", {c}")).collect();
    tx.execute_batch(&format!(
        "CREATE TABLE {table} (row_id INTEGER PRIMARY KEY AUTOINCREMENT{columns})"
    ))
}

/// Rebuilds a user's table with `columns`, keeping the rows and the values of the
/// columns it had (`initial`), and its row id counter (a deleted row's id is never
/// given again): one pass over the rows, however many columns changed.
fn rebuild(
    tx: &Connection,
    table: &str,
    columns: &[&str],
    initial: &HashSet<String>,
) -> rusqlite::Result<()> {
    let fresh = format!("{table}_rebuilt");
    let counter = |tx: &Connection| -> rusqlite::Result<i64> {
        tx.query_row(
            "SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = ?1",
            params![table],
            |row| row.get(0),
        )
    };
    let seq = counter(tx)?;
    create_data_table(tx, &fresh, columns)?;
    let kept: String = columns
        .iter()
        .filter(|c| initial.contains(**c))
        .map(|c| format!(", {c}"))
        .collect();
    tx.execute_batch(&format!(
        "INSERT INTO {fresh} (row_id{kept}) SELECT row_id{kept} FROM {table};
         DROP TABLE {table};
         ALTER TABLE {fresh} RENAME TO {table};"
    ))?;
    let seq = seq.max(counter(tx)?);
    tx.execute(
        "DELETE FROM sqlite_sequence WHERE name = ?1",
        params![table],
    )?;
    tx.execute(
        "INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)",
        params![table, seq],
    )?;
    Ok(())
}

/// Adds a column's metadata (placed by [`Table::save`]).
fn add_column(
    tx: &Connection,
    table_id: i64,
    id: &str,
    sql_name: &str,
    column: &ColumnSpec,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO app_columns
         (table_id, column_id, sql_name, name, type, required, options, filter_display, position)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, -1)",
    )?
    .execute(params![
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
    ])?;
    Ok(())
}

fn modify_column(
    tx: &Connection,
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

/// A lowercase enum's serde name (`select`, `tab`).
fn enum_text<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Applies a data proposal to `table_id` inside `tx` (the caller commits); with `keep`,
/// only the operations at those indices (the rows the user left ticked).
pub fn data(
    tx: &Connection,
    proposal: &DataProposal,
    table_id: i64,
    keep: Option<&[usize]>,
) -> Result<Applied, ApplyError> {
    if tables::summary(tx, table_id)?.is_none() {
        return Err(ApplyError::NoTable);
    }
    let keep: Option<HashSet<usize>> = keep.map(|k| k.iter().copied().collect());
    let columns = ColumnLookup::load(tx, table_id)?;
    let mut applied = Applied::new(table_id);
    for (index, operation) in proposal.operations.iter().enumerate() {
        if keep.as_ref().is_some_and(|keep| !keep.contains(&index)) {
            continue;
        }
        let outcome = match operation {
            DataOperation::Add { data } => {
                insert_row(tx, table_id, &columns, data, &mut applied.ignored)?
            }
            DataOperation::Update { row_id, changes } => update_row(
                tx,
                table_id,
                &columns,
                *row_id,
                changes,
                &mut applied.ignored,
            )?,
            DataOperation::Delete { row_id } => {
                let deleted = match i64::try_from(*row_id) {
                    Ok(row) => tx
                        .prepare_cached(&format!(
                            "DELETE FROM {} WHERE row_id = ?1",
                            data_table(table_id)
                        ))?
                        .execute(params![row])?,
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
    Ok(applied)
}

/// A table's columns found by what a proposal keys values with: a column's name
/// (ignoring ASCII case) or its id, the first in the table's order winning. Read once
/// per proposal.
struct ColumnLookup {
    columns: Vec<tables::Column>,
    by_name: HashMap<String, usize>,
    by_id: HashMap<String, usize>,
}

impl ColumnLookup {
    fn load(tx: &Connection, table_id: i64) -> rusqlite::Result<ColumnLookup> {
        let columns = tables::columns(tx, table_id)?;
        let mut by_name = HashMap::new();
        let mut by_id = HashMap::new();
        for (index, column) in columns.iter().enumerate() {
            by_name
                .entry(column.name.to_ascii_lowercase())
                .or_insert(index);
            by_id.entry(column.id.clone()).or_insert(index);
        }
        Ok(ColumnLookup {
            columns,
            by_name,
            by_id,
        })
    }

    fn find(&self, key: &str) -> Option<&tables::Column> {
        let by_name = self.by_name.get(&key.to_ascii_lowercase());
        let by_id = self.by_id.get(key);
        let index = match (by_name, by_id) {
            (Some(a), Some(b)) => a.min(b),
            (Some(i), None) | (None, Some(i)) => i,
            (None, None) => return None,
        };
        Some(&self.columns[*index])
    }

    /// The values of `data` by SQLite column, for the columns that exist; the others
    /// are noted in `ignored`.
    fn sql_values(
        &self,
        data: &Map<String, Value>,
        ignored: &mut Vec<String>,
    ) -> Vec<(String, rusqlite::types::Value)> {
        let mut values = Vec::new();
        for (key, value) in data {
            match self.find(key) {
                Some(column) => {
                    values.push((column.sql_name.clone(), to_sql(value, &column.column_type)))
                }
                None => ignored.push(format!("there is no column '{key}'")),
            }
        }
        values
    }
}

fn insert_row(
    tx: &Connection,
    table_id: i64,
    columns: &ColumnLookup,
    data: &Map<String, Value>,
    ignored: &mut Vec<String>,
) -> rusqlite::Result<Result<(), String>> {
    let values = columns.sql_values(data, ignored);
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
    tx: &Connection,
    table_id: i64,
    columns: &ColumnLookup,
    row_id: u64,
    changes: &Map<String, Value>,
    ignored: &mut Vec<String>,
) -> rusqlite::Result<Result<(), String>> {
    let values = columns.sql_values(changes, ignored);
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

/// Applying proposals to the user's tables outside a decision (what the tests and the
/// bench do; a decision applies them in its own transaction, [`crate::accept`]), and
/// checking the tables.
pub trait Tables {
    /// Applies a schema proposal (see [`Applied`]): a new table in create mode, changes
    /// to `table_id`'s columns in update mode, in one transaction.
    fn apply_schema(
        &self,
        proposal: &SchemaProposal,
        table_id: Option<i64>,
    ) -> Result<Applied, ApplyError>;

    /// Applies a data proposal's operations to `table_id` (only those at the indices in
    /// `keep`, when given), in one transaction.
    fn apply_data(
        &self,
        proposal: &DataProposal,
        table_id: i64,
        keep: Option<&[usize]>,
    ) -> Result<Applied, ApplyError>;

    /// Checks that the app's column metadata and SQLite's tables agree, for every
    /// table: each table's columns hold positions 0..n once, distinct ids and SQLite
    /// names, and its data table has exactly `row_id` and those columns. Every change
    /// the app makes keeps this true; a database file edited by hand may not.
    fn check(&self) -> Result<(), String>;
}

impl Tables for payload_serve::Db {
    // table.that's database is SQLite ([`crate::open_db`]).
    fn apply_schema(
        &self,
        proposal: &SchemaProposal,
        table_id: Option<i64>,
    ) -> Result<Applied, ApplyError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let applied = schema(&tx, proposal, table_id)?;
        tx.commit()?;
        Ok(applied)
    }

    fn apply_data(
        &self,
        proposal: &DataProposal,
        table_id: i64,
        keep: Option<&[usize]>,
    ) -> Result<Applied, ApplyError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let applied = data(&tx, proposal, table_id, keep)?;
        tx.commit()?;
        Ok(applied)
    }

    fn check(&self) -> Result<(), String> {
        let conn = self.conn();
        let tables = tables::list(&conn).map_err(|e| e.to_string())?;
        for table in tables {
            tables::check(&conn, table.id)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rows SQLite changed while applying a create of `n` columns, every name
    /// collapsing to one id: the work the old apply did per operation (rewriting every
    /// position) grew as n squared.
    fn rows_changed_creating(n: usize) -> u64 {
        let db = crate::open_db(None).unwrap();
        let operations: Vec<Value> = (0..n)
            .map(|i| json!({"action": "add", "column": {"name": if i % 2 == 0 { "x" } else { "X!" }, "type": "text"}}))
            .collect();
        let proposal: SchemaProposal = serde_json::from_value(json!({
            "mode": "create", "table_name": "t", "table_description": "d",
            "operations": operations,
        }))
        .unwrap();
        let before = db.conn().total_changes();
        let applied = db.apply_schema(&proposal, None).unwrap();
        assert_eq!(applied.applied, n);
        assert_eq!(db.check(), Ok(()));
        db.conn().total_changes() - before
    }

    #[test]
    fn a_create_changes_rows_in_proportion_to_its_columns() {
        for n in [10, 200, 800] {
            let changed = rows_changed_creating(n);
            // One metadata row per column, its position once, and a few for the table.
            assert!(
                changed <= 2 * n as u64 + 4,
                "{n} columns: {changed} rows changed"
            );
        }
    }

    #[test]
    fn a_rebuilt_table_keeps_its_rows_values_and_row_id_counter() {
        let db = crate::open_db(None).unwrap();
        let create: SchemaProposal = serde_json::from_value(json!({
            "mode": "create", "table_name": "t", "table_description": "d",
            "operations": [
                {"action": "add", "column": {"name": "A", "type": "text"}},
                {"action": "add", "column": {"name": "B", "type": "number"}},
            ],
            "sample_rows": [{"A": "x", "B": 1}, {"A": "y", "B": 2}, {"A": "z", "B": 3}],
        }))
        .unwrap();
        let table = db.apply_schema(&create, None).unwrap().table_id;
        let delete: DataProposal =
            serde_json::from_value(json!({"operations": [{"action": "delete", "row_id": 3}]}))
                .unwrap();
        db.apply_data(&delete, table, None).unwrap();
        // Removing a column and adding many rebuilds the table.
        let mut operations = vec![json!({"action": "remove", "column_id": "col_b"})];
        operations.extend((0..20).map(
            |i| json!({"action": "add", "column": {"name": format!("N{i}"), "type": "text"}}),
        ));
        let update: SchemaProposal =
            serde_json::from_value(json!({"mode": "update", "operations": operations})).unwrap();
        assert_eq!(db.apply_schema(&update, Some(table)).unwrap().applied, 21);
        assert_eq!(db.check(), Ok(()));
        let add: DataProposal = serde_json::from_value(
            json!({"operations": [{"action": "add", "data": {"A": "w", "N3": "n"}}]}),
        )
        .unwrap();
        db.apply_data(&add, table, None).unwrap();
        let rows = crate::tables::rows(&db.conn(), table, 10).unwrap();
        let seen: Vec<(i64, Value, Value)> = rows
            .iter()
            .map(|r| {
                (
                    r.row_id,
                    r.values["col_a"].clone(),
                    r.values["col_n3"].clone(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (1, json!("x"), Value::Null),
                (2, json!("y"), Value::Null),
                (4, json!("w"), json!("n")),
            ],
            "row 3 was deleted: its id is not given again"
        );
    }

    #[test]
    fn an_update_changes_rows_in_proportion_to_its_operations() {
        let db = crate::open_db(None).unwrap();
        let add = |i: usize| json!({"action": "add", "column": {"name": format!("c{i}"), "type": "text"}});
        let create: SchemaProposal = serde_json::from_value(json!({
            "mode": "create", "table_name": "t", "table_description": "d",
            "operations": [add(0)],
        }))
        .unwrap();
        let table = db.apply_schema(&create, None).unwrap().table_id;
        for n in [10, 400] {
            let mut operations: Vec<Value> = (1..=n).map(add).collect();
            // Moves to the front: a position rewrite per operation would touch them all.
            operations.extend(
                (1..=n).map(|i| json!({"action": "reorder", "column_id": format!("col_c{i}")})),
            );
            let update: SchemaProposal =
                serde_json::from_value(json!({"mode": "update", "operations": operations}))
                    .unwrap();
            let before = db.conn().total_changes();
            db.apply_schema(&update, Some(table)).unwrap();
            let changed = db.conn().total_changes() - before;
            let columns = crate::tables::columns(&db.conn(), table).unwrap().len() as u64;
            assert!(
                changed <= n as u64 + columns + 4,
                "{n}: {changed} rows changed"
            );
            assert_eq!(db.check(), Ok(()));
        }
    }

    #[test]
    fn a_table_never_gets_more_columns_than_the_cap() {
        let db = crate::open_db(None).unwrap();
        let add = |name: String| json!({"action": "add", "column": {"name": name, "type": "text"}});
        let create: SchemaProposal = serde_json::from_value(json!({
            "mode": "create", "table_name": "t", "table_description": "d",
            "operations": (0..SchemaProposal::MAX_COLUMNS - 1).map(|i| add(format!("c{i}"))).collect::<Vec<_>>(),
        }))
        .unwrap();
        let table = db.apply_schema(&create, None).unwrap().table_id;
        let two_more: SchemaProposal = serde_json::from_value(json!({
            "mode": "update", "operations": [add("a".into()), add("b".into())],
        }))
        .unwrap();
        let error = db.apply_schema(&two_more, Some(table)).unwrap_err();
        assert!(error.to_string().contains("at most"), "{error}");
        assert_eq!(
            crate::tables::columns(&db.conn(), table).unwrap().len(),
            SchemaProposal::MAX_COLUMNS - 1,
            "nothing of the refused proposal was applied"
        );
        assert_eq!(db.check(), Ok(()));
    }
}
