//! # payload-agent
//!
//! Talking to a model on a registered page (seed 001): one chat turn as a stream of
//! events. The model is called with the conversation and the tools; its text goes
//! through the page's streaming parser as it arrives; the tools it asks for run and
//! their results go back to it; and so on until it answers without asking for a tool,
//! or the call limit is reached.
//!
//! The turn ([`Turn`]) is a plain [`Iterator`] of [`AgentEvent`]s, pulled by the caller
//! (a web handler writes each one as SSE with
//! [`ServerSentEvent::write_sse`](payload_core::ServerSentEvent::write_sse)). The model
//! is anything that turns a [`ModelRequest`] into an iterator of [`ModelChunk`]s: an
//! HTTP client reading a streamed completion, or a script in tests. Tools ([`Tool`]) are
//! registered at link time with [`register_tool!`] and offered on every page. With the
//! `stream` feature, [`Turn::into_stream`] gives a `futures::Stream` of the same events.
//!
//! It depends on `payload-registry` (the page a turn runs on, and how its parser is
//! built) and on `payload-core` (the streaming parser and the SSE encoding); it reads no
//! command line (`payload-cli` does).
//!
//! ```ignore
//! let agent = Agent::for_page(Registry::global(), "reports")?;
//! for event in agent.turn(model, vec![ModelMessage::user("Find trials")], context) {
//!     event.write_sse(&mut response)?;
//! }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod event;
mod model;
mod tools;
mod turn;

pub use event::AgentEvent;
pub use model::{Model, ModelChunk, ModelMessage, ModelRequest, ToolCall};
pub use payload_core;
pub use tools::{Tool, ToolContext, ToolResult, ToolSpec, tool_schema};
pub use turn::{Agent, DEFAULT_MAX_ITERATIONS, Turn, page_options};

/// Registers a [`Tool`] at link time (tools are offered on every page).
///
/// ```ignore
/// payload_agent::register_tool!(Tool::new("search_pubmed", "Search PubMed", tool_schema::<SearchInput>, search));
/// ```
#[macro_export]
macro_rules! register_tool {
    ($tool:expr $(,)?) => {
        $crate::__private::inventory::submit! { $tool }
    };
}

/// What the macros need; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
}
