//! The output-schema app's `x-parsing`: how strictly a type's whole responses are read, stated in
//! its schema, so a schema file (or a derived type's `#[schemars(extend("x-parsing" =
//! ...))]`) carries it. Read once, when the schema is compiled.
//!
//! | `x-parsing` | effect |
//! |---|---|
//! | `format-detection.strategies` | detection considers only these formats (a format the caller names still wins) |
//! | `format-detection.enabled: false` | detection off: the response is read as JSON unless the caller names a format |
//! | `error-recovery.mode: "strict"` | JSON that needs repair is refused (a parsing error naming the repairs) |
//! | `error-recovery.type-coercion: false` | values are not coerced toward the schema |
//! | `error-recovery.partial-results: false` | a failure carries no `partial_data` |
//! | `validation.additional-properties` | `allow`: unknown members pass silently; `warn` (the default): an `unknown_member` warning; `error`: they fail the value |
//! | `validation.required-enforcement` | `error` (the default); `warn`: a missing required member is a warning and the value is accepted; `ignore`: not reported |
//!
//! `lenient` and `aggressive` recovery both repair and coerce (the default): every
//! repair this library makes is reported, so there is no riskier tier to opt into.
//! These apply to whole-response mode; marker mode has its own rules (docs/spec.md §1).

use crate::formats::Format;
use serde_json::Value;

/// What to do with members the schema does not declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Additional {
    Allow,
    Warn,
    Error,
}

/// What to do with a required member that is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Required {
    Error,
    Warn,
    Ignore,
}

/// A type's `x-parsing`, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsingPolicy {
    /// The formats detection may choose; `None`: all.
    pub formats: Option<Vec<Format>>,
    /// Whether malformed JSON is repaired.
    pub repair: bool,
    /// Whether values are coerced toward the schema.
    pub coerce: bool,
    /// Whether a failure carries what could be read.
    pub partial: bool,
    pub additional: Additional,
    pub required: Required,
}

impl Default for ParsingPolicy {
    fn default() -> Self {
        ParsingPolicy {
            formats: None,
            repair: true,
            coerce: true,
            partial: true,
            additional: Additional::Warn,
            required: Required::Error,
        }
    }
}

impl ParsingPolicy {
    /// The policy `schema["x-parsing"]` states; values it does not know (checked for
    /// runtime types when they are made) leave the default.
    pub(crate) fn from_schema(schema: &Value) -> ParsingPolicy {
        let mut policy = ParsingPolicy::default();
        let Some(parsing) = schema.get("x-parsing") else {
            return policy;
        };
        let text = |section: &str, key: &str| parsing.get(section)?.get(key)?.as_str();
        let switch = |section: &str, key: &str| parsing.get(section)?.get(key)?.as_bool();
        let detection = parsing.get("format-detection");
        if detection
            .and_then(|d| d.get("enabled"))
            .and_then(Value::as_bool)
            == Some(false)
        {
            policy.formats = Some(vec![Format::Json]);
        } else if let Some(list) = detection
            .and_then(|d| d.get("strategies"))
            .and_then(Value::as_array)
        {
            let formats: Vec<Format> = list
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|f| f.parse().ok())
                .collect();
            if !formats.is_empty() {
                policy.formats = Some(formats);
            }
        }
        policy.repair = text("error-recovery", "mode") != Some("strict");
        policy.coerce = switch("error-recovery", "type-coercion").unwrap_or(true);
        policy.partial = switch("error-recovery", "partial-results").unwrap_or(true);
        policy.additional = match text("validation", "additional-properties") {
            Some("allow") => Additional::Allow,
            Some("error") => Additional::Error,
            _ => Additional::Warn,
        };
        policy.required = match text("validation", "required-enforcement") {
            Some("warn") => Required::Warn,
            Some("ignore") => Required::Ignore,
            _ => Required::Error,
        };
        policy
    }

    /// Whether detection may choose `format`.
    pub(crate) fn allows(&self, format: Format) -> bool {
        self.formats
            .as_ref()
            .is_none_or(|formats| formats.contains(&format))
    }
}
