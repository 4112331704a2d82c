//! # payload-derive
//!
//! `#[derive(LlmPayload)]`: implements `payload_core::LlmPayload` for a struct or an
//! enum from its doc comment and one `#[payload(...)]` attribute. The JSON Schema is
//! not generated here: it comes from the type's `JsonSchema` impl, so the type also
//! needs `#[derive(Serialize, Deserialize, JsonSchema)]`, and every serde and schemars
//! attribute keeps working as those crates define it.
//!
//! ```text
//! /// Proposes creating a new table or changing an existing table's schema.
//! #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
//! #[payload(marker = "SCHEMA_PROPOSAL", pages("tables"), example = examples::create_jobs)]
//! pub struct SchemaProposal { /* ... */ }
//! ```
//!
//! ## `#[payload(...)]` keys (on the type; each at most once unless noted)
//!
//! | key | value | default |
//! |---|---|---|
//! | `name = "..."` | `[a-z0-9_]+` | the type name in snake_case |
//! | `marker = "..."` | `[A-Z][A-Z0-9_]*` | the type name in SCREAMING_SNAKE_CASE |
//! | `pages("a", ...)` | one or more page names; registers the type | not registered |
//! | `register` | flag: register with no pages of its own | not registered |
//! | `example = path` | a `fn() -> Self` | `example()` is `None` |
//! | `check = path` | a `fn(&Self) -> Vec<PayloadError>` | no rules beyond the schema |
//! | `rule = "..."` | repeatable; each is one entry of `RULES`, in order | no rules |
//! | `summary = "..."` | a template: `{member}`, `{member.len}`, `{{`, `}}` | name and first members |
//! | `summary = path` | a `fn(&Self) -> String` | |
//! | `description = "..."` | replaces the doc comment as `DESCRIPTION` | the doc comment |
//! | `crate = "path"` | where `payload_core` is | `::payload_core` |
//! | `registry = "path"` | where `payload_registry` is | `::payload_registry` |
//! | `format(xml(...), delimited(...), tagged(...), markdown(...))` | seed 002's `x-format` options of the type (below) | none |
//!
//! On an enum variant, `#[payload(check = path)]` declares that variant's rules: a
//! `fn(&Content) -> Vec<PayloadError>` for a newtype variant `V(Content)`, its paths
//! relative to the content; they run after the type's `check`, their paths moved under
//! the content (`/parameters/...` with `content = "parameters"`) and their messages
//! naming the variant (`(intent "export")`). Enums must have variants, no tuple variant
//! of two or more fields (a positional array), and, internally tagged, no newtype
//! variant holding a scalar or a sequence.
//!
//! A struct payload has named fields, or is a newtype over a list (written as an array,
//! like `SuggestedValues(Vec<SuggestedValue>)`). Unit structs (`null`), tuple structs
//! (positional arrays) and newtypes over a scalar (a bare value) are refused: a marker
//! block opens with `{` or `[`, so none of them could ever be parsed.
//!
//! ## Format options (`format(...)`)
//!
//! On the type: `xml(root, namespace, pretty_print)`, `delimited(section, end,
//! case_insensitive)`, `tagged(case)`. On a named field of a struct:
//! `#[payload(format(xml(element, item, attribute, cdata), delimited(list, prefix,
//! wrapper), tagged(tag, multi), markdown(header, level, list, code_block, code)))]`.
//! They become the type's `FORMAT_OPTIONS`, merged into the root of its schema as
//! seed 002's `x-format` object (fields keyed by their serde name), which the format
//! readers, renderers and instructions read. `#[schemars(extend("x-format" = ...))]`
//! reaches the same place; declared options win where both are given.
//!
//! The attribute may be split over several `#[payload(...)]`. Generic types and
//! unions are rejected: the schema is compiled once and cached per concrete type.
//!
//! Schemars' route stays open too, on the type or on a field (option names as
//! `payload_core::formats` documents them):
//!
//! ```text
//! #[schemars(extend("x-format" = {"xml": {"root-element": "analysis-result"}}))]
//! pub struct AnalysisResult {
//!     #[schemars(extend("x-format" = {"xml": {"item-element": "recommendation"}}))]
//!     pub recommendations: Vec<String>,
//! }
//! ```
//!
//! ## Structure
//!
//! One small module per stage, after serde_derive and thiserror: `attr` reads the
//! attribute, `ast` the type, `check` looks at the declaration as a whole, `expand`
//! writes the impl. Every stage records errors in a `Ctxt` so one build reports
//! them all, and on error `fallback` adds a stub impl so the errors about the
//! attribute are the only ones.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ast;
mod attr;
mod check;
mod ctxt;
mod doc;
mod expand;
mod fallback;
mod format_attr;
mod serde_repr;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Implements `payload_core::LlmPayload`; see the crate docs for `#[payload(...)]`.
#[proc_macro_derive(LlmPayload, attributes(payload))]
pub fn derive_llm_payload(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
