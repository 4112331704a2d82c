//! # chat-architecture
//!
//! The chat architecture's chat system rebuilt on the framework: the `reports` page, a global
//! `search_pubmed` tool whose result reaches the client as a `pubmed_search_results`
//! payload, an LLM payload the model writes itself (`SEARCH_REFINEMENT`), and the agent
//! loop that streams a turn as Server-Sent Events. Both payload sources converge on
//! `custom_payload`, and a tool's payload takes precedence (docs/spec.md §1.10).
//!
//! Linking this crate registers the page, the payload type and the tool.

#![forbid(unsafe_code)]

pub mod model;
mod payloads;
pub mod pubmed;
#[cfg(test)]
mod tests;

pub use payloads::{SearchRefinement, SearchRefinementPartial};

use payload_core::{LlmPayload, suggestions::ActionSpec};
use payload_registry::Page;
use serde_json::Value;

/// The page showing one report: its articles, and a chat about them.
pub const REPORTS: Page = Page::new("reports")
    .description("A literature report and its articles")
    .instructions(
        "The user is reading a literature report. Answer questions about its articles; \
         search PubMed with the search_pubmed tool when they ask for more, and propose a \
         better query with SEARCH_REFINEMENT when theirs is too broad.",
    )
    .payloads(&[<SearchRefinement as LlmPayload>::TYPE])
    .tools(&["search_pubmed"])
    .actions(&[ActionSpec::client(
        "open_article",
        "Open the article the user is asking about",
    )])
    .context(report_context);

/// The CURRENT CONTEXT of the reports page, from the frontend's context object.
fn report_context(context: &Value) -> String {
    match context.get("report_id").and_then(Value::as_i64) {
        Some(id) => format!("The user is viewing report {id}."),
        None => "The user is on the reports page.".to_string(),
    }
}

payload_registry::register_page!(REPORTS);
