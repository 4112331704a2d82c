//! # structured-rag
//!
//! The eight JSON outputs the StructuredRAG benchmark asks models for, as payload types,
//! and an evaluation (`evaluate`) of whole-response extraction on the benchmark's
//! recorded responses (`../shared/corpus/structured-rag`), compared with strict parsing
//! (serde_json on the whole response, then the same validation).

#![forbid(unsafe_code)]

mod evaluate;
mod types;

pub use evaluate::{Outcome, Tally, evaluate_file, responses_of, strict, type_for_test};
pub use types::*;
