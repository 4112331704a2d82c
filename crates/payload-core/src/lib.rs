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
//! ```
//! use payload_core::{LlmPayload, ParseOptions, Parser, extract};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// How the user feels about the product.
//! #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
//! #[payload(marker = "SENTIMENT")]
//! struct Sentiment {
//!     /// One of positive, negative or neutral.
//!     label: String,
//!     /// How sure, from 0 to 1.
//!     confidence: f64,
//! }
//!
//! // Marker mode: blocks inside prose, for a page that offers the type. Build the
//! // parser once and share it; `payload-registry` builds one per registered page.
//! let parser = Parser::new(&ParseOptions::new().payload(Sentiment::TYPE));
//! let parsed = parser.parse("They love it.\n\n**SENTIMENT:** {\"label\": \"positive\", \"confidence\": 0.9}");
//! assert_eq!(parsed.message, "They love it.");
//! assert_eq!(parsed.payload::<Sentiment>().unwrap().label, "positive");
//!
//! // Whole-response mode: the answer is the value, bare, fenced or in prose, repaired
//! // where it can be (here a trailing comma), each repair reported as a warning.
//! let (value, result) = extract::<Sentiment>("```json\n{\"label\": \"neutral\", \"confidence\": 0.5,}\n```");
//! assert_eq!(value.unwrap().confidence, 0.5);
//! assert!(!result.warnings.is_empty());
//!
//! // A wrong value is an error the model can act on, never a guess.
//! let (value, result) = extract::<Sentiment>("{\"label\": \"positive\", \"confidence\": \"high\"}");
//! assert!(value.is_none());
//! assert_eq!(result.errors[0].path, "/confidence");
//! ```
//!
//! Streaming is [`stream::StreamParser`] (and, with the `stream` feature,
//! `stream::events`, a `futures::Stream` of events); types known only at run time are
//! [`PayloadType::from_schema`].
//!
//! ## Layout
//!
//! The crate root holds what most programs name: the payload trait and descriptor
//! ([`LlmPayload`], [`PayloadType`], [`CustomPayload`]), the two modes ([`parse()`] and
//! [`Parser`]; [`extract`] and [`extract_as`]) with their results, and the errors and
//! warnings. Everything else is in one public module each, and reachable at that path
//! only:
//!
//! - [`stream`]: the [`stream::StreamParser`], its events, and SSE encoding ([`stream::sse`]);
//! - [`schema`]: the [`schema::Dialect`]s, [`schema::StrictRefusal`], [`schema::Shape`];
//! - [`runtime`]: payload types from JSON Schema documents;
//! - [`formats`]: the whole-response formats (XML, delimited, tagged, markdown);
//! - [`suggestions`]: suggestion chips and action buttons;
//! - [`response`]: the parts of a [`ParsedResponse`] beyond the payload;
//! - [`partial`]: the partial form of a payload being streamed;
//! - [`retry`]: ask, validate, and ask again;
//! - [`limits`]: the caps on size, nesting and reports;
//! - [`fence`]: the one code-fence rule.
//!
//! The folders inside follow the pipeline, lowest layer first (`ARCHITECTURE.md` states
//! the layers, and a test holds them): `scan` cuts a response into prose and blocks,
//! `json` reads one block (strict, then repaired), `formats` reads the other
//! formats (and `policy` is a type's `x-parsing`), `schema` knows schemas, `validate` checks a value against a type, `payload`
//! describes a type, `marker` and `whole` are the two modes, and `stream` and `retry`
//! run on them. The schema tools shared with other crates (the `$ref` walk, the
//! dialects, the keyword tables) are the `payload-schema` crate; what a model is told
//! about a type is the `payload-instructions` crate.

#![forbid(unsafe_code)]

// The pipeline, lowest layer first (ARCHITECTURE.md). Crate-private unless its module
// is the public home of its items; what the root names is re-exported below.
mod caps;
mod derived;
mod error;
pub mod fence;
pub mod formats;
mod json;
pub mod limits;
mod marker;
mod nullable;
pub mod partial;
mod payload;
mod policy;
mod reprompt;
pub mod retry;
pub mod runtime;
mod runtime_check;
mod scan;
pub mod schema;
mod space;
pub mod stream;
mod summary;
mod typed;
mod validate;
mod warning;
mod whole;

