//! A payload type that accepts any JSON value, so whole-response extraction can be run
//! on text whose shape no schema describes.

use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Any JSON value; its schema is `true`, so validation never fails and nothing is
/// coerced: what extraction returns is what it read.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct AnyJson(pub Value);

impl LlmPayload for AnyJson {
    const NAME: &'static str = "any_json";
    const MARKER: &'static str = "ANY_JSON";
    const DESCRIPTION: &'static str = "Any JSON value.";
}

/// Reads `text` as one whole response of any JSON value: `Ok(value)` when extraction
/// succeeds, or its errors, as `kind: message` lines, when it refuses.
pub fn extract(text: &str) -> Result<Value, String> {
    let result = payload_core::extract_json(text, &AnyJson::TYPE);
    // A success without data (or the reverse) would be a broken result.
    assert_eq!(result.success, result.data.is_some(), "{text:?}");
    result.data.ok_or_else(|| {
        let errors: Vec<String> = result
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.kind(), e.message()))
            .collect();
        errors.join("; ")
    })
}
