//! Shared helpers for the workspace tests: the registry with the built-in types and the
//! example apps linked in, and access to the shared corpus of real model outputs.
//!
//! The README's example and the Rust examples of the guide's pages (`docs/guide.md`,
//! `docs/serve.md`) are compiled as doctests of this crate, so they cannot drift from
//! the code.

#![doc = include_str!("../README.md")]

// The guide's pages, compiled and run as doctests like the README, so that no example
// in them stops compiling unseen. Hidden: they are pages of the repository, not of
// this crate's docs. Their examples register pages at link time, so each is marked
// `standalone_crate`: merged into one doctest binary they would share one registry
// and conflict.
#[doc = include_str!("../docs/guide.md")]
#[doc(hidden)]
mod guide {}
#[doc = include_str!("../docs/serve.md")]
#[doc(hidden)]
mod serve {}

use payload_core::ParsedResponse;
use std::path::PathBuf;

// Linked so that their registrations are in the global registry.
use chat_architecture as _;
use contacts_bridge as _;
use output_schema as _;
use payload_builtin as _;
use selfhelp as _;
use structured_rag as _;
use table_that as _;

/// Parses `text` as a response on `page` with the global registry.
///
/// # Panics
/// If the page is not registered (a test bug).
pub fn parse(page: &str, text: &str) -> ParsedResponse {
    payload_registry::parse_response(page, text).expect("page is registered")
}

/// The folder of real LLM outputs, if it is present beside the repository.
pub fn corpus_dir(name: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus")
        .join(name);
    dir.is_dir().then_some(dir)
}

/// How many cases a property test runs: `PROPTEST_CASES` when set (for long runs:
/// `PROPTEST_CASES=50000`), else `default`.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