pub use error::{ErrorDetails, ErrorKind, Location, PayloadError};
pub use marker::count::PayloadCount;
pub use marker::parse::{ParseOptions, Parser, parse};
pub use marker::response::ParsedResponse;
pub use nullable::Nullable;
pub use payload::{CustomPayload, LlmPayload, PayloadKind, PayloadType};
/// `#[derive(LlmPayload)]`: the marker, schema, instructions and summarizer of a type
/// from one declaration (see the `payload-derive` crate).
#[cfg(feature = "derive")]
pub use payload_derive::LlmPayload;
/// `#[derive(Partial)]`: the partial form ([`partial::PartialType`]) of a type a partial
/// payload holds (see the `payload-derive` crate).
#[cfg(feature = "derive")]
pub use payload_derive::Partial;
pub use summary::default_summary;
pub use warning::{Warning, WarningKind};
pub use whole::extract::{ExtractResult, extract, extract_as, extract_as_with, extract_json};

/// The parts of a [`ParsedResponse`] beyond its message and custom payload, and the
/// answer as ordered [`Part`](response::Part)s (docs/spec.md §1.21).
pub mod response {
    pub use crate::marker::parts::{Part, PartContents, PartKind};
    pub use crate::marker::response::{Missed, Rejected};
}

/// Suggestion chips and action buttons: what a response may suggest and how a page
/// declares the actions it allows.
pub mod suggestions {
    pub use crate::marker::combination::Combination;
    pub use crate::marker::suggestions::{
        ActionSpec, Handler, SUGGESTED_ACTIONS_MARKER, SUGGESTED_ACTIONS_NAME,
        SUGGESTED_VALUES_MARKER, SUGGESTED_VALUES_NAME, SuggestedAction, SuggestedValue,
    };
}

// What the docs promise about threads, checked when the crate compiles: a parser, a
// stream parser, a type descriptor and every result and error may be built on one thread
// and used or shared on another (a web server parses on its worker threads).
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Parser>();
    send_sync::<ParseOptions>();
    send_sync::<ParsedResponse>();
    send_sync::<CustomPayload>();
    send_sync::<PayloadType>();
    send_sync::<ExtractResult>();
    send_sync::<PayloadError>();
    send_sync::<Warning>();
    send_sync::<stream::StreamParser>();
    send_sync::<stream::StreamEvent>();
    send_sync::<runtime::SchemaError>();
    send_sync::<schema::StrictRefusal>();
};

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

/// The machinery under the public API, reachable only with the `__internals` feature,
/// for this workspace's invariant tests, fuzz targets and benches (which check the
/// scanner and the JSON reader on their own, and the stream against itself without its
/// shortcuts).
///
/// **Unstable**: not a public API, no stability promise, and nothing may rely on it
/// but this workspace's own tests. The leading underscores say so, as serde's
/// `__private` does; `--all-features` switches it on, which changes no behaviour of the
/// public API.
#[cfg(feature = "__internals")]
#[doc(hidden)]
pub mod __internals {
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
    /// The parts' guarantees (docs/spec.md §1.21), as checks.
    pub mod parts {
        pub use crate::stream::parts_check::{check_part_events, check_parts};
    }
    /// Marker mode with every block's end found by the scanner alone.
    pub mod marker {
        /// `parser.parse(text)` without the segmenter's strict reads: what the parse
        /// must equal.
        pub fn parse_scanning_only(parser: &crate::Parser, text: &str) -> crate::ParsedResponse {
            parser.parse_scanning_only(text)
        }
    }
    /// The strict read of a value at the start of a text, and where it ends.
    pub mod strict {
        pub use crate::json::read_prefix;
    }
    /// A payload type's compiled validation plan, judged beside the validator and the
    /// walk after validation.
    pub mod plan {
        pub use crate::validate::plan::Verdict;
        pub use crate::validate::plan::judge::Judged;

