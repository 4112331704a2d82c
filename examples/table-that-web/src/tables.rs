//! The user's tables as the app shows them: their columns (from the app's metadata, in
//! the app's order) and their rows, and the values going in and out of SQLite.

/// The app's tables: each user table's name and its columns' metadata (names, types,
/// options and order); the user's rows are in `data_<id>`. SQLite cannot change a
/// column's type or order, so the user's tables hold only the values, in columns named
/// by the app (`c1`, `c2`, ...), and renaming, retyping or reordering a column changes
/// only this metadata.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS app_tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    next_column INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS app_columns (
    table_id INTEGER NOT NULL REFERENCES app_tables(id),
    column_id TEXT NOT NULL,
    sql_name TEXT NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    required INTEGER NOT NULL DEFAULT 0,
    options TEXT,
    filter_display TEXT,
    position INTEGER NOT NULL,
    PRIMARY KEY (table_id, column_id)
);
";

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::{Map, Value};

/// A column of a user's table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    /// The id the model refers to it by (`col_role`).
    pub id: String,
    /// Its name, as shown (and as rows are keyed in proposals).
    pub name: String,
    /// text, number, date, boolean or select.
    #[serde(rename = "type")]
    pub column_type: String,
    /// Whether a row must have a value.
    pub required: bool,
    /// A select column's options.
    pub options: Option<Vec<String>>,
    /// tab or dropdown, for select columns.
    #[serde(rename = "filterDisplay")]
    pub filter_display: Option<String>,
    /// The SQLite column holding its values (`c3`); never from the model.
    #[serde(skip)]
    pub sql_name: String,
}

/// A table in the tables list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableSummary {
    /// Its id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// What it holds.
    pub description: String,
    /// How many rows it has.
    pub row_count: i64,
}

/// A row: its id and its values by column id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The row's id (what DATA_PROPOSAL's `row_id` names).
    pub row_id: i64,
    /// Its values, by column id.
    pub values: Map<String, Value>,
}

/// The SQLite table holding a user table's rows.
pub fn data_table(table_id: i64) -> String {
    format!("data_{table_id}")
}

