//! # payload-prompt
//!
//! What a model is told on a registered page: the page's system prompt
//! ([`PromptBuilder`], table.that's eight prompt sections), the conversation's payload manifest
//! that goes into it ([`manifest`]), and the Markdown reference of everything registered
//! ([`docs::render`], what `payload docs` prints).
//!
//! It depends on `payload-registry` for the pages and types it describes and on
//! `payload-instructions` for each type's instructions and the suggestion formats
//! (re-exported as [`instructions`]); it neither
//! calls a model nor reads a command line (`payload-agent` and `payload-cli` do).
//!
//! Every value that came from a model or a user is put in the prompt by one rule,
//! [`data`]: as a JSON string literal on one line that cannot open a section, end a
//! block or look like a marker. The section builders here use it, and so must an app's
//! context builder, for each value it writes.
//!
//! ```ignore
//! let prompt = PromptBuilder::for_page(Registry::global(), "table_view")?
//!     .context(&context_json)
//!     .history(&manifest)
//!     .build();
//! ```

#![forbid(unsafe_code)]

mod builder;
pub mod data;
pub mod docs;
mod entry;
pub mod manifest;
mod sections;

pub use builder::PromptBuilder;
pub use entry::{ManifestEntry, PayloadStatus};
pub use payload_core;
pub use payload_instructions as instructions;
pub use sections::{DEFAULT_PREAMBLE, Position, Section, SectionKind};
