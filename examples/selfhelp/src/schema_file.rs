//! SelfHelp's way of starting: the response schema is loaded from
//! `schemas/llm-response.schema.json` (draft-07) when the plugin starts, not compiled
//! in. [`load`] reads a schema file into a runtime payload type with the seed's rules
//! ([`rules`]) attached, so it reads every response exactly as [`SelfHelpResponse`]
//! does; [`from_file`] is the plugin's own file, loaded once.
//!
//! The file is the derived type's draft-07 schema (`payload schema selfhelp_response
//! --dialect draft-07`); a test keeps the two equal, so the plugin behaves the same
//! whichever way it starts.

use crate::SelfHelpResponse;
use payload_core::{
    LlmPayload, PayloadError, PayloadType, runtime::RuntimeOptions, runtime::SchemaError,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The plugin's schema file.
pub fn path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/llm-response.schema.json")
}

/// Why a schema file could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read.
    Read(std::io::Error),
    /// It is not JSON.
    Json(serde_json::Error),
    /// It is JSON but cannot be a payload type.
    Schema(SchemaError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The cause is the error's `source()`, printed once by whoever reports
            // the chain ([`LoadError::chain`]).
            LoadError::Read(_) => f.write_str("cannot read the schema file"),
            LoadError::Json(_) => f.write_str("the schema file is not JSON"),
            LoadError::Schema(e) => write!(f, "{e}"),
        }
    }
}

impl LoadError {
    /// The error and each of its causes, `: ` between them.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            text.push_str(": ");
            text.push_str(&error.to_string());
            cause = error.source();
        }
        text
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Read(error) => Some(error),
            LoadError::Json(error) => Some(error),
            // Its message is the whole of this one's: what it wraps is its own cause.
            LoadError::Schema(error) => std::error::Error::source(error),
        }
    }
}

/// Loads a SelfHelp response schema from `path` as a payload type named
/// `selfhelp_response`, with the seed's rules beyond the schema.
pub fn load(path: &Path) -> Result<&'static PayloadType, LoadError> {
    let text = std::fs::read_to_string(path).map_err(LoadError::Read)?;
    let schema: Value = serde_json::from_str(&text).map_err(LoadError::Json)?;
    let options = RuntimeOptions {
        name: Some("selfhelp_response".into()),
        marker: Some("SELFHELP_RESPONSE".into()),
        rules: Some(rules),
        // The words that teach what `rules` checks, as the compiled-in type has them.
        rule_text: SelfHelpResponse::RULES
            .iter()
            .map(|r| r.to_string())
            .collect(),
        ..RuntimeOptions::default()
    };
    PayloadType::from_schema(&schema, options).map_err(LoadError::Schema)
}

/// The plugin's own schema file, loaded once.
///
/// # Panics
/// If the file shipped with the plugin does not load (a test guards it).
pub fn from_file() -> &'static PayloadType {
    static TYPE: OnceLock<&'static PayloadType> = OnceLock::new();
    TYPE.get_or_init(|| load(&path()).unwrap_or_else(|e| panic!("{}", e.chain())))
}

/// The seed's rules on a value the schema accepted: the same checks
/// [`SelfHelpResponse`] runs, on the JSON.
pub fn rules(value: &Value) -> Vec<PayloadError> {
    match serde_json::from_value::<SelfHelpResponse>(value.clone()) {
        Ok(response) => crate::rules::check(&response),
        Err(error) => vec![
            PayloadError::validation("", format!("the value does not decode: {error}"))
                .with_suggestion("follow the schema exactly"),
        ],
    }
}