/// Every table, oldest first.
pub fn list(conn: &Connection) -> rusqlite::Result<Vec<TableSummary>> {
    let mut statement = conn.prepare("SELECT id, name, description FROM app_tables ORDER BY id")?;
    let tables: Vec<(i64, String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    tables
        .into_iter()
        .map(|(id, name, description)| {
            Ok(TableSummary {
                id,
                name,
                description,
                row_count: row_count(conn, id)?,
            })
        })
        .collect()
}

/// One table's summary, if it exists.
pub fn summary(conn: &Connection, id: i64) -> rusqlite::Result<Option<TableSummary>> {
    let found: Option<(String, String)> = conn
        .query_row(
            "SELECT name, description FROM app_tables WHERE id = ?1",
            params![id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    found
        .map(|(name, description)| {
            Ok(TableSummary {
                id,
                name,
                description,
                row_count: row_count(conn, id)?,
            })
        })
        .transpose()
}

fn row_count(conn: &Connection, id: i64) -> rusqlite::Result<i64> {
    conn.query_row(
        &format!("SELECT COUNT(*) FROM {}", data_table(id)),
        [],
        |row| row.get(0),
    )
}

/// A table's columns, in the app's order.
pub fn columns(conn: &Connection, table_id: i64) -> rusqlite::Result<Vec<Column>> {
    let mut statement = conn.prepare(
        "SELECT column_id, name, type, required, options, filter_display, sql_name
         FROM app_columns WHERE table_id = ?1 ORDER BY position",
    )?;
    statement
        .query_map(params![table_id], |row| {
            let options: Option<String> = row.get(4)?;
            Ok(Column {
                id: row.get(0)?,
                name: row.get(1)?,
                column_type: row.get(2)?,
                required: row.get(3)?,
                options: options.and_then(|o| serde_json::from_str(&o).ok()),
                filter_display: row.get(5)?,
                sql_name: row.get(6)?,
            })
        })?
        .collect()
}

/// A table's rows, oldest first, at most `limit` of them.
pub fn rows(conn: &Connection, table_id: i64, limit: usize) -> rusqlite::Result<Vec<Row>> {
    let columns = columns(conn, table_id)?;
    let selected: Vec<&str> = std::iter::once("row_id")
        .chain(columns.iter().map(|c| c.sql_name.as_str()))
        .collect();
    let mut statement = conn.prepare(&format!(
        "SELECT {} FROM {} ORDER BY row_id LIMIT ?1",
        selected.join(", "),
        data_table(table_id)
    ))?;
    // SQLite reads a negative limit as none.
    let limit = i64::try_from(limit).unwrap_or(-1);
    statement
        .query_map(params![limit], |row| {
            let mut values = Map::new();
            for (index, column) in columns.iter().enumerate() {
                values.insert(column.id.clone(), to_json(row.get_ref(index + 1)?));
            }
            Ok(Row {
                row_id: row.get(0)?,
                values,
            })
        })?
        .collect()
}

/// Checks one table's metadata against its SQLite table (see [`crate::Tables::check`]).
pub fn check(conn: &Connection, table_id: i64) -> Result<(), String> {
    let fail = |e: rusqlite::Error| format!("table {table_id}: {e}");
    let mut statement = conn
        .prepare("SELECT column_id, sql_name, position FROM app_columns WHERE table_id = ?1")
        .map_err(fail)?;
    let meta: Vec<(String, String, i64)> = statement
        .query_map(params![table_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })
        .map_err(fail)?
        .collect::<Result<_, _>>()
        .map_err(fail)?;
    let mut positions: Vec<i64> = meta.iter().map(|m| m.2).collect();
    positions.sort_unstable();
    if positions != (0..meta.len() as i64).collect::<Vec<_>>() {
        return Err(format!("table {table_id}: column positions {positions:?}"));
    }
    let distinct = |values: Vec<&String>| {
        let n = values.len();
        values
            .into_iter()
            .collect::<std::collections::HashSet<_>>()
            .len()
            == n
    };
    if !distinct(meta.iter().map(|m| &m.0).collect())
        || !distinct(meta.iter().map(|m| &m.1).collect())
    {
        return Err(format!("table {table_id}: repeated column ids or names"));
    }
    let mut statement = conn
        .prepare(&format!(
            "SELECT name FROM pragma_table_info('{}')",
            data_table(table_id)
        ))
        .map_err(fail)?;
    let mut actual: Vec<String> = statement
        .query_map([], |row| row.get(0))
        .map_err(fail)?
        .collect::<Result<_, _>>()
        .map_err(fail)?;
    let mut expected: Vec<String> = std::iter::once("row_id".to_string())
        .chain(meta.into_iter().map(|m| m.1))
        .collect();
    actual.sort();
    expected.sort();
    if actual != expected {
        return Err(format!(
            "table {table_id}: SQLite has columns {actual:?}, the app {expected:?}"
        ));
    }
    Ok(())
}

/// A stored value as JSON.
fn to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => Value::from(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Value::String(String::from_utf8_lossy(t).into_owned())
        }
    }
}

/// A value from a proposal as SQLite stores it in a column of `column_type`: numbers as
/// numbers when they read as one, booleans as 0/1, everything else as text.
pub fn to_sql(value: &Value, column_type: &str) -> SqlValue {
    match (value, column_type) {
        (Value::Null, _) => SqlValue::Null,
        (Value::Bool(b), _) => SqlValue::Integer(i64::from(*b)),
        (Value::Number(n), _) => match n.as_i64() {
            Some(i) => SqlValue::Integer(i),
            None => SqlValue::Real(n.as_f64().unwrap_or(0.0)),
        },
        (Value::String(s), "number") => match s.trim().parse::<i64>() {
            Ok(i) => SqlValue::Integer(i),
            Err(_) => s
                .trim()
                .parse::<f64>()
                .map(SqlValue::Real)
                .unwrap_or_else(|_| SqlValue::Text(s.clone())),
        },
        (Value::String(s), "boolean") => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" => SqlValue::Integer(1),
            "false" | "no" => SqlValue::Integer(0),
            _ => SqlValue::Text(s.clone()),
        },
        (Value::String(s), _) => SqlValue::Text(s.clone()),
        (other, _) => SqlValue::Text(other.to_string()),
    }
}

/// What the model is told about the page (CURRENT CONTEXT): the client's context with
/// the database's facts added, so the model sees the tables as they are now.
pub fn page_context(conn: &Connection, page: &str, client: &Value) -> rusqlite::Result<Value> {
    let mut context = client.as_object().cloned().unwrap_or_default();
    if page == "tables_list" {
        let tables = list(conn)?;
        context.insert(
            "tables".into(),
            serde_json::to_value(tables).unwrap_or_default(),
        );
        return Ok(Value::Object(context));
    }
    let table_id = client.get("table_id").and_then(Value::as_i64);
    if let Some(summary) = table_id.map(|id| summary(conn, id)).transpose()?.flatten() {
        let columns = columns(conn, summary.id)?;
        let sample: Vec<Value> = rows(conn, summary.id, 5)?
            .into_iter()
            .map(|row| {
                let mut named = Map::new();
                named.insert("row_id".into(), row.row_id.into());
                for column in &columns {
                    named.insert(column.name.clone(), row.values[&column.id].clone());
                }
                Value::Object(named)
            })
            .collect();
        context.insert(
            "table".into(),
            serde_json::json!({
                "name": summary.name,
                "row_count": summary.row_count,
                "columns": columns,
                "filters": client.get("filters").cloned().unwrap_or(Value::Null),
                "sample_rows": sample,
            }),
        );
    }
    Ok(Value::Object(context))
}
