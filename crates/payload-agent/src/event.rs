//! The events of a turn (the chat architecture app) and their Server-Sent Events encoding: a web
//! handler writes each one with [`ServerSentEvent::write_sse`].

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

/// Why a turn ended as a refusal rather than with an answer: the `reason` of the
/// `refusal` event (`"refusal"` or `"content_filter"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RefusalReason {
    /// The model refused (its refusal channel: OpenAI's `refusal`, the Responses API's
    /// refusal parts; Anthropic's `stop_reason: refusal`).
    Refusal,
    /// The provider's content filter stopped the answer or blocked the prompt (OpenAI's
    /// and the Responses API's `content_filter`; Gemini's `SAFETY`, `RECITATION`,
    /// `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII` stops and its blocked prompts).
    ContentFilter,
}

impl RefusalReason {
    /// The name the `refusal` event, the CLI and AG-UI's `RUN_ERROR` code use.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalReason::Refusal => "refusal",
            RefusalReason::ContentFilter => "content_filter",
        }
    }

    /// The outcome of an answer that sent `words` on its refusal channel (the
    /// [`ModelChunk::Refusal`](crate::ModelChunk::Refusal) pieces joined) and stopped
    /// for `finish`: a filter's stop whatever words came with it, a refusal when the
    /// model said one or stopped to refuse, `None` for an answer.
    pub fn of(words: &str, finish: Option<&crate::FinishReason>) -> Option<RefusalReason> {
        match finish {
            Some(crate::FinishReason::ContentFilter) => Some(RefusalReason::ContentFilter),
            Some(crate::FinishReason::Refusal) => Some(RefusalReason::Refusal),
            _ if !words.is_empty() => Some(RefusalReason::Refusal),
            _ => None,
        }
    }

    /// The outcome's message: `words` (the model's or the provider's), or
    /// [`RefusalReason::message`] when they are blank.
    pub fn describe(self, words: &str) -> String {
        if words.trim().is_empty() {
            self.message().to_string()
        } else {
            words.to_string()
        }
    }

    /// What is said when the provider gave no words.
    pub fn message(self) -> &'static str {
        match self {
            RefusalReason::Refusal => "The model refused to answer.",
            RefusalReason::ContentFilter => "The provider's content filter stopped the answer.",
        }
    }
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
        });
        assert_eq!(
            event.to_sse(),
            "event: text_delta\ndata: {\"text\":\"a\\nb\"}\n\n"
        );
        let event = AgentEvent::from(StreamEvent::ReasoningDelta { text: "hmm".into() });
        assert_eq!(
            event.to_sse(),
            "event: reasoning_delta\ndata: {\"text\":\"hmm\"}\n\n"
        );
    }
}
