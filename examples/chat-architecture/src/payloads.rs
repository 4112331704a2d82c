//! The LLM payload of the reports page.
//!
//! Written by hand against the `LlmPayload` trait; `#[derive(LlmPayload)]` will replace
//! the impl (the constants come from the same doc comment and attributes).

use payload_core::{LlmPayload, PayloadError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A better PubMed query the model proposes when the user's is too broad or too
/// narrow; the client shows it as a card with an "Use this query" button.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchRefinement {
    /// The proposed query, in PubMed syntax.
    pub query: String,
    /// Why it is better, in one sentence.
    pub reason: String,
}

impl LlmPayload for SearchRefinement {
    const NAME: &'static str = "search_refinement";
    const MARKER: &'static str = "SEARCH_REFINEMENT";
    const DESCRIPTION: &'static str = "A better PubMed query the model proposes when the \
                                       user's is too broad or too narrow.";
    const RULES: &'static [&'static str] = &["query must not be empty"];

    fn example() -> Option<Self> {
        Some(SearchRefinement {
            query: "statins[tiab] AND myopathy[mh]".to_string(),
            reason: "Limits results to statin-induced muscle disease.".to_string(),
        })
    }

    fn check(&self) -> Vec<PayloadError> {
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
