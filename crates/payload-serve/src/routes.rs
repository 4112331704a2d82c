//! The JSON API beside the chat: the user's tables and rows, a conversation as stored,
//! and the user's decision on a proposed payload.

use crate::apply::Applied;
use crate::error::ApiError;
use crate::state::AppState;
use crate::tables;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::LlmPayload;
use payload_prompt::PayloadStatus;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// How many rows a table view shows.
const MAX_ROWS: usize = 1000;

/// `GET /api/tables`: every table with its row count.
pub async fn list_tables(State(state): State<Arc<AppState>>) -> Result<Json<Value>, ApiError> {
    let tables = tables::list(&state.db.conn())?;
    Ok(Json(json!({ "tables": tables })))
}

/// `GET /api/tables/{id}`: a table, its columns and its rows.
pub async fn table(
    State(state): State<Arc<AppState>>,
    Path(id): Path<i64>,
) -> Result<Json<Value>, ApiError> {
    let conn = state.db.conn();
    let summary =
        tables::summary(&conn, id)?.ok_or_else(|| ApiError::not_found("no such table"))?;
    Ok(Json(json!({
        "table": summary,
        "columns": tables::columns(&conn, id)?,
        "rows": tables::rows(&conn, id, MAX_ROWS)?,
    })))
}

/// `GET /api/tables/{id}/csv`: the table as CSV, for `export_csv`. A cell that a
/// spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, carriage return first)
/// gets a leading `'`: the values came from a model and must not run in the user's
/// spreadsheet.
pub async fn table_csv(
    State(state): State<Arc<AppState>>,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let conn = state.db.conn();
    let summary =
        tables::summary(&conn, id)?.ok_or_else(|| ApiError::not_found("no such table"))?;
    let columns = tables::columns(&conn, id)?;
    let rows = tables::rows(&conn, id, usize::MAX)?;
    drop(conn);
    let mut writer = csv::Writer::from_writer(Vec::new());
    let write_error = |e: csv::Error| ApiError::internal(e.to_string());
    writer
        .write_record(columns.iter().map(|c| defuse(&c.name)))
        .map_err(write_error)?;
    for row in &rows {
        writer
            .write_record(columns.iter().map(|c| match &row.values[&c.id] {
                Value::Null => String::new(),
                Value::String(s) => defuse(s),
                other => defuse(&other.to_string()),
            }))
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

/// `GET /api/conversations/{id}`: the messages and payloads, to show it again.
pub async fn conversation(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let payloads: Vec<Value> = state
        .db
        .payloads(&id)?
        .into_iter()
        .map(|p| json!({ "turn": p.turn, "payload": p.payload, "status": p.status }))
        .collect();
    Ok(Json(json!({
        "conversation_id": id,
        "messages": state.db.messages(&id)?,
        "payloads": payloads,
    })))
}

/// What the user sends with a decision.
#[derive(Debug, Default, Deserialize)]
struct Decision {
    /// For a data proposal: the indices of the operations left ticked (all when absent).
    #[serde(default)]
    rows: Option<Vec<usize>>,
}

/// `POST /api/payloads/{conversation}/{turn}/{accept|dismiss}`: applies or dismisses
/// the payload proposed in that turn, and records the decision. A payload is decided
/// once; the payload applied is the one stored, not one the client sends.
pub async fn decide(
    State(state): State<Arc<AppState>>,
    Path((conversation, turn, decision)): Path<(String, usize, String)>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: Decision = if body.iter().all(u8::is_ascii_whitespace) {
        Decision::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?
    };
    let stored = state
        .db
        .payload(&conversation, turn)?
        .ok_or_else(|| ApiError::not_found("no payload was proposed in that turn"))?;
    if stored.status != PayloadStatus::Proposed {
        return Err(ApiError::conflict(format!(
            "the payload was already {}",
            stored.status
        )));
    }
    let (status, applied) = match decision.as_str() {
        "dismiss" => (PayloadStatus::Dismissed, None),
        "accept" => {
            let applied = accept(&state, &stored, request.rows.as_deref())?;
            (PayloadStatus::Accepted, applied)
        }
        other => return Err(ApiError::not_found(format!("no decision '{other}'"))),
    };
    state.db.set_status(&conversation, turn, status)?;
    Ok(Json(json!({ "status": status, "applied": applied })))
}

/// Applies the payload if it is one the app applies; others are only recorded.
fn accept(
    state: &AppState,
    stored: &crate::db::StoredPayload,
    rows: Option<&[usize]>,
) -> Result<Option<Applied>, ApiError> {
    let data = stored.payload.data().clone();
    let decode_error = |e: serde_json::Error| ApiError::internal(e.to_string());
    Ok(Some(match stored.payload.kind.as_str() {
        SchemaProposal::NAME => {
            let proposal: SchemaProposal = serde_json::from_value(data).map_err(decode_error)?;
            state.db.apply_schema(&proposal, stored.table_id)?
        }
        DataProposal::NAME => {
            let proposal: DataProposal = serde_json::from_value(data).map_err(decode_error)?;
            let table = stored
                .table_id
                .ok_or_else(|| ApiError::conflict("the proposal names no table"))?;
            state.db.apply_data(&proposal, table, rows)?
        }
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::{defuse, file_name};

    #[test]
    fn cells_a_spreadsheet_would_run_are_defused() {
        for formula in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(defuse(formula), format!("'{formula}"));
        }
        assert_eq!(defuse("plain = text"), "plain = text");
        assert_eq!(defuse(""), "");
    }

    #[test]
    fn file_names_keep_only_plain_characters() {
        assert_eq!(file_name("Job Applications"), "Job Applications");
        assert_eq!(file_name("../../etc/passwd\""), "etcpasswd");
        assert_eq!(file_name("\"\r\n"), "table");
    }
}
