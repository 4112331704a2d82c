//! # payload-schema
//!
//! JSON Schema as the payload crates read and write it, on `serde_json` values alone
//! (as `regex-syntax` is to `regex`: the part every other crate builds on, public and
//! usable by itself).
//!
//! - [`walk`]: `$ref` resolution and the sub-schema that governs a member, an item or a
//!   JSON Pointer;
//! - [`dialect`]: the dialects ([`dialect::Dialect`]): 2020-12, draft-07 and OpenAI's strict
//!   subset, one module each, and the conversions between them;
//! - [`keywords`]: the one table of what each keyword is (annotation, document, or a
//!   holder of sub-schemas);
//! - [`formats`]: the integer widths schemars writes and the ranges they stand for;
//! - [`limits`]: how deep each schema walk goes, one name per meaning;
//! - [`pointer`](mod@pointer): JSON Pointer tokens, escaped and joined;
//! - [`document`]: checks of a hand-written schema document.
//!
//! It depends on no other payload crate; `payload-core`, `payload-grammar`,
//! `payload-prompt` and `payload-providers` use it (see `ARCHITECTURE.md`).

#![forbid(unsafe_code)]

pub mod dialect;
pub mod document;
pub mod formats;
pub mod keywords;
pub mod limits;
pub mod pointer;
pub mod walk;
