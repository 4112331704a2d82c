//! SUGGESTED_VALUES and SUGGESTED_ACTIONS as payload types.

use payload_core::{LlmPayload, suggestions::SuggestedAction, suggestions::SuggestedValue};
use payload_registry::PayloadEntry;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Clickable chips the user can tap to send their next message. Include 2-4 after
/// creating a table, after a schema change, after populating data, after answering a
/// question, or when the user seems unsure; never after a proposal, and not when the
/// conversation is clearly finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "suggested_values",
    marker = "SUGGESTED_VALUES",
    example = crate::examples::suggested_values,
    rule = "2-4 items; each label is 2-6 words",
    rule = "value is the exact text sent as the user's next message",
    rule = "never together with a SCHEMA_PROPOSAL or DATA_PROPOSAL: the user must act on the proposal first",
    summary = SuggestedValues::summary_line
)]
pub struct SuggestedValues(pub Vec<SuggestedValue>);

/// Clickable buttons that trigger client-side actions. Only actions listed under
/// CLIENT ACTIONS may be used; never invent one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "suggested_actions",
    marker = "SUGGESTED_ACTIONS",
    example = crate::examples::suggested_actions,
    rule = "action must be one of the CLIENT ACTIONS of this page; handler must be that action's handler",
    rule = "never together with a SCHEMA_PROPOSAL or DATA_PROPOSAL",
    summary = SuggestedActions::summary_line
)]
pub struct SuggestedActions(pub Vec<SuggestedAction>);

payload_registry::__private::inventory::submit! {
    PayloadEntry::suggestions(<SuggestedValues as LlmPayload>::TYPE)
}
payload_registry::__private::inventory::submit! {
    PayloadEntry::suggestions(<SuggestedActions as LlmPayload>::TYPE)
}

impl SuggestedValues {
    /// `chips: Yes, No`.
    pub fn summary_line(&self) -> String {
        let labels: Vec<&str> = self.0.iter().map(|v| v.label.as_str()).collect();
        format!("chips: {}", labels.join(", "))
    }
}

impl SuggestedActions {
    /// `buttons: Close chat (close_chat)`.
    pub fn summary_line(&self) -> String {
        let labels: Vec<String> = self
            .0
            .iter()
            .map(|a| format!("{} ({})", a.label, a.action))
            .collect();
        format!("buttons: {}", labels.join(", "))
    }
}
