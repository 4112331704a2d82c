//! AG-UI 1.x's events and run input as typed serde structs, named and shaped as
//! `@ag-ui/core` 1.0 defines them (its zod schemas, which the tests run over every
//! event the server sends). Only what the server sends or reads is here; an optional
//! field is left out when absent, never sent as `null` (1.0 refuses `null` for them).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One AG-UI event, written as the `data:` of a Server-Sent Event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "SCREAMING_SNAKE_CASE",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// The run began.
    RunStarted {
        /// The thread (the conversation).
        thread_id: String,
        /// The run.
        run_id: String,
    },
    /// The run ended: done, or waiting for a decision.
    RunFinished {
        /// The thread.
        thread_id: String,
        /// The run.
        run_id: String,
        /// What the turn produced (the parsed response: message, suggestions, payload).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// Why it ended.
        outcome: Outcome,
    },
    /// The run failed; nothing follows.
    RunError {
        /// What went wrong.
        message: String,
        /// A short name for it.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// An assistant message begins.
    TextMessageStart {
        /// Its id.
        message_id: String,
        /// Always `assistant`.
        role: &'static str,
    },
    /// A piece of the message.
    TextMessageContent {
        /// The message.
        message_id: String,
        /// The piece (never empty).
        delta: String,
    },
    /// The message is complete.
    TextMessageEnd {
        /// The message.
        message_id: String,
    },
    /// The model begins reasoning.
    ReasoningStart {
        /// The reasoning's id.
        message_id: String,
    },
    /// Its text begins.
    ReasoningMessageStart {
        /// The reasoning's id.
        message_id: String,
        /// Always `reasoning`.
        role: &'static str,
    },
    /// A piece of the reasoning.
    ReasoningMessageContent {
        /// The reasoning's id.
        message_id: String,
        /// The piece.
        delta: String,
    },
    /// Its text is complete.
    ReasoningMessageEnd {
        /// The reasoning's id.
        message_id: String,
    },
    /// The reasoning is over.
    ReasoningEnd {
        /// The reasoning's id.
        message_id: String,
    },
    /// A tool call begins.
    ToolCallStart {
        /// The call's id.
        tool_call_id: String,
        /// The tool.
        tool_call_name: String,
        /// The assistant message it belongs to, when one is open.
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    },
    /// The call's arguments (JSON text).
    ToolCallArgs {
        /// The call.
        tool_call_id: String,
        /// The arguments, or a piece of them.
        delta: String,
    },
    /// The call's arguments are complete.
    ToolCallEnd {
        /// The call.
        tool_call_id: String,
    },
    /// What the tool answered.
    ToolCallResult {
        /// The tool message's id.
        message_id: String,
        /// The call.
        tool_call_id: String,
        /// What the model was told.
        content: String,
        /// Always `tool`.
        role: &'static str,
    },
    /// A payload's card, whole.
    ActivitySnapshot {
        /// The card's id.
        message_id: String,
        /// Always `payload`.
        activity_type: &'static str,
        /// The card ([`PayloadActivity`]).
        content: Value,
        /// Whether it replaces the card sent before under this id.
        replace: bool,
    },
    /// A change to a payload's card: a JSON Patch (RFC 6902) of its content.
    ActivityDelta {
        /// The card's id.
        message_id: String,
        /// Always `payload`.
        activity_type: &'static str,
        /// The patch.
        patch: json_patch::Patch,
    },
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Outcome {
    /// It completed.
    Success,
    /// It waits for something from outside: the user's decision on a proposal.
    Interrupt {
        /// What it waits for (at least one).
        interrupts: Vec<Interrupt>,
    },
}

/// Something a run waits for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    /// Its id: what the next run's `resume` entry names.
    pub id: String,
    /// Why: `payload_decision`.
    pub reason: String,
    /// What to ask the user.
    pub message: String,
    /// The schema of the `payload` a resume entry may carry.
    pub response_schema: Value,
    /// The payload's type, turn and card id.
    pub metadata: Value,
}

/// The content of a payload's card (`activityType: "payload"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PayloadActivity {
    /// The payload's type.
    #[serde(rename = "type")]
    pub kind: String,
    /// `drafting`, `proposed`, `shown` (the app does nothing with it),
    /// `accepted` or `dismissed`.
    pub status: &'static str,
    /// The value so far (`drafting`, the typed partial) or the whole value.
    pub data: Value,
    /// What accepting it did, once accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied: Option<Value>,
}

/// AG-UI's `RunAgentInput`: what a client sends to run the agent.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunAgentInput {
    /// The thread: the conversation.
    pub thread_id: String,
    /// This run.
    pub run_id: String,
    /// The conversation as the client knows it; the last user message is the new one.
    pub messages: Vec<Message>,
    /// The client's tools (this server offers the page's own; these are not called).
    #[serde(default)]
    pub tools: Vec<Value>,
    /// Ambient context entries (the page context is `forwardedProps.context`).
    #[serde(default)]
    pub context: Vec<Value>,
    /// `{"context": {"current_page": ..., ...}}`: the page and its own fields.
    #[serde(default)]
    pub forwarded_props: Option<Value>,
    /// Answers to the interrupts of the run before.
    #[serde(default)]
    pub resume: Option<Vec<ResumeEntry>>,
}

/// A message of the input.
#[derive(Debug, Clone, Deserialize)]
pub struct Message {
    /// Its id.
    #[serde(default)]
    pub id: String,
    /// `user`, `assistant`, `system`, `developer`, `tool`, `activity`, `reasoning`.
    pub role: String,
    /// Its text, or a list of content parts.
    #[serde(default)]
    pub content: Value,
}

impl Message {
    /// Its text: the string, or the text parts joined.
    pub fn text(&self) -> String {
        match &self.content {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
}

/// An answer to an interrupt.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeEntry {
    /// The interrupt answered.
    pub interrupt_id: String,
    /// `resolved` or `cancelled`.
    pub status: String,
    /// For `resolved`: `{"decision": "accept" | "dismiss", "options": {...}}`.
    #[serde(default)]
    pub payload: Option<Value>,
}
