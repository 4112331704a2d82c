//! openai-strict: OpenAI Structured Outputs with `strict: true`. It enforces string
//! `pattern`, the string formats of its documented list, numeric bounds and array
//! sizes; an integer `format` is kept, since the strict rewrite turns it into exact
//! bounds.

use serde_json::Value;

/// The string formats OpenAI enforces.
const STRING_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Whether openai-strict enforces `keyword` with `value` in `node` (for the keywords
/// the table marks as depending on their value).
pub(super) fn enforces(keyword: &str, value: &Value, node: &Value) -> bool {
    match keyword {
        "format" if super::is_numeric(node) => true,
        "format" => value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f)),
        _ => false,
    }
}
