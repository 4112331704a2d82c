//! # payload-core
//!
//! The runtime half of the framework: everything that turns a model's free text into
//! typed, validated values, with no link-time registration and no knowledge of pages.
//!
//! - [`LlmPayload`] is what `#[derive(LlmPayload)]` implements; [`PayloadType`] is its
//!   type-erased descriptor, and also the descriptor of a type known only at run time,
//!   from a JSON Schema document ([`PayloadType::from_schema`], the [`runtime`] module).
//! - [`parse()`] finds marker blocks (`SCHEMA_PROPOSAL: {...}`) in a response, extracts,
//!   repairs and validates them, and returns a [`ParsedResponse`] (docs/spec.md §1).
//! - [`PayloadError`] and [`Warning`] are the data an application (or a model, after a
//!   re-prompt) acts on.
//!
//! What is hand-written here is what is specific to LLM text: recognising a marker the
//! way models write it (emphasis, headings, fences, quotes), balanced extraction that
//! survives prose around the JSON, and the message that is left when the blocks are
//! removed. Everything generic is a well-kept crate: `aho-corasick` finds all markers in
//! one pass, `serde_json` parses, `schemars` writes schemas and `jsonschema` checks them.
//!
//! ## Layout
//!
//! The public API is this page: the items re-exported here, and the [`formats`],
//! [`instructions`], [`runtime`], [`stream`] and [`sse`] modules. The folders inside follow the
//! pipeline, and everything in them is crate-private:
//!
//! - `scan`: cutting a response into prose and blocks (marker table, recogniser, the one
//!   value scanner every mode shares, quote and fence rules);
//! - `json`: reading one block as JSON, strict first, then repaired (`json::repair`);
//! - `validate`: checking a value against a type (schema, undeclared members, numbers,
//!   the type's own rules) and, in whole-response mode, coercing it;
//! - `marker`: marker mode, the [`Parser`] and what it returns;
//! - `whole`: whole-response mode, [`extract`] and the [`formats`];
//! - `stream`: the [`StreamParser`] over the same segmenter, and SSE encoding;
//! - `schema`: schemas in each [`Dialect`] (with OpenAI's strict subset,
//!   [`PayloadType::strict_schema`] and [`StrictRefusal`]) and the compiled validator.

#![forbid(unsafe_code)]
// `PayloadError` is returned by value on purpose: errors are data the caller inspects
// and forwards, and they are built off the hot path (only when input is wrong).
#![allow(clippy::result_large_err)]

// The pipeline, in the order text flows through it. Everything inside is `pub(crate)`;
// what a user names is re-exported below, so the public API is this file.
mod caps;
mod derived;
mod error;
pub mod fence;
mod json;
mod limits;
mod marker;
mod nullable;
mod partial;
mod payload;
mod reprompt;
mod retry;
pub mod runtime;
mod runtime_check;
mod scan;
mod schema;
mod summary;
mod typed;
mod validate;
mod warning;
mod whole;

pub mod instructions;
pub mod stream;

pub use caps::{MAX_ERRORS, MAX_WARNINGS};
pub use error::{ErrorKind, Location, PayloadError};
pub use limits::{DEFAULT_MAX_INPUT_BYTES, Limits, MAX_DEPTH};
pub use marker::parse::{ParseOptions, Parser, parse};
pub use marker::response::{Missed, ParsedResponse, Rejected};
pub use marker::suggestions::{
    ActionSpec, Handler, SUGGESTED_ACTIONS_MARKER, SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_MARKER,
    SUGGESTED_VALUES_NAME, SuggestedAction, SuggestedValue,
};
pub use nullable::Nullable;
#[doc(hidden)]
pub use partial::__private as __partial;
pub use partial::{Cursor, Growing, PartialType};
pub use payload::{CustomPayload, LlmPayload, PayloadType};
/// `#[derive(LlmPayload)]`: the marker, schema, instructions and summarizer of a type
/// from one declaration (see the `payload-derive` crate).
#[cfg(feature = "derive")]
pub use payload_derive::LlmPayload;
/// `#[derive(Partial)]`: the partial form ([`PartialType`]) of a type a partial payload
/// holds (see the `payload-derive` crate).
#[cfg(feature = "derive")]
pub use payload_derive::Partial;
pub use payload_schema::dialect::Dialect;
pub use payload_schema::dialect::openai_strict::{StrictRefusal, StrictRefusalKind};
pub use reprompt::reprompt_message;
pub use retry::{
    Attempt, AttemptOutcome, RetryOutcome, RetryPolicy, RetryRequest, retry, retry_async,
};
pub use runtime::{Rules, RuntimeOptions, SchemaError, SchemaProblem};
pub use schema::Shape;
pub use stream::sse::{self, ServerSentEvent};
pub use stream::{StreamEvent, StreamParser};
pub use summary::default_summary;
pub use warning::{Warning, WarningKind};
pub use whole::extract::{ExtractResult, extract, extract_as, extract_as_with, extract_json};
pub use whole::formats;

/// Re-exported so that generated code and users name one version of each.
pub use schemars;
pub use serde_json;

/// What `#[derive(LlmPayload)]` expands to needs; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::summary::fill_template;
    pub use crate::validate::variant::variant_errors;
    pub use schemars::JsonSchema;
    pub use serde::Serialize;
    pub use serde::de::DeserializeOwned;
    pub use serde_json::to_value;
}

/// The machinery under the public API, reachable only with the `internals` feature, for
/// this workspace's invariant tests, fuzz targets and benches (which check the scanner
/// and the JSON reader on their own). Not a public API: no stability promise.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    /// The JSON reader: strict, then repaired.
    pub mod json {
        pub use crate::json::{Decoded, decode};
    }
    /// Where each JSON Pointer's value starts in a JSON text.
    pub mod locate {
        pub use crate::json::locate::locate;
    }
    /// The lenient (repairing) JSON reader on its own.
    pub mod repair {
        pub use crate::json::repair::parse_lenient;
    }
    /// Where a value that starts at a bracket ends, by the scanner every mode shares.
    pub mod balanced {
        pub use crate::scan::balanced::{Balanced, scan};
    }
    /// `$ref` resolution in a schema.
    pub mod schema_walk {
        pub use payload_schema::walk::resolve;
    }
}
