//! The LLM payload of the reports page.

use payload_core::LlmPayload;
use payload_core::PayloadError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A better PubMed query the model proposes when the user's is too broad or too
/// narrow; the client shows it as a card with a "Use this query" button.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "search_refinement",
    marker = "SEARCH_REFINEMENT",
    register,
    partial,
    example = SearchRefinement::example_query,
    check = SearchRefinement::check_query,
    rule = "query must not be empty",
    summary = "query: {query}"
)]
pub struct SearchRefinement {
    /// The proposed query, in PubMed syntax.
    pub query: String,
    /// Why it is better, in one sentence.
    pub reason: String,
}

impl SearchRefinement {
    /// A refinement narrowing a statin search to muscle disease.
    pub fn example_query() -> Self {
        SearchRefinement {
            query: "statins[tiab] AND myopathy[mh]".to_string(),
            reason: "Limits results to statin-induced muscle disease.".to_string(),
        }
    }

    /// The query must not be blank.
    pub fn check_query(&self) -> Vec<PayloadError> {
        if self.query.trim().is_empty() {
            vec![
                PayloadError::validation("/query", "query must not be empty")
                    .with_suggestion("write the refined query in PubMed syntax"),
            ]
        } else {
            Vec::new()
        }
    }
}
