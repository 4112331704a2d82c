//! The turn events both translators' tests replay, each built from only what a test
//! varies: every event is in part 0 (a test that needs real positions renumbers them),
//! and a block's marker is its type in capitals, as the parser names it.

use payload_agent::{AgentEvent, RefusalReason};
use payload_core::stream::StreamEvent;
use payload_core::{CustomPayload, ParsedResponse};
use serde_json::Value;

/// A piece of the answer's text.
pub(crate) fn text(piece: impl Into<String>) -> AgentEvent {
    AgentEvent::Stream(StreamEvent::TextDelta {
        text: piece.into(),
        part: 0,
    })
}

/// A piece of the model's reasoning.
pub(crate) fn reasoning(piece: impl Into<String>) -> AgentEvent {
    AgentEvent::Stream(StreamEvent::ReasoningDelta {
        text: piece.into(),
        part: 0,
    })
}

/// A block of type `kind` begins.
pub(crate) fn start(kind: &str) -> AgentEvent {
    AgentEvent::Stream(StreamEvent::PayloadStart {
        kind: kind.into(),
        marker: kind.to_uppercase(),
        part: 0,
    })
}

/// The block of type `kind` as far as it has arrived.
pub(crate) fn progress(kind: &str, partial: Value) -> AgentEvent {
    AgentEvent::Stream(StreamEvent::PayloadProgress {
        kind: kind.into(),
        partial,
        open: None,
        part: 0,
    })
}

/// The turn completes with no text, accepting `payload` (its type and data) if any.
pub(crate) fn complete(payload: Option<(&str, Value)>) -> AgentEvent {
    complete_saying("", payload)
}

/// The turn completes with `message` as its text, accepting `payload` if any.
pub(crate) fn complete_saying(message: &str, payload: Option<(&str, Value)>) -> AgentEvent {
    let mut parsed = ParsedResponse::default();
    parsed.message = message.into();
    parsed.custom_payload = payload.map(|(kind, data)| CustomPayload::new(kind, data));
    AgentEvent::Stream(StreamEvent::Complete(parsed.into()))
}

/// The model refused (or a content filter stopped it) with `message`.
pub(crate) fn refusal(message: &str, reason: RefusalReason) -> AgentEvent {
    AgentEvent::Refusal {
        message: message.into(),
        reason,
    }
}

/// The turn failed with `message`.
pub(crate) fn error(message: &str) -> AgentEvent {
    AgentEvent::Error {
        message: message.into(),
    }
}

/// A status line ("Thinking…"), which neither protocol carries.
pub(crate) fn status() -> AgentEvent {
    AgentEvent::Status {
        message: "…".into(),
    }
}

/// The `lookup` tool is called as `call-{n}`.
pub(crate) fn tool_start(n: usize) -> AgentEvent {
    AgentEvent::ToolStart {
        id: format!("call-{n}"),
        tool: "lookup".into(),
        input: serde_json::json!({ "n": n }),
    }
}
