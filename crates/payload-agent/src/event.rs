//! The events of a turn (the chat architecture app) and their Server-Sent Events encoding: a web
//! handler writes each one with [`ServerSentEvent::write_sse`].

use crate::finish::RefusalReason;
use payload_core::stream::sse::{self, ServerSentEvent};
use payload_core::{
    CustomPayload, LlmPayload, ParsedResponse, partial::PartialType, stream::StreamEvent,
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
    /// What the stream parser reports, under its own SSE names: `text_delta`,
    /// `reasoning_delta` (the model's reasoning channel too, not only `<think>`
    /// sections), `payload_start`, `payload_progress` (typed: [`AgentEvent::partial`]),
    /// and `complete`: the final response, tool precedence applied.
    Stream(StreamEvent),
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
    /// `refusal`: the model refused to answer, or the provider's content filter stopped
    /// the answer or blocked the prompt (docs/spec.md §9.4: an outcome, never text).
    /// Comes before `complete` (the parse of the text before it); the words are never
    /// parsed, no tool of the answer runs and nothing is re-asked.
    Refusal {
        /// The refusal in the model's words, or the provider's words for the filter's
        /// stop; when neither said anything, [`RefusalReason::message`]. Never empty.
        message: String,
        /// Whether the model refused or the provider's filter stopped it.
        reason: RefusalReason,
    },
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
            AgentEvent::Stream(event) => event.name(),
            AgentEvent::ToolStart { .. } => "tool_start",
            AgentEvent::ToolProgress { .. } => "tool_progress",
            AgentEvent::ToolComplete { .. } => "tool_complete",
            AgentEvent::Refusal { .. } => "refusal",
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
            AgentEvent::Stream(event) => event.partial::<T>(),
            _ => None,
        }
    }

    /// The final response of a `complete` event; `None` for any other event.
    pub fn complete(&self) -> Option<&ParsedResponse> {
        match self {
            AgentEvent::Stream(StreamEvent::Complete(parsed)) => Some(parsed),
            _ => None,
        }
    }
}

impl From<StreamEvent> for AgentEvent {
    fn from(event: StreamEvent) -> Self {
        AgentEvent::Stream(event)
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
        let event = AgentEvent::from(StreamEvent::TextDelta {
            text: "a\nb".into(),
            part: 0,
        });
        assert_eq!(
            event.to_sse(),
            "event: text_delta\ndata: {\"text\":\"a\\nb\",\"part\":0}\n\n"
        );
        let event = AgentEvent::from(StreamEvent::ReasoningDelta {
            text: "hmm".into(),
            part: 1,
        });
        assert_eq!(
            event.to_sse(),
            "event: reasoning_delta\ndata: {\"text\":\"hmm\",\"part\":1}\n\n"
        );
    }
}