        /// Judges `value` for `payload` (as it is checked, without `strict_nulls`).
        pub fn judge(payload: &crate::PayloadType, value: &serde_json::Value) -> Judged {
            crate::validate::plan::judge::judge(payload.compiled(), value)
        }
    }
    /// Decoding a value into a payload type, as validation does.
    pub mod decode {
        /// Why decoding `value` as `payload` fails: as the alias test asks it of its
        /// probes, then as the first message of the full decode (`None` when it
        /// decodes and its rules hold).
        pub fn refusals(
            payload: &crate::PayloadType,
            value: &serde_json::Value,
        ) -> (Option<String>, Option<String>) {
            payload.refusals(value)
        }

        /// `value` as decoding `payload` reads it, written back as JSON: as the alias
        /// test asks it, then as the full decode gives it (`None` when it does not
        /// decode).
        pub fn roundtrips(
            payload: &crate::PayloadType,
            value: &serde_json::Value,
        ) -> (Option<serde_json::Value>, Option<serde_json::Value>) {
            payload.roundtrips(value)
        }

        /// What checking `value` as `payload` finds, twice: as validation does it
        /// (step 0 lazy), then with step 0 eager. Each is the value as checked, the
        /// errors and the warnings (`unknown_member`, then `coerced`), all as JSON.
        pub fn checks(
            payload: &crate::PayloadType,
            value: &serde_json::Value,
        ) -> (serde_json::Value, serde_json::Value) {
            let seen = |mut value: serde_json::Value, eager: bool| {
                let checked = if eager {
                    payload.check_eagerly(&mut value)
                } else {
                    payload.check(&mut value)
                };
                serde_json::json!({
                    "value": value,
                    "errors": checked.errors,
                    "warnings": checked.warnings.items(),
                    "rewrites": checked.rewrites.items(),
                    "typed": checked.typed.is_some(),
                })
            };
            (seen(value.clone(), false), seen(value.clone(), true))
        }
    }
    /// Where whole-response mode looks for a response's JSON value.
    pub mod candidates {
        /// The candidates of `text`, described with their values, found with the value
        /// a response starts with read strictly, then by the scanner alone (which the
        /// first must equal), each with where the search stopped.
        pub fn both_readings(text: &str) -> [(Vec<String>, Option<usize>); 2] {
            crate::whole::extract::candidates::both_readings(text)
        }
    }
    /// Coercion toward a payload type's schema (whole-response mode).
    pub mod coerce {
        use crate::caps::Capped;
        use crate::validate::coerce;

        /// `value` coerced toward `payload`'s schema, with the `coerced` warnings: by the
        /// compiled walk, then by the walk that reads the schema at every node (the
        /// reference the compiled one must equal).
        pub fn both(
            payload: &crate::PayloadType,
            value: &serde_json::Value,
        ) -> [(serde_json::Value, Vec<crate::Warning>); 2] {
            let compiled = payload.compiled();
            let (mut fast, mut slow) = (value.clone(), value.clone());
            let (mut fast_warnings, mut slow_warnings) = (Capped::warnings(), Capped::warnings());
            coerce::coerce_into(&mut fast, compiled.coercion(), &mut fast_warnings);
            coerce::reference::coerce_into(&mut slow, compiled.schema(), &mut slow_warnings);
            [
                (fast, fast_warnings.finish()),
                (slow, slow_warnings.finish()),
            ]
        }
    }
    /// `$ref` resolution in a schema.
    pub mod schema_walk {
        pub use payload_schema::walk::resolve;
    }
    /// The streaming parser with every stage run on every chunk.
    pub mod stream {
        use crate::stream::StreamParser;

        /// `stream` with no shortcut for the chunks that can change nothing: the
        /// reference the shortcuts must match event for event.
        pub fn without_shortcuts(stream: StreamParser) -> StreamParser {
            stream.without_shortcuts()
        }
    }
}
