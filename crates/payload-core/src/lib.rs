//! # payload-core
//!
//! The runtime half of the framework: everything that turns a model's free text into
//! typed, validated values, with no link-time registration and no knowledge of pages.
//!
//! - [`LlmPayload`] is what `#[derive(LlmPayload)]` implements; [`PayloadType`] is its
//!   type-erased descriptor.
//! - [`parse()`] finds marker blocks (`SCHEMA_PROPOSAL: {...}`) in a response, extracts,
//!   repairs and validates them, and returns a [`ParsedResponse`] (SPEC section 1).
//! - [`PayloadError`] and [`Warning`] are the data an application (or a model, after a
//!   re-prompt) acts on.
//!
//! What is hand-written here is what is specific to LLM text: recognising a marker the
//! way models write it (emphasis, headings, fences, quotes), balanced extraction that
//! survives prose around the JSON, and the message that is left when the blocks are
//! removed. Everything generic is a well-kept crate: `aho-corasick` finds all markers in
//! one pass, `serde_json` parses, `schemars` writes schemas and `jsonschema` checks them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// `PayloadError` is returned by value on purpose: errors are data the caller inspects
// and forwards, and they are built off the hot path (only when input is wrong).
#![allow(clippy::result_large_err)]

pub mod balanced;
pub mod caps;
pub mod check;
pub mod coerce;
pub mod error;
pub mod extract;
pub mod formats;
pub mod instructions;
pub mod json;
pub mod limits;
pub mod locate;
mod members;
mod message;
pub mod nullable;
mod numbers;
pub mod parse;
pub mod payload;
pub mod repair;
pub mod reprompt;
pub mod response;
pub mod retry;
mod scan;
pub mod schema;
mod schema_errors;
pub mod schema_walk;
pub mod sse;
pub mod stream;
pub mod suggestions;
pub mod summary;
mod variant;
pub mod warning;

pub use caps::{MAX_ERRORS, MAX_WARNINGS};
pub use error::{ErrorKind, Location, PayloadError, pointer_join};
pub use extract::{ExtractResult, extract, extract_as, extract_as_with, extract_json};
pub use limits::Limits;
pub use nullable::Nullable;
pub use parse::{ParseOptions, Parser, parse};
pub use payload::{LlmPayload, PayloadType, Shape};
/// `#[derive(LlmPayload)]`: the marker, schema, instructions and summarizer of a type
/// from one declaration (see the `payload-derive` crate).
#[cfg(feature = "derive")]
pub use payload_derive::LlmPayload;
pub use reprompt::reprompt_message;
pub use response::{CustomPayload, ParsedResponse, Rejected};
pub use retry::{Attempt, RetryOutcome, RetryPolicy, RetryRequest, retry, retry_async};
pub use schema::Dialect;
pub use sse::ServerSentEvent;
pub use stream::{StreamEvent, StreamParser};
pub use suggestions::{
    ActionSpec, Handler, SUGGESTED_ACTIONS_MARKER, SUGGESTED_VALUES_MARKER, SuggestedAction,
    SuggestedValue,
};
pub use summary::default_summary;
pub use warning::{Warning, WarningKind};

/// Re-exported so that generated code and users name one version of each.
pub use schemars;
pub use serde_json;

/// What `#[derive(LlmPayload)]` expands to needs; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::summary::fill_template;
    pub use crate::variant::variant_errors;
    pub use schemars::JsonSchema;
    pub use serde::Serialize;
    pub use serde::de::DeserializeOwned;
    pub use serde_json::to_value;
}
