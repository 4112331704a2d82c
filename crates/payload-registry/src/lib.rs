//! # payload-registry
//!
//! Link-time registration of payload types, pages and client actions, with `inventory`:
//! a crate that declares them installs them just by being linked. [`Registry::global`]
//! indexes everything linked into the program, checks it ([`Registry::check`]) on first
//! use and parses responses per page ([`parse_response`], [`parse_turn`]).
//!
//! It depends on `payload-core` (the parser each page compiles) and `inventory`, and on
//! nothing that writes prompts, talks to a model or reads a command line: those build on
//! it, in `payload-prompt` (system prompts, manifest, docs), `payload-agent` (agent turns
//! and tools) and `payload-cli` (the `payload` command).
//!
//! ```standalone_crate
//! use payload_core::LlmPayload;
//! use payload_registry::{Page, register_page};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// Proposes a trip.
//! #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
//! #[payload(marker = "TRIP_PROPOSAL", register)]
//! struct TripProposal {
//!     /// Where to.
//!     destination: String,
//! }
//!
//! register_page!(
//!     Page::new("trips")
//!         .instructions("Help the user plan their trips.")
//!         .payloads(&[TripProposal::TYPE])
//! );
//!
//! fn main() {
//!     let text = "Here is one.\n\nTRIP_PROPOSAL: {\"destination\": \"Lisbon\"}";
//!     let parsed = payload_registry::parse_response("trips", text).expect("a registered page");
//!     assert_eq!(parsed.message, "Here is one.");
//!     assert_eq!(parsed.payload::<TripProposal>().unwrap().destination, "Lisbon");
//!     // A page nobody registered is an error, never a panic.
//!     assert!(payload_registry::parse_response("nowhere", text).is_err());
//! }
//! ```

#![forbid(unsafe_code)]

mod entry;
mod page;
mod registry;
mod warnings;

pub use entry::{PayloadEntry, Role};
pub use page::{ContextBuilder, GlobalAction, Page};
pub use payload_core;
pub use registry::{PageInfo, Registry, RegistryError, UnknownPage};
pub use warnings::RegistryWarning;

use payload_core::{CustomPayload, ParsedResponse};

/// Parses a response given on `page` with the global registry (docs/spec.md §1).
pub fn parse_response(page: &str, text: &str) -> Result<ParsedResponse, UnknownPage> {
    Registry::global().parse_response(page, text)
}

/// Parses a response and applies tool-payload precedence (docs/spec.md §1.10).
pub fn parse_turn(
    page: &str,
    text: &str,
    tool_payloads: &[CustomPayload],
) -> Result<ParsedResponse, UnknownPage> {
    Registry::global().parse_turn(page, text, tool_payloads)
}

/// Registers a [`Page`] at link time.
///
/// ```standalone_crate
/// use payload_registry::{Page, Registry};
///
/// payload_registry::register_page!(Page::new("trip_list").instructions("List the user's trips."));
///
/// # fn main() {
/// assert!(Registry::global().page("trip_list").is_ok());
/// # }
/// ```
#[macro_export]
macro_rules! register_page {
    ($page:expr $(,)?) => {
        $crate::__private::inventory::submit! { $page }
    };
}

/// Registers a client action offered on every page.
///
/// ```standalone_crate
/// use payload_core::suggestions::ActionSpec;
/// use payload_registry::Registry;
///
/// payload_registry::register_action!(ActionSpec::client("close_chat", "Close the chat panel"));
///
/// # fn main() {
/// assert!(Registry::global().global_actions().iter().any(|a| a.action == "close_chat"));
/// # }
/// ```
#[macro_export]
macro_rules! register_action {
    ($action:expr $(,)?) => {
        $crate::__private::inventory::submit! { $crate::GlobalAction($action) }
    };
}

/// What generated code and the macros need; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
}

// What the docs promise about threads, checked when the crate compiles: the registry is
// built once and shared by every request's thread.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Registry>();
    send_sync::<Page>();
    send_sync::<PageInfo>();
    send_sync::<PayloadEntry>();
    send_sync::<RegistryError>();
};
