//! # payload-registry
//!
//! Link-time registration of payload types, pages and client actions, with `inventory`:
//! a crate that declares them installs them just by being linked. [`Registry::global`]
//! indexes everything linked into the program, checks it ([`Registry::check`]) and
//! parses responses per page ([`parse_response`]). It also assembles each page's system
//! prompt ([`Registry::prompt`], seed 000's eight sections, with the conversation's
//! [`manifest`]) and documents everything registered ([`docs::render`]).
//!
//! ```ignore
//! payload_registry::register_page!(
//!     Page::new("table_view")
//!         .instructions("Help the user work with the rows of this table.")
//!         .payloads(&[SchemaProposal::TYPE, DataProposal::TYPE])
//! );
//! let parsed = payload_registry::parse_response("table_view", text)?;
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent;
pub mod cli;
mod cli_bench;
mod cli_stream;
pub mod docs;
mod entry;
pub mod manifest;
mod page;
pub mod prompt;
mod registry;
pub mod tools;

pub use agent::{Agent, AgentEvent, Model, ModelChunk, ModelMessage, ModelRequest, Turn};
pub use entry::{PayloadEntry, Role};
pub use manifest::{ManifestEntry, PayloadStatus};
pub use page::{ContextBuilder, GlobalAction, Page};
pub use payload_core;
pub use prompt::{DEFAULT_PREAMBLE, Position, PromptBuilder, Section, SectionKind};
pub use registry::{PageInfo, Registry, RegistryError, UnknownPage};
pub use tools::{Tool, ToolContext, ToolResult, ToolSpec, tool_schema};

use payload_core::{CustomPayload, ParsedResponse};

/// Parses a response given on `page` with the global registry (SPEC section 1).
pub fn parse_response(page: &str, text: &str) -> Result<ParsedResponse, UnknownPage> {
    Registry::global().parse_response(page, text)
}

/// Parses a response and applies tool-payload precedence (SPEC 1.10).
pub fn parse_turn(
    page: &str,
    text: &str,
    tool_payloads: &[CustomPayload],
) -> Result<ParsedResponse, UnknownPage> {
    Registry::global().parse_turn(page, text, tool_payloads)
}

/// Registers a [`Page`] at link time.
///
/// ```ignore
/// payload_registry::register_page!(Page::new("tables_list").payloads(&[SchemaProposal::TYPE]));
/// ```
#[macro_export]
macro_rules! register_page {
    ($page:expr $(,)?) => {
        $crate::__private::inventory::submit! { $page }
    };
}

/// Registers a client action offered on every page.
///
/// ```ignore
/// payload_registry::register_action!(ActionSpec::client("close_chat", "Close the chat panel"));
/// ```
#[macro_export]
macro_rules! register_action {
    ($action:expr $(,)?) => {
        $crate::__private::inventory::submit! { $crate::GlobalAction($action) }
    };
}

/// Registers a [`Tool`] at link time (tools are offered on every page).
///
/// ```ignore
/// payload_registry::register_tool!(Tool::new("search_pubmed", "Search PubMed", tool_schema::<SearchInput>, search));
/// ```
#[macro_export]
macro_rules! register_tool {
    ($tool:expr $(,)?) => {
        $crate::__private::inventory::submit! { $tool }
    };
}

/// What generated code and the macros need; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
}
