//! # contacts-bridge
//!
//! The LLM database bridge of the contacts bridge: the model turns a user's request about their
//! contacts into one JSON command, `{"intent": ..., "parameters": {...}, "confidence":
//! ..., "reasoning": ...}`, read in whole-response mode as a [`ContactsCommand`].
//!
//! The intents are one enum, [`Command`], adjacently tagged (`intent` + `parameters`)
//! and flattened into the command beside the optional `confidence` and `reasoning`, so
//! the schema is a `oneOf` whose branches the validator tells apart by `intent`: a
//! command with a known intent and wrong parameters gets errors for that intent only,
//! at paths inside `/parameters`. Every parameter struct denies unknown members (the
//! seed's "don't invent fields"), and the command as a whole allows no members beyond
//! the four (`unevaluatedProperties: false`).
//!
//! Rules beyond the schema ([`rules`]): `filter_value` is required for `add_filter` and
//! must have the filter's type; `selection_value` must match `selection_type`; ranges
//! run forward.

#![forbid(unsafe_code)]

pub mod examples;
pub mod rules;
mod types;

pub use types::*;
