//! # payload-agent
//!
//! Talking to a model on a registered page (the chat architecture app): one chat turn as a stream
//! of events. The model is called with the conversation and the tools; its text goes
//! through the page's streaming parser as it arrives; the tools it asks for run and
//! their results go back to it; and so on until it answers without asking for a tool,
//! or the call limit is reached.
//!
//! The turn ([`Turn`]) is a `futures::Stream` of [`AgentEvent`]s, polled by the caller
//! (a web handler writes each one as SSE with
//! [`ServerSentEvent::write_sse`](payload_core::stream::sse::ServerSentEvent::write_sse));
//! [`Turn::blocking`] iterates it for models that need no runtime. The model is
//! anything that turns a [`ModelRequest`] into a stream of [`ModelChunk`]s: an HTTP
//! client reading a provider's streamed completion, or a script in tests. Tools
//! ([`Tool`], [`TypedTool`]) are registered at link time with [`register_tool!`]; each
//! page names the ones it offers, and their input is checked before they run.
//!
//! It depends on `payload-registry` (the page a turn runs on, and how its parser is
//! built) and on `payload-core` (the streaming parser and the SSE encoding); it reads no
//! command line (`payload-cli` does).
//!
//! A turn on a page with one tool, against a scripted model (any [`Model`]: a closure
//! from the request to its chunks will do, and the provider clients of
//! `payload-providers` are the real ones). A web handler polls the same turn with
//! `turn.next().await` instead of [`Turn::blocking`]:
//!
//! ```standalone_crate
//! use payload_agent::{Agent, ModelChunk, ModelMessage, ModelRequest};
//! use payload_agent::{Tool, ToolContext, ToolResult, register_tool, tool_schema};
//! use payload_core::stream::sse::ServerSentEvent;
//! use payload_registry::{Page, Registry, register_page};
//!
//! /// The tool takes no input: an empty object.
//! #[derive(schemars::JsonSchema)]
//! struct NoInput {}
//!
//! fn today(_input: &serde_json::Value, _ctx: &ToolContext) -> ToolResult {
//!     ToolResult::text("2024-05-01")
//! }
//! register_tool!(Tool::new("today", "Today's date", tool_schema::<NoInput>, today));
//! register_page!(Page::new("diary").tools(&["today"]));
//!
//! fn main() -> std::io::Result<()> {
//!     let agent = Agent::for_page(Registry::global(), "diary").expect("a valid page");
//!     // First the model calls the tool; once it has the result, it answers.
//!     let model = |request: &ModelRequest| match request.iteration {
//!         1 => vec![ModelChunk::ToolCall {
//!             id: "call-1".into(),
//!             name: "today".into(),
//!             input: serde_json::json!({}),
//!         }],
//!         _ => vec![ModelChunk::Text("Today is 2024-05-01.".into())],
//!     };
//!     let question = vec![ModelMessage::user("What day is it?")];
//!     let mut response = Vec::new();
//!     for event in agent.turn(model, question, serde_json::json!({})).blocking() {
//!         event.write_sse(&mut response)?; // what a chat backend sends
//!     }
//!     let sse = String::from_utf8(response).expect("SSE is text");
//!     assert!(sse.contains("event: tool_complete"));
//!     assert!(sse.contains("data: {\"text\":\"Today is 2024-05-01.\",\"part\":0}"));
//!     assert!(sse.ends_with("\n\n") && sse.contains("event: complete"));
//!     Ok(())
//! }
//! ```

#![forbid(unsafe_code)]

mod agent;
mod budget;
mod calls;
mod event;
mod fallback;
mod finish;
mod model;
mod telemetry;
mod tools;
mod turn;

pub use agent::{Agent, AgentError, DEFAULT_MAX_ITERATIONS, DEFAULT_REASKS, page_options};
pub use budget::{CHARS_PER_TOKEN, HistoryBudget};
pub use event::AgentEvent;
pub use fallback::{Fallback, FallbackAttempt};
pub use finish::{FinishReason, RefusalReason};
pub use model::{
    Model, ModelChunk, ModelError, ModelErrorKind, ModelMessage, ModelRequest, ModelStream,
    OutputMode, ReplayBlock, StructuredOutput, ToolCall, Usage,
};
pub use payload_core;
pub use tools::{InputMismatch, Tool, ToolContext, ToolResult, ToolSpec, TypedTool, tool_schema};
pub use turn::Turn;

/// Registers a [`Tool`] at link time (a page offers it by naming it in `Page::tools`).
///
/// ```standalone_crate
/// use payload_agent::{Tool, ToolContext, ToolResult, tool_schema};
///
/// /// What to search for.
/// #[derive(schemars::JsonSchema)]
/// struct SearchInput {
///     /// The words to look for.
///     query: String,
/// }
///
/// fn search(input: &serde_json::Value, _ctx: &ToolContext) -> ToolResult {
///     ToolResult::text(format!("No articles for {}", input["query"]))
/// }
///
/// payload_agent::register_tool!(Tool::new("search_pubmed", "Search PubMed", tool_schema::<SearchInput>, search));
/// # fn main() {}
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

// What the docs promise about threads, checked when the crate compiles: an agent and
// everything a turn yields may move to and be shared with another thread (a web server
// runs each turn in its own task).
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Agent>();
    send_sync::<AgentEvent>();
    send_sync::<AgentError>();
    send_sync::<ModelChunk>();
    send_sync::<ModelError>();
    send_sync::<ModelRequest>();
    send_sync::<ToolCall>();
    send_sync::<ToolResult>();
};
