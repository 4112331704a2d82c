//! # payload-derive
//!
//! `#[derive(LlmPayload)]`: implements `payload_core::LlmPayload` for a struct or an
//! enum from its doc comment and one `#[payload(...)]` attribute. The JSON Schema is
//! not generated here: it comes from the type's `JsonSchema` impl, so the type also
//! needs `#[derive(Serialize, Deserialize, JsonSchema)]`, and every serde and schemars
//! attribute keeps working as those crates define it.
//!
//! ```text
//! /// Proposes a trip: where to, when, and the stops on the way.
//! #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
//! #[payload(marker = "TRIP_PROPOSAL", pages("trips"), example = examples::weekend_in_lisbon)]
//! pub struct TripProposal { /* ... */ }
//! ```
//!
//! ## `#[payload(...)]` keys (on the type; each at most once unless noted)
//!
//! | key | value | default |
//! |---|---|---|
//! | `name = "..."` | `[a-z0-9_]+` | the type name in snake_case |
//! | `marker = "..."` | `[A-Z][A-Z0-9_]*` | the type name in SCREAMING_SNAKE_CASE |
//! | `kind = "..."` | `"proposal"` (the user reviews and applies it), `"command"` (the app runs it at once), `"display"` (the app only shows it): `LlmPayload::KIND`, which words the prompt uses for the type | `"proposal"` |
//! | `pages("a", ...)` | one or more page names; registers the type | not registered |
//! | `register` | flag: register with no pages of its own | not registered |
//! | `partial` | flag: also write `NamePartial`, the type's form while it streams (`PartialType`); the types its members hold derive `Partial`, or are complete only (below) | no partial form |
//! | `example = path` | a `fn() -> Self` | `example()` is `None` |
//! | `check = path` | a `fn(&Self) -> Vec<PayloadError>` | no rules beyond the schema |
//! | `rule = "..."` | repeatable; each is one entry of `RULES`, in order | no rules |
//! | `summary = "..."` | a template: `{member}`, `{member.len}`, `{{`, `}}`; a `{member}` the serialized value does not have is a compile error at the template | name and first members |
//! | `summary = path` | a `fn(&Self) -> String` | |
//! | `description = "..."` | replaces the doc comment as `DESCRIPTION` | the doc comment |
//! | `crate = "path"` | where `payload_core` is | `::payload_core` |
//! | `registry = "path"` | where `payload_registry` is | `::payload_registry` |
//! | `format(xml(...), delimited(...), tagged(...), markdown(...))` | the output-schema app's `x-format` options of the type (below) | none |
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
//! block opens with `{` or `[`, so none of them could ever be parsed. A field holding a
//! tuple (`(u8, u8)`, also inside `Vec` or `Option`) is refused for the same reason as a
//! tuple struct or variant: a positional array, which models fill in the wrong order.
//!
//! On a field, `#[payload(complete_only)]` makes the member **complete only** in the
//! partial form: absent until its value is whole, then decoded by serde, for a type of
//! another crate that has no partial form (the orphan rule forbids deriving one). Members
//! read through serde's `with` or `deserialize_with` are complete only without asking,
//! and payload-core gives the common foreign types that form (`Duration`, `std::net`'s
//! addresses, `PathBuf`; chrono's and `Uuid` behind its `chrono` and `uuid` features).
//! These are BAML's `@stream.done`.
//!
//! On a named field of a struct, `#[payload(stream(not_null))]` holds the struct back in
//! the partial form (BAML's `@stream.not_null`): while the struct is still arriving,
//! its partial form is `None` until that member has a value (begun, and not `null`), so
//! a list of steps never shows a step without its title. A complete struct shows
//! whatever it holds. It is refused on a variant's field, and on a field serde skips or
//! flattens. The derive also writes the mark into the type's schema as
//! `"x-stream": {"not_null": true}` on that member (merged into an `x-stream` object
//! written there already), where the stream's JSON previews read it: in the payload's
//! own schema, or in the type's definition under `$defs` when a `#[payload(partial)]`
//! payload holds it, so the previews and the typed partial hold back the same
//! objects (`payload_core::partial::StreamMarks`). No `#[schemars(extend(...))]` is
//! needed. Each value's state (pending, incomplete, complete) is read with
//! `payload_core::partial::ValueState::of`.
//!
//! ```
//! use payload_core::partial::{Cursor, PartialType};
//! use payload_core::{Partial, serde_json::json};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema, Partial)]
//! struct Step {
//!     detail: String,
//!     #[payload(stream(not_null))]
//!     title: Option<String>,
//! }
//!
//! let value = json!([{"title": "Boil", "detail": "10 min"}, {"detail": "then"}]);
//! let steps = <Vec<Step>>::read_partial(&value, Cursor::root(Some("/1/detail"))).unwrap();
//! assert_eq!(steps.value.len(), 1);
//! ```
//!
//! ## serde attributes
//!
//! `#[serde(...)]` is read by `serde_derive_internals`, the reader serde_derive and
//! schemars_derive use, so it means here exactly what it means to serde. It is read for
//! *deserializing*: the model writes JSON that is deserialized into the type, so where
//! serde tells the two apart the deserialize side is the one that counts, as it is for
//! the schema schemars generates.
//!
//! - Names: a field's or variant's member name is serde's deserialize name, after
//!   `rename`, `rename(deserialize = "...")`, `rename_all`, `rename_all(deserialize =
//!   "...")` and `rename_all_fields`. It keys the fields' format options and names the
//!   variant in the errors of a variant's `check`. `alias` adds names serde also takes
//!   in; parsing accepts them because serde does.
//! - Representation: `tag`, `content`, `untagged` (on the enum or on a variant) decide
//!   where a variant's content sits, which the enum checks below and a variant's `check`
//!   use.
//! - Shape: the style of the struct and of each variant (named fields, tuple, newtype,
//!   unit) and `transparent` decide what JSON the type is written as; `from`/`try_from`
//!   types are written as the other type, so their shape is not checked.
//! - `skip_deserializing`: a skipped variant is never written by the model, so it is not
//!   held to the enum checks, but an enum must keep one variant that is not skipped;
//!   format options on a skipped field are refused, as on a `flatten`ed one (which has
//!   no member of its own).
//!
//! serde's own errors about its attributes are left to serde: a `#[serde]` attribute is
//! only accepted on a type that also derives `Serialize`, `Deserialize` or `JsonSchema`
//! (this derive declares only `payload`), and each of them reports those errors, so a
//! copy from here would show every one twice. When serde refuses the attributes this
//! derive adds only its own errors, if it has any, next to the bounded stub below.
//!
//! ## Format options (`format(...)`)
//!
//! On the type: `xml(root, namespace, pretty_print)`, `delimited(section, end,
//! case_insensitive)`, `tagged(case)`. On a named field of a struct:
//! `#[payload(format(xml(element, item, attribute, cdata), delimited(list, prefix,
//! wrapper), tagged(tag, multi), markdown(header, level, list, code_block, code)))]`.
//! They become the type's `FORMAT_OPTIONS`, merged into the root of its schema as
//! the output-schema app's `x-format` object (fields keyed by their serde name), which the format
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
//! attribute, `ast` the type (with serde's attributes as serde reads them), `check`
//! looks at the declaration as a whole, `expand` writes the impl; `serde_repr` is
//! serde's enum representation. Every stage records errors in a `Ctxt` so one build
//! reports them all, and on error `fallback` adds a stub impl so the errors about the
//! attribute are the only ones. The stub is bounded the way thiserror's is (`where
//! for<'workaround> Self: Serialize + DeserializeOwned + JsonSchema`): when serde's or
//! schemars' derive failed as well, the stub does not apply instead of adding one
//! "trait not implemented" per missing supertrait, so one misuse gives one error (two
//! where serde refuses the same declaration: its and ours).

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod check;
mod ctxt;
mod doc;
mod expand;
mod fallback;
mod format_attr;
mod marks;
mod partial;
mod serde_repr;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Implements `payload_core::LlmPayload`; see the crate docs for `#[payload(...)]`.
#[proc_macro_derive(LlmPayload, attributes(payload))]
pub fn derive_llm_payload(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Implements `payload_core::partial::PartialType` for a type held by a `#[payload(partial)]`
/// payload: writes `NamePartial`, its form while it streams (see `payload_core`'s
/// `PartialType`). `#[payload(crate = "...")]` names the core crate as for
/// `LlmPayload`.
#[proc_macro_derive(Partial, attributes(payload))]
pub fn derive_partial(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_partial(&input).into()
}
