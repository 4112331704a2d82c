//! The AI SDK's UI message stream chunks (protocol `v1`, header
//! `x-vercel-ai-ui-message-stream: v1`), named and shaped as the `ai` package's
//! `uiMessageChunkSchema` defines them (the tests run it over every chunk the server
//! sends). Only the chunks a turn needs are here; an optional field is left out when
//! absent, never sent as `null`.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

/// The response header naming the protocol, and its value.
pub const HEADER: (&str, &str) = ("x-vercel-ai-ui-message-stream", "v1");

/// The `data:` of the last Server-Sent Event of a stream.
pub const DONE: &str = "[DONE]";

/// Why a message finished, as `finish` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// The answer is whole.
    Stop,
    /// The provider's content filter stopped it.
    ContentFilter,
    /// It failed, or the model refused.
    Error,
    /// Anything else.
    Other,
}

impl FinishReason {
    /// Its name in the protocol.
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ContentFilter => "content-filter",
            FinishReason::Error => "error",
            FinishReason::Other => "other",
        }
    }
}

/// One chunk of a UI message stream, written as the `data:` of a Server-Sent Event.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    /// The message begins: its id and metadata (the conversation it belongs to).
    Start {
        /// The assistant message's id.
        message_id: String,
        /// What the client keeps as the message's `metadata`.
        metadata: Value,
    },
    /// A step (one model call) begins.
    StartStep,
    /// The step ends.
    FinishStep,
    /// A text part begins.
    TextStart {
        /// The part's id, stable within the message.
        id: String,
    },
    /// A piece of a text part (never empty).
    TextDelta {
        /// The part.
        id: String,
        /// The piece.
        delta: String,
    },
    /// The text part is complete.
    TextEnd {
        /// The part.
        id: String,
    },
    /// A reasoning part begins.
    ReasoningStart {
        /// The part's id.
        id: String,
    },
    /// A piece of reasoning (never empty).
    ReasoningDelta {
        /// The part.
        id: String,
        /// The piece.
        delta: String,
    },
    /// The reasoning part is complete.
    ReasoningEnd {
        /// The part.
        id: String,
    },
    /// A data part `data-<name>`: a chunk with an `id` the client already holds
    /// replaces that part's data in place.
    Data {
        /// The part's name (its type without `data-`): the payload type.
        name: String,
        /// The part's id.
        id: String,
        /// Its data.
        data: Value,
    },
    /// A tool call whose input is whole (a dynamic tool: the client declares none).
    ToolInputAvailable {
        /// The call's id.
        tool_call_id: String,
        /// The tool.
        tool_name: String,
        /// Its input.
        input: Value,
    },
    /// The call waits for the user's approval.
    ToolApprovalRequest {
        /// The approval's id: what the client's response names.
        approval_id: String,
        /// The call.
        tool_call_id: String,
    },
    /// What the call produced.
    ToolOutputAvailable {
        /// The call.
        tool_call_id: String,
        /// Its output.
        output: Value,
    },
    /// The user denied the call: it did nothing.
    ToolOutputDenied {
        /// The call.
        tool_call_id: String,
    },
    /// What went wrong; the client shows it as the message's error.
    Error {
        /// The words.
        error_text: String,
    },
    /// The message is complete: always the last chunk.
    Finish {
        /// Why.
        reason: FinishReason,
    },
}

impl Chunk {
    /// The chunk's `type`.
    pub fn kind(&self) -> String {
        match self {
            Chunk::Start { .. } => "start".into(),
            Chunk::StartStep => "start-step".into(),
            Chunk::FinishStep => "finish-step".into(),
            Chunk::TextStart { .. } => "text-start".into(),
            Chunk::TextDelta { .. } => "text-delta".into(),
            Chunk::TextEnd { .. } => "text-end".into(),
            Chunk::ReasoningStart { .. } => "reasoning-start".into(),
            Chunk::ReasoningDelta { .. } => "reasoning-delta".into(),
            Chunk::ReasoningEnd { .. } => "reasoning-end".into(),
            Chunk::Data { name, .. } => format!("data-{name}"),
            Chunk::ToolInputAvailable { .. } => "tool-input-available".into(),
            Chunk::ToolApprovalRequest { .. } => "tool-approval-request".into(),
            Chunk::ToolOutputAvailable { .. } => "tool-output-available".into(),
            Chunk::ToolOutputDenied { .. } => "tool-output-denied".into(),
            Chunk::Error { .. } => "error".into(),
            Chunk::Finish { .. } => "finish".into(),
        }
    }

    /// The chunk as the protocol writes it.
    pub fn to_json(&self) -> Value {
        let mut out = match self {
            Chunk::Start {
                message_id,
                metadata,
            } => json!({"messageId": message_id, "messageMetadata": metadata}),
            Chunk::StartStep | Chunk::FinishStep => json!({}),
            Chunk::TextStart { id }
            | Chunk::TextEnd { id }
            | Chunk::ReasoningStart { id }
            | Chunk::ReasoningEnd { id } => json!({ "id": id }),
            Chunk::TextDelta { id, delta } | Chunk::ReasoningDelta { id, delta } => {
                json!({ "id": id, "delta": delta })
            }
            Chunk::Data { id, data, .. } => json!({ "id": id, "data": data }),
            Chunk::ToolInputAvailable {
                tool_call_id,
                tool_name,
                input,
            } => json!({
                "toolCallId": tool_call_id, "toolName": tool_name, "input": input,
                "dynamic": true,
            }),
            Chunk::ToolApprovalRequest {
                approval_id,
                tool_call_id,
            } => json!({ "approvalId": approval_id, "toolCallId": tool_call_id }),
            Chunk::ToolOutputAvailable {
                tool_call_id,
                output,
            } => json!({ "toolCallId": tool_call_id, "output": output, "dynamic": true }),
            Chunk::ToolOutputDenied { tool_call_id } => json!({ "toolCallId": tool_call_id }),
            Chunk::Error { error_text } => json!({ "errorText": error_text }),
            Chunk::Finish { reason } => json!({ "finishReason": reason.as_str() }),
        };
        let mut typed = Map::new();
        typed.insert("type".into(), Value::String(self.kind()));
        if let Value::Object(fields) = &mut out {
            typed.append(fields);
        }
        Value::Object(typed)
    }

    /// Whether nothing may follow it.
    pub fn is_finish(&self) -> bool {
        matches!(self, Chunk::Finish { .. })
    }
}

impl Serialize for Chunk {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_part_is_named_by_its_type_and_fields_are_camel_case() {
        let chunk = Chunk::Data {
            name: "recipe".into(),
            id: "payload-1".into(),
            data: json!({"status": "drafting"}),
        };
        assert_eq!(
            serde_json::to_value(&chunk).unwrap(),
            json!({"type": "data-recipe", "id": "payload-1", "data": {"status": "drafting"}})
        );
        let approval = Chunk::ToolApprovalRequest {
            approval_id: "a".into(),
            tool_call_id: "c".into(),
        };
        assert_eq!(
            approval.to_json(),
            json!({"type": "tool-approval-request", "approvalId": "a", "toolCallId": "c"})
        );
        assert_eq!(
            Chunk::Finish {
                reason: FinishReason::ContentFilter
            }
            .to_json(),
            json!({"type": "finish", "finishReason": "content-filter"})
        );
    }
}
