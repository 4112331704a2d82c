//! gemini: the subset Gemini's `responseJsonSchema` enforces: numeric `minimum` and
//! `maximum`, array sizes, and the `date-time`, `date` and `time` string formats. Not
//! `pattern`, string lengths, exclusive bounds or `multipleOf`: [`super::native`] leaves
//! them out and lists them. The openai-strict shape (closed objects, every member
//! required, `null` for an optional one) is accepted as it is.

use super::native::is_numeric;
use serde_json::Value;

/// The string formats Gemini enforces.
pub const STRING_FORMATS: [&str; 3] = ["date-time", "date", "time"];

/// Whether gemini enforces the narrowing `keyword` with `value` in `node`.
pub fn enforces(keyword: &str, value: &Value, node: &Value) -> bool {
    match keyword {
        "minimum" | "maximum" | "minItems" | "maxItems" => true,
        "format" => {
            !is_numeric(node) && value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f))
        }
        _ => false,
    }
}
