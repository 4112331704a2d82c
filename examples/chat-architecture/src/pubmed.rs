//! The `search_pubmed` tool: text for the model, a `pubmed_search_results` payload for
//! the client (the chat architecture app). The search runs over a small built-in catalogue so
//! that the example works offline and its tests are deterministic; a real app calls the
//! E-utilities API here.

use payload_agent::{Tool, ToolContext, ToolResult, tool_schema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The payload type the client's `PubMedSearchResultsCard` renders.
pub const RESULTS_TYPE: &str = "pubmed_search_results";

/// The tool's input.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchInput {
    /// Words to look for in titles.
    pub query: String,
    /// At most this many articles (default 5).
    pub max_results: Option<usize>,
}

/// An article in the results.
#[derive(Debug, Clone, Serialize)]
pub struct Article {
    /// PubMed id.
    pub pmid: &'static str,
    /// Title.
    pub title: &'static str,
    /// Journal.
    pub journal: &'static str,
    /// Publication year.
    pub year: u16,
}

const CATALOGUE: &[Article] = &[
    Article {
        pmid: "31234567",
        title: "Statin-associated muscle symptoms: a systematic review",
        journal: "JAMA",
        year: 2019,
    },
    Article {
        pmid: "32345678",
        title: "Myopathy risk with high-dose statins in older adults",
        journal: "Lancet",
        year: 2020,
    },
    Article {
        pmid: "33456789",
        title: "Coenzyme Q10 for statin myopathy: randomized trial",
        journal: "BMJ",
        year: 2021,
    },
    Article {
        pmid: "34567890",
        title: "GLP-1 agonists and weight loss outcomes",
        journal: "NEJM",
        year: 2022,
    },
];

/// Runs a search.
fn search_pubmed(input: &Value, ctx: &ToolContext) -> ToolResult {
    let input: SearchInput = match serde_json::from_value(input.clone()) {
        Ok(input) => input,
        Err(error) => return ToolResult::error(format_args!("invalid input: {error}")),
    };
    ctx.progress(format!("Searching PubMed for \"{}\"", input.query));
    let words: Vec<String> = input
        .query
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let articles: Vec<&Article> = CATALOGUE
        .iter()
        .filter(|a| {
            let title = a.title.to_lowercase();
            words.iter().any(|w| title.contains(w.as_str()))
        })
        .take(input.max_results.unwrap_or(5))
        .collect();
    let listing: Vec<String> = articles
        .iter()
        .map(|a| format!("PMID {}: {} ({} {})", a.pmid, a.title, a.journal, a.year))
        .collect();
    ToolResult::text(format!(
        "Found {} articles for \"{}\".\n{}",
        articles.len(),
        input.query,
        listing.join("\n")
    ))
    .with_payload(
        RESULTS_TYPE,
        json!({"query": input.query, "articles": articles}),
    )
}

/// The tool as registered.
pub static SEARCH_PUBMED: Tool = Tool::new(
    "search_pubmed",
    "Search PubMed for articles",
    tool_schema::<SearchInput>,
    search_pubmed,
);

payload_agent::register_tool!(SEARCH_PUBMED);
