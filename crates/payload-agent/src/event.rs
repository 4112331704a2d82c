//! The events of a turn (the chat architecture app) and their Server-Sent Events encoding: a web
//! handler writes each one with [`ServerSentEvent::write_sse`].

use payload_core::stream::sse::{self, ServerSentEvent};
use payload_core::{
    CustomPayload, LlmPayload, ParsedResponse, partial::Cursor, partial::PartialType,
    stream::StreamEvent,
};
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};

/// The events of a turn, with the chat architecture's SSE names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum AgentEvent {
    /// `status`: what the backend is doing ("Thinking...").
    Status {
        /// The status line.
        message: String,
    },
    /// `text_delta`: text safe to show.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// `reasoning_delta`: more of the model's reasoning (its reasoning channel, or a
    /// `<think>` section of its text), never part of the message. The deltas of a turn
    /// concatenated are `complete`'s `reasoning`.
    ReasoningDelta {
        /// The new reasoning text.
        text: String,
    },
    /// `payload_start`: a block of the page's payload types began in the text.
    PayloadStart {
        /// The payload type's name.
        #[serde(rename = "type")]
        kind: String,
        /// Its marker.
        marker: String,
    },
    /// `payload_progress`: the block's value so far (typed: [`AgentEvent::partial`]).
    PayloadProgress {
        /// The payload type's name.
        #[serde(rename = "type")]
        kind: String,
        /// The partial value.
        partial: Value,
        /// The JSON pointer of what is still arriving, `None` once the value closed.
        #[serde(skip_serializing_if = "Option::is_none")]
        open: Option<String>,
    },
    /// `tool_start`: a tool begins.
    ToolStart {
        /// The call's id.
        id: String,
        /// The tool's name.
        tool: String,
        /// Its input.
        input: Value,
    },
    /// `tool_progress`: what a running tool reported.
    ToolProgress {
        /// The call's id.
        id: String,
        /// The tool's name.
        tool: String,
        /// The progress message.
        message: String,
    },
    /// `tool_complete`: a tool finished.
    ToolComplete {
        /// The call's id.
        id: String,
        /// The tool's name.
        tool: String,
        /// The tool call's index in the turn, from 0.
        index: usize,
        /// `[[tool:N]]`, N being `index`: where a client places the tool's card.
        marker: String,
        /// What the model was told.
        text: String,
        /// What the client shows, if anything.
        payload: Option<CustomPayload>,
    },
    /// `refusal`: the model refused to answer (docs/spec.md §9.1: an outcome, never
    /// text). Comes before `complete`; the refusal is not parsed and not re-asked.
    Refusal {
        /// The model's refusal, in its words (empty when the provider gave none).
        message: String,
    },
    /// `complete`: the final response, tool precedence applied.
    Complete(ParsedResponse),
    /// `error`: the turn went wrong (the model failed, or kept calling tools).
    Error {
        /// What went wrong.
        message: String,
    },
}

impl ServerSentEvent for AgentEvent {
    fn event_name(&self) -> &'static str {
        match self {
            AgentEvent::Status { .. } => "status",
            AgentEvent::TextDelta { .. } => "text_delta",
            AgentEvent::ReasoningDelta { .. } => "reasoning_delta",
            AgentEvent::PayloadStart { .. } => "payload_start",
            AgentEvent::PayloadProgress { .. } => "payload_progress",
            AgentEvent::ToolStart { .. } => "tool_start",
            AgentEvent::ToolProgress { .. } => "tool_progress",
            AgentEvent::ToolComplete { .. } => "tool_complete",
            AgentEvent::Refusal { .. } => "refusal",
            AgentEvent::Complete(_) => "complete",
            AgentEvent::Error { .. } => "error",
        }
    }

    fn write_data(&self, out: &mut dyn Write) -> io::Result<()> {
        sse::write_json(out, self)
    }
}

impl AgentEvent {
    /// The partial value of a `payload_progress` event for `T`, typed (see
    /// [`payload_core::partial::PartialType`]); `None` for any other event or type.
    pub fn partial<T: LlmPayload + PartialType>(&self) -> Option<T::Partial> {
        match self {
            AgentEvent::PayloadProgress {
                kind,
                partial,
                open,
            } if kind == T::NAME => T::read_partial(partial, Cursor::root(open.as_deref())),
            _ => None,
        }
    }
}

impl From<StreamEvent> for AgentEvent {
    fn from(event: StreamEvent) -> Self {
        match event {
            StreamEvent::TextDelta { text } => AgentEvent::TextDelta { text },
            StreamEvent::ReasoningDelta { text } => AgentEvent::ReasoningDelta { text },
            StreamEvent::PayloadStart { kind, marker } => AgentEvent::PayloadStart { kind, marker },
            StreamEvent::PayloadProgress {
                kind,
                partial,
                open,
            } => AgentEvent::PayloadProgress {
                kind,
                partial,
                open,
            },
            StreamEvent::Complete(parsed) => AgentEvent::Complete(parsed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_encode_as_sse_with_the_seed_names() {
        let event = AgentEvent::Status {
            message: "Thinking...".into(),
        };
        assert_eq!(
            event.to_sse(),
            "event: status\ndata: {\"message\":\"Thinking...\"}\n\n"
        );
        let event = AgentEvent::TextDelta {
            text: "a\nb".into(),
        };
        assert_eq!(
            event.to_sse(),
            "event: text_delta\ndata: {\"text\":\"a\\nb\"}\n\n"
        );
        let event = AgentEvent::ReasoningDelta { text: "hmm".into() };
        assert_eq!(
            event.to_sse(),
            "event: reasoning_delta\ndata: {\"text\":\"hmm\"}\n\n"
        );
    }
}
