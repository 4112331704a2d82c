//! gemini: Gemini's `responseJsonSchema`. It enforces numeric `minimum` / `maximum`,
//! array sizes, and the `date-time`, `date` and `time` string formats; not `pattern`,
//! string lengths or exclusive bounds.

use serde_json::Value;

/// The string formats Gemini enforces.
const STRING_FORMATS: [&str; 3] = ["date-time", "date", "time"];

/// Whether gemini enforces `keyword` with `value` in `node`.
pub(super) fn enforces(keyword: &str, value: &Value, node: &Value) -> bool {
    match keyword {
        "format" if super::is_numeric(node) => false,
        "format" => value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f)),
        _ => false,
    }
}
