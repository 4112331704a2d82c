//! table.that's own routes beside the chat server's: the user's tables and rows, and
//! a table as CSV (the `export_csv` action's download).

use crate::tables::{self, Column, Row, TableSummary};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use payload_serve::{ApiError, AppState, Path, Shared};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// The routes: `GET /api/tables`, `/api/tables/{id}` and `/api/tables/{id}/csv`.
pub fn router() -> Router<Shared> {
    Router::new()
        .route("/api/tables", get(list_tables))
        .route("/api/tables/{id}", get(table))
        .route("/api/tables/{id}/csv", get(table_csv))
}

/// How many rows a table view shows.
const MAX_ROWS: usize = 1000;

/// The tables list.
#[derive(Debug, Serialize)]
pub struct TablesBody {
    /// Every table with its row count, oldest first.
    pub tables: Vec<TableSummary>,
}

/// One table.
#[derive(Debug, Serialize)]
pub struct TableBody {
    /// Its name, description and row count.
    pub table: TableSummary,
    /// Its columns, in order.
    pub columns: Vec<Column>,
    /// Its first rows (at most 1000).
    pub rows: Vec<Row>,
}

/// `GET /api/tables`: every table with its row count.
pub async fn list_tables(State(state): State<Arc<AppState>>) -> Result<Json<TablesBody>, ApiError> {
    let tables = state.db.with_sqlite(tables::list).await??;
    Ok(Json(TablesBody { tables }))
}

/// `GET /api/tables/{id}`: a table, its columns and its rows.
pub async fn table(
    State(state): State<Arc<AppState>>,
    Path(id): Path<i64>,
) -> Result<Json<TableBody>, ApiError> {
    state
        .db
        .with_sqlite(move |conn| {
            let summary =
                tables::summary(conn, id)?.ok_or_else(|| ApiError::not_found("no such table"))?;
            Ok(Json(TableBody {
                table: summary,
                columns: tables::columns(conn, id)?,
                rows: tables::rows(conn, id, MAX_ROWS)?,
            }))
        })
        .await?
}

/// `GET /api/tables/{id}/csv`: the table as CSV, for `export_csv`. A text cell that a
/// spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, carriage return first)
/// gets a leading `'`: the values came from a model and must not run in the user's
/// spreadsheet. Numbers are written as they are: `-5` is a number, not a formula.
pub async fn table_csv(
    State(state): State<Arc<AppState>>,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let (summary, columns, rows) = state
        .db
        .with_sqlite(move |conn| {
            let summary =
                tables::summary(conn, id)?.ok_or_else(|| ApiError::not_found("no such table"))?;
            Ok::<_, ApiError>((
                summary,
                tables::columns(conn, id)?,
                tables::rows(conn, id, usize::MAX)?,
            ))
        })
        .await??;
    let mut writer = csv::Writer::from_writer(Vec::new());
    let write_error = |e: csv::Error| ApiError::internal(e.to_string());
    writer
        .write_record(columns.iter().map(|c| defuse(&c.name)))
        .map_err(write_error)?;
    for row in &rows {
        writer
            .write_record(columns.iter().map(|c| cell(&row.values[&c.id])))
            .map_err(write_error)?;
    }
    let body = writer
        .into_inner()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let file = format!("{}.csv", file_name(&summary.name));
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
        ],
        body,
    )
        .into_response())
}

/// A stored value as a CSV cell: text defused, numbers as written.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => defuse(s),
        Value::Number(n) => n.to_string(),
        other => defuse(&other.to_string()),
    }
}

/// The cell as a spreadsheet will show it, never as a formula.
fn defuse(cell: &str) -> String {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}"),
        _ => cell.to_string(),
    }
}

/// A table name as a file name: letters, digits, spaces, `-` and `_` kept, the rest
/// dropped (a name from a model must not smuggle a path or a quote into the header).
fn file_name(name: &str) -> String {
    let kept: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .take(80)
        .collect();
    let words: Vec<&str> = kept.split_whitespace().collect();
    if words.is_empty() {
        "table".to_string()
    } else {
        words.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::{cell, defuse, file_name};
    use serde_json::{Value, json};

    #[test]
    fn cells_a_spreadsheet_would_run_are_defused() {
        for formula in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(defuse(formula), format!("'{formula}"));
        }
        assert_eq!(defuse("plain = text"), "plain = text");
        assert_eq!(defuse(""), "");
    }

    #[test]
    fn numbers_are_never_defused_text_always_is() {
        assert_eq!(cell(&json!(-5)), "-5");
        assert_eq!(cell(&json!(-0.5)), "-0.5");
        assert_eq!(cell(&json!(3)), "3");
        assert_eq!(
            cell(&json!("-5")),
            "'-5",
            "text that looks like a number is text"
        );
        assert_eq!(cell(&json!("=1")), "'=1");
        assert_eq!(cell(&Value::Null), "");
    }

    #[test]
    fn file_names_keep_only_plain_characters() {
        assert_eq!(file_name("Job Applications"), "Job Applications");
        assert_eq!(file_name("../../etc/passwd\""), "etcpasswd");
        assert_eq!(file_name("\"\r\n"), "table");
    }
}
