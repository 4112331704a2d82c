//! CURRENT CONTEXT builders: what the model is told about the user's tables.
//!
//! Every name, option and value here was written by the user or by a model, so each is
//! written by the prompt's one rule for data (`payload_prompt::data`): a quoted string
//! on one line, which cannot forge a section or a marker. Ids are the app's own.

use payload_prompt::data::{json_line, name as id, quote};
use serde_json::Value;

/// The user's tables, by name and row count.
pub fn tables_list(context: &Value) -> String {
    let tables = context.get("tables").and_then(Value::as_array);
    match tables {
        Some(tables) if !tables.is_empty() => {
            let mut out = String::from("The user's tables:\n");
            for table in tables {
                let name = table.get("name").and_then(Value::as_str).unwrap_or("?");
                let rows = table.get("row_count").and_then(Value::as_u64).unwrap_or(0);
                out.push_str(&format!("- {} ({rows} rows)\n", quote(name)));
            }
            out
        }
        _ => "The user has no tables yet.".to_string(),
    }
}

/// The current table: its columns (with ids), row count, filters and sample rows.
pub fn table(context: &Value) -> String {
    let Some(table) = context.get("table") else {
        return "No table is open.".to_string();
    };
    let name = table.get("name").and_then(Value::as_str).unwrap_or("?");
    let mut out = format!("Current table: {}\n", quote(name));
    if let Some(rows) = table.get("row_count").and_then(Value::as_u64) {
        out.push_str(&format!("Rows: {rows}\n"));
    }
    if let Some(columns) = table.get("columns").and_then(Value::as_array) {
        out.push_str("Columns:\n");
        for column in columns {
            let column_id = column.get("id").and_then(Value::as_str).unwrap_or("?");
            let name = column.get("name").and_then(Value::as_str).unwrap_or("?");
            let kind = column.get("type").and_then(Value::as_str).unwrap_or("text");
            out.push_str(&format!(
                "- {}: {} ({})",
                id(column_id),
                quote(name),
                id(kind)
            ));
            if let Some(options) = column.get("options").and_then(Value::as_array) {
                let options: Vec<String> = options
                    .iter()
                    .filter_map(Value::as_str)
                    .map(quote)
                    .collect();
                out.push_str(&format!(" options: {}", options.join(", ")));
            }
            out.push('\n');
        }
    }
    if let Some(filters) = table.get("filters").filter(|f| !f.is_null()) {
        out.push_str(&format!("Active filters: {}\n", json_line(filters)));
    }
    if let Some(sample) = table.get("sample_rows").and_then(Value::as_array) {
        out.push_str("Sample rows:\n");
        for row in sample {
            out.push_str(&format!("- {}\n", json_line(row)));
        }
    }
    out
}
