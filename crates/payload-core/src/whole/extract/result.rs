//! The result of whole-response parsing (docs/spec.md §4): a file below the readers
//! that make it (`crate::whole::extract` and its fallback and policy), which all name
//! it.

use crate::error::PayloadError;
use crate::payload::LlmPayload;
use crate::typed::AnyPayload;
use crate::warning::Warning;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::sync::Arc;

/// The standard result of whole-response parsing, serialized as docs/spec.md §4 shows:
/// `{success: true, data, format, confidence, warnings}` or
/// `{success: false, errors, partial_data, format, confidence}`.
#[derive(Debug, Clone)]
pub struct ExtractResult {
    /// Whether `data` holds a valid value.
    pub success: bool,
    /// The valid value (when `success`).
    pub data: Option<Value>,
    /// Every problem found (when not `success`).
    pub errors: Vec<PayloadError>,
    /// What could be read, valid or not (when not `success`).
    pub partial_data: Option<Value>,
    /// The format the response was read as.
    pub format: String,
    /// How sure the reader is of the format (0..1).
    pub confidence: f64,
    /// What was repaired or coerced.
    pub warnings: Vec<Warning>,
    /// The model's reasoning (docs/spec.md §9.1): the `<think>`, `<thinking>` or `<reasoning>`
    /// sections before the answer, removed before the format is detected and the value
    /// read. `None` (and left out of the JSON) when there is none.
    pub reasoning: Option<String>,
    /// The valid value as validation decoded it, for `extract` to hand over without
    /// decoding again.
    pub(super) typed: Option<AnyPayload>,
}

impl PartialEq for ExtractResult {
    fn eq(&self, other: &Self) -> bool {
        self.success == other.success
            && self.data == other.data
            && self.errors == other.errors
            && self.partial_data == other.partial_data
            && self.format == other.format
            && self.confidence == other.confidence
            && self.warnings == other.warnings
            && self.reasoning == other.reasoning
    }
}

impl Serialize for ExtractResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("success", &self.success)?;
        if self.success {
            map.serialize_entry("data", &self.data)?;
        } else {
            map.serialize_entry("errors", &self.errors)?;
            map.serialize_entry("partial_data", &self.partial_data)?;
        }
        map.serialize_entry("format", &self.format)?;
        map.serialize_entry("confidence", &self.confidence)?;
        if self.success {
            map.serialize_entry("warnings", &self.warnings)?;
        }
        if let Some(reasoning) = &self.reasoning {
            map.serialize_entry("reasoning", reasoning)?;
        }
        map.end()
    }
}

impl ExtractResult {
    /// A failure with `errors` and nothing readable.
    pub fn failure(format: &str, confidence: f64, errors: Vec<PayloadError>) -> Self {
        ExtractResult {
            success: false,
            data: None,
            errors,
            partial_data: None,
            format: format.to_string(),
            confidence,
            warnings: Vec::new(),
            reasoning: None,
            typed: None,
        }
    }

    /// A success: `data` is valid, `warnings` say what was repaired or coerced.
    pub fn success(data: Value, format: &str, confidence: f64, warnings: Vec<Warning>) -> Self {
        ExtractResult {
            success: true,
            data: Some(data),
            errors: Vec::new(),
            partial_data: None,
            format: format.to_string(),
            confidence,
            warnings,
            reasoning: None,
            typed: None,
        }
    }

    /// Forgets the decoded value (the result no longer holds a valid one).
    pub(crate) fn clear_typed(&mut self) {
        self.typed = None;
    }

    /// The data as `T` (when successful).
    pub fn decode<T: LlmPayload>(&self) -> Option<T> {
        self.data.as_ref().and_then(|d| T::deserialize(d).ok())
    }
}

impl ExtractResult {
    /// The value validation decoded, as a `T` (taken out of the result), or a decode
    /// of `data` when validation kept none; `None` when it is no `T`.
    pub(crate) fn take_typed<T: LlmPayload>(&mut self) -> Option<T> {
        let typed = self
            .typed
            .take()
            .and_then(|typed| typed.downcast::<T>().ok())
            .and_then(|typed| Arc::try_unwrap(typed).ok());
        typed.or_else(|| self.decode())
    }
}
