//! # SelfHelp
//!
//! The SelfHelp LLM plugin (SelfHelp): every answer is one JSON object, the
//! [`SelfHelpResponse`], validated against its schema and the seed's rules, with up to
//! three attempts and specific feedback ([`payload_core::retry::retry()`]). Its schema is
//! published as draft-07 (`payload schema selfhelp_response --dialect draft-07`).
//!
//! The plugin can also start as the original SelfHelp plugin does, loading its schema from
//! `schemas/llm-response.schema.json` ([`schema_file`]); it then reads every response
//! exactly as the compiled-in type does (the tests run both ways).
//!
//! Rules beyond the schema (from the seed's text, written down as checks):
//! - at least one text block (also in the schema);
//! - form field ids are unique; radio/checkbox/select fields have non-empty options;
//!   scale fields have `min` and `max` with `min < max`;
//! - `is_safe` is false exactly when `danger_level` is `critical` or `emergency`;
//!   a danger level names at least one concern; critical and emergency require
//!   intervention and a `safety_message`;
//! - suggestions are `{"text": ...}` objects (strings or `label` objects are rejected).

#![forbid(unsafe_code)]

pub mod demo;
pub mod examples;
mod rules;
pub mod schema_file;
mod types;

pub use types::*;
