//! anthropic-strict: Anthropic structured outputs (`output_config.format`, strict
//! tools). It enforces `pattern` and the string formats of its documented list, and
//! `minItems` of 0 or 1 only; numeric bounds, string lengths and other array sizes are
//! not enforced.

use serde_json::Value;

/// The string formats Anthropic enforces.
const STRING_FORMATS: [&str; 10] = [
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

/// Whether anthropic-strict enforces `keyword` with `value` in `node`.
pub(super) fn enforces(keyword: &str, value: &Value, node: &Value) -> bool {
    match keyword {
        "format" if super::is_numeric(node) => false,
        "format" => value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f)),
        "minItems" => value.as_u64().is_some_and(|n| n <= 1),
        _ => false,
    }
}
