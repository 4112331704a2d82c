//! anthropic-strict: the subset Anthropic's structured outputs enforce
//! (`output_config.format` json_schema, and tools with `strict: true`): the openai-strict
//! shape (closed objects, every member required), `pattern` and the string formats of
//! its documented list, and `minItems` of 0 or 1 only. Numeric bounds, string lengths
//! and other array sizes are not enforced: [`super::native`] leaves them out and lists
//! them.

use super::native::is_numeric;
use serde_json::Value;

/// The string formats Anthropic enforces.
pub const STRING_FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Whether anthropic-strict enforces the narrowing `keyword` with `value` in `node`.
pub fn enforces(keyword: &str, value: &Value, node: &Value) -> bool {
    match keyword {
        "pattern" => true,
        "format" => {
            !is_numeric(node) && value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f))
        }
        "minItems" => value.as_u64().is_some_and(|n| n <= 1),
        _ => false,
    }
}
