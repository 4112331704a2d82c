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
//! ```standalone_crate
//! use payload_prompt::PromptBuilder;
//! use payload_registry::{Page, Registry, register_page};
//!
//! register_page!(Page::new("notes").instructions("Help the user keep their notes."));
//!
//! fn main() {
//!     let context = serde_json::json!({"open_note": "Groceries"}); // the app's state
//!     let prompt = PromptBuilder::for_page(Registry::global(), "notes")
//!         .expect("a registered page")
//!         .context(&context) // written as data, never as instructions
//!         .history(&[]) // the payloads of earlier turns and what the user did with them
//!         .tools([("create_note", "Start a new note")])
//!         .build();
//!     assert!(prompt.contains("Help the user keep their notes."));
//!     assert!(prompt.contains("- create_note: Start a new note"));
//!     assert!(prompt.contains("Groceries"));
//! }
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
