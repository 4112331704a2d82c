//! Reading Anthropic's message stream: `message_start` (input tokens),
//! `content_block_start` / `content_block_delta` / `content_block_stop` for each text or
//! `tool_use` block, `message_delta` (the stop reason and output tokens),
//! `message_stop`, `ping`, and `error`, read as the typed events of [`super::wire`].
//! Event types it does not know are skipped by name, as Anthropic asks of clients.
//! `stop_reason: refusal` is [`FinishReason::Refusal`]: the turn reports a refusal.
//!
//! With extended thinking, `thinking` blocks come first: their `thinking_delta` pieces
//! are the reasoning channel ([`ModelChunk::Reasoning`], never text, docs/spec.md §9.1); their
//! signature (`signature_delta`) and `redacted_thinking` blocks are encrypted, nothing to
//! show. A second thinking block of the same answer starts after a blank line. Each
//! signed thinking block, once it stops, and each redacted one is also passed on whole
//! as a [`ModelChunk::Replay`]: the API refuses the results of the answer's tool calls
//! unless the answer's thinking blocks come back with them, unchanged.
//!
//! In whole-response tool mode the answer is the input of the output tool: that block's
//! `input_json_delta` pieces are passed on as text, not as a tool call, so the turn
//! reads the JSON as the answer. In native mode (`output_config.format`) the answer is
//! the text blocks themselves.

use super::wire::{ApiError, BlockDelta, ContentBlock, StreamEvent};
use crate::sse::Event;
use crate::transport::Decoder;
use crate::wire::{Wire, read_tagged};
use payload_agent::{FinishReason, ModelChunk, ModelError, ModelErrorKind, ReplayBlock, Usage};
use serde_json::json;
use std::collections::HashMap;

/// What a content block of the answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    /// A tool call, with its index among the answer's calls.
    Call(usize),
    /// The forced output tool's input: the answer itself.
    Answer,
    /// Extended thinking: the reasoning channel.
    Thinking,
}

/// The decoder of one attempt's stream.
#[derive(Debug, Default)]
pub(crate) struct AnthropicDecoder {
    /// The model that answers, once an event named it.
    model: Option<String>,
    /// The output tool's name, in whole-response tool mode.
    output: Option<String>,
    blocks: HashMap<u64, Block>,
    calls: usize,
    /// The output tool was called (its input is the answer).
    answered: bool,
    /// A thinking block has been read (the next one is a new section).
    thought: bool,
    /// The thinking blocks still open, by index: their text and signature so far.
    thinking: HashMap<u64, (String, String)>,
    input_tokens: u64,
    done: bool,
}

impl AnthropicDecoder {
    /// A decoder for a request whose output tool (if any) is `output`.
    pub(crate) fn new(output: Option<String>) -> AnthropicDecoder {
        AnthropicDecoder {
            output,
            ..AnthropicDecoder::default()
        }
    }

    fn start(&mut self, index: u64, block: ContentBlock) -> Vec<ModelChunk> {
        match block {
            ContentBlock::Text { text: start } => {
                self.blocks.insert(index, Block::Text);
                text(start)
            }
            ContentBlock::Thinking {
                thinking,
                signature,
            } => {
                self.blocks.insert(index, Block::Thinking);
                self.thinking.insert(index, (thinking.clone(), signature));
                let mut chunks = Vec::new();
                if std::mem::replace(&mut self.thought, true) {
                    chunks.push(ModelChunk::Reasoning("\n\n".to_string()));
                }
                if !thinking.is_empty() {
                    chunks.push(ModelChunk::Reasoning(thinking));
                }
                chunks
            }
            ContentBlock::ToolUse { name, .. } if Some(&name) == self.output.as_ref() => {
                self.answered = true;
                self.blocks.insert(index, Block::Answer);
                Vec::new()
            }
            ContentBlock::ToolUse { id, name } => {
                let call = self.calls;
                self.calls += 1;
                self.blocks.insert(index, Block::Call(call));
                // The block's `input` is always `{}`: the arguments come as deltas.
                vec![ModelChunk::ToolCallDelta {
                    index: call,
                    id: Some(id),
                    name: Some(name),
                    arguments: String::new(),
                }]
            }
            ContentBlock::RedactedThinking { data } => {
                vec![replay(json!({"type": "redacted_thinking", "data": data}))]
            }
            ContentBlock::Unknown => Vec::new(),
        }
    }

    fn delta(&mut self, index: u64, delta: BlockDelta) -> Vec<ModelChunk> {
        match (self.blocks.get(&index), delta) {
            (Some(Block::Text), BlockDelta::TextDelta { text: piece }) => text(piece),
            (Some(Block::Thinking), BlockDelta::ThinkingDelta { thinking })
                if !thinking.is_empty() =>
            {
                if let Some((text, _)) = self.thinking.get_mut(&index) {
                    text.push_str(&thinking);
                }
                vec![ModelChunk::Reasoning(thinking)]
            }
            (Some(Block::Thinking), BlockDelta::SignatureDelta { signature }) => {
                if let Some((_, signed)) = self.thinking.get_mut(&index) {
                    signed.push_str(&signature);
                }
                Vec::new()
            }
            (Some(Block::Answer), BlockDelta::InputJsonDelta { partial_json }) => {
                text(partial_json)
            }
            (Some(Block::Call(call)), BlockDelta::InputJsonDelta { partial_json }) => {
                vec![ModelChunk::ToolCallDelta {
                    index: *call,
                    id: None,
                    name: None,
                    arguments: partial_json,
                }]
            }
            _ => Vec::new(),
        }
    }

    /// A block stopped: a signed thinking block is complete and goes back with the
    /// answer. One cut before its signature is not sent back (the API would refuse it).
    fn stop(&mut self, index: u64) -> Vec<ModelChunk> {
        match self.thinking.remove(&index) {
            Some((thinking, signature)) if !signature.is_empty() => vec![replay(json!({
                "type": "thinking",
                "thinking": thinking,
                "signature": signature,
            }))],
            _ => Vec::new(),
        }
    }

    fn stop_reason(&self, reason: &str) -> FinishReason {
        match reason {
            "end_turn" | "stop_sequence" => FinishReason::Stop,
            "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
            // Stopping after the output tool alone is the answer ending, not a call.
            "tool_use" if self.calls == 0 && self.answered => FinishReason::Stop,
            "tool_use" => FinishReason::ToolCalls,
            "refusal" => FinishReason::Refusal,
            other => FinishReason::Other(other.to_string()),
        }
    }
}

impl Decoder for AnthropicDecoder {
    fn event(&mut self, event: &Event) -> Result<Vec<ModelChunk>, ModelError> {
        let event = match read_tagged::<StreamEvent>(&event.data)? {
            Wire::Known(event) => event,
            // Event types added later are skipped, as Anthropic asks of clients.
            Wire::Unknown { .. } => return Ok(Vec::new()),
        };
        Ok(match event {
            StreamEvent::MessageStart { message } => {
                self.model = message.model.filter(|m| !m.is_empty());
                self.input_tokens = message
                    .usage
                    .and_then(|u| u.input_tokens)
                    .unwrap_or_default();
                Vec::new()
            }
            StreamEvent::ContentBlockStart {
                index,
                content_block,
            } => self.start(index, content_block),
            StreamEvent::ContentBlockDelta { index, delta } => self.delta(index, delta),
            StreamEvent::MessageDelta { delta, usage } => {
                let mut chunks = Vec::new();
                if let Some(reason) = delta.stop_reason {
                    chunks.push(ModelChunk::Finish(self.stop_reason(&reason)));
                }
                if let Some(output) = usage.and_then(|u| u.output_tokens) {
                    // `output_tokens` is the total so far; this is the call's one usage.
                    chunks.push(ModelChunk::Usage(Usage {
                        input_tokens: self.input_tokens,
                        output_tokens: output,
                    }));
                }
                chunks
            }
            StreamEvent::MessageStop {} => {
                self.done = true;
                Vec::new()
            }
            StreamEvent::Error { error } => return Err(stream_error(error)),
            StreamEvent::ContentBlockStop { index } => self.stop(index),
            StreamEvent::Ping {} | StreamEvent::Unknown => Vec::new(),
        })
    }

    fn done(&self) -> bool {
        self.done
    }

    fn may_end(&self) -> bool {
        self.done
    }

    fn response_model(&self) -> Option<&str> {
        self.model.as_deref()
    }
}

/// The name replayed blocks carry ([`payload_agent::ReplayBlock::provider`]).
pub(crate) const PROVIDER: &str = "anthropic";

fn replay(block: serde_json::Value) -> ModelChunk {
    ModelChunk::Replay(ReplayBlock {
        provider: PROVIDER.to_string(),
        block,
    })
}

fn text(text: String) -> Vec<ModelChunk> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![ModelChunk::Text(text)]
    }
}

/// An `error` event, by its `error.type`.
fn stream_error(error: ApiError) -> ModelError {
    let kind = match error.kind.as_str() {
        "rate_limit_error" => ModelErrorKind::RateLimited,
        "invalid_request_error"
        | "authentication_error"
        | "permission_error"
        | "not_found_error"
        | "request_too_large" => ModelErrorKind::Rejected,
        _ => ModelErrorKind::Server,
    };
    let message = if error.message.is_empty() {
        "the provider failed".to_string()
    } else {
        error.message
    };
    ModelError::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> Event {
        Event {
            event: String::new(),
            data: data.to_string(),
            id: String::new(),
            retry: None,
        }
    }

    fn read(decoder: &mut AnthropicDecoder, data: &str) -> Vec<ModelChunk> {
        decoder.event(&event(data)).unwrap()
    }

    #[test]
    fn the_forced_output_tool_streams_as_text() {
        let mut decoder = AnthropicDecoder::new(Some("SchemaProposal".into()));
        read(
            &mut decoder,
            r#"{"type":"message_start","message":{"usage":{"input_tokens":12,"output_tokens":1}}}"#,
        );
        let start = r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"SchemaProposal","input":{}}}"#;
        assert!(read(&mut decoder, start).is_empty());
        let delta = r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#;
        assert_eq!(
            read(&mut decoder, delta),
            [ModelChunk::Text("{\"a\":".into())]
        );
        let stop = r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}"#;
        assert_eq!(
            read(&mut decoder, stop),
            [
                ModelChunk::Finish(FinishReason::Stop),
                ModelChunk::Usage(Usage {
                    input_tokens: 12,
                    output_tokens: 9
                })
            ]
        );
        assert!(!decoder.may_end());
        read(&mut decoder, r#"{"type":"message_stop"}"#);
        assert!(decoder.done() && decoder.may_end());
    }

    #[test]
    fn thinking_blocks_are_the_reasoning_channel() {
        let mut decoder = AnthropicDecoder::default();
        let start = r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#;
        assert!(read(&mut decoder, start).is_empty());
        let delta = r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Step one."}}"#;
        assert_eq!(
            read(&mut decoder, delta),
            [ModelChunk::Reasoning("Step one.".into())]
        );
        let signature = r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}"#;
        assert!(read(&mut decoder, signature).is_empty());
        // The block, once stopped, goes back whole with the answer (text and signature).
        let stop = r#"{"type":"content_block_stop","index":0}"#;
        assert_eq!(
            read(&mut decoder, stop),
            [replay(
                json!({"type": "thinking", "thinking": "Step one.", "signature": "EqQBCgIYAhIM"})
            )]
        );
        let redacted = r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}"#;
        assert_eq!(
            read(&mut decoder, redacted),
            [replay(
                json!({"type": "redacted_thinking", "data": "EmwKAhgB"})
            )]
        );
        let again = r#"{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":""}}"#;
        assert_eq!(
            read(&mut decoder, again),
            [ModelChunk::Reasoning("\n\n".into())]
        );
        // A thinking delta on a block that is not a thinking block is not reasoning.
        let text_start =
            r#"{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}"#;
        // A thinking block stopped before its signature is not sent back.
        let unsigned = r#"{"type":"content_block_stop","index":2}"#;
        assert!(read(&mut decoder, unsigned).is_empty());
        read(&mut decoder, text_start);
        let stray = r#"{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"x"}}"#;
        assert!(read(&mut decoder, stray).is_empty());
    }

    #[test]
    fn error_events_have_kinds() {
        let mut decoder = AnthropicDecoder::default();
        let overloaded =
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        let error = decoder.event(&event(overloaded)).unwrap_err();
        assert_eq!(
            (error.kind, error.message.as_str()),
            (ModelErrorKind::Server, "Overloaded")
        );
        let invalid =
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#;
        assert_eq!(
            decoder.event(&event(invalid)).unwrap_err().kind,
            ModelErrorKind::Rejected
        );
        assert!(read(&mut decoder, r#"{"type":"ping"}"#).is_empty());
    }

    #[test]
    fn unknown_events_are_named_and_skipped_and_known_ones_must_be_well_formed() {
        assert!(matches!(
            read_tagged::<StreamEvent>(r#"{"type":"server_tool_progress","x":1}"#).unwrap(),
            Wire::Unknown { kind } if kind == "server_tool_progress"
        ));
        let mut decoder = AnthropicDecoder::default();
        assert!(read(&mut decoder, r#"{"type":"server_tool_progress"}"#).is_empty());
        let unknown_block = r#"{"type":"content_block_start","index":0,"content_block":{"type":"web_search_tool_result","content":[]}}"#;
        assert!(read(&mut decoder, unknown_block).is_empty());
        let malformed = r#"{"type":"content_block_delta","index":"zero","delta":{"type":"text_delta","text":"x"}}"#;
        assert_eq!(
            decoder.event(&event(malformed)).unwrap_err().kind,
            ModelErrorKind::Protocol
        );
    }

    #[test]
    fn a_refusal_stop_is_a_refusal() {
        let mut decoder = AnthropicDecoder::default();
        let stop = r#"{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},"usage":{"output_tokens":3}}"#;
        assert_eq!(
            read(&mut decoder, stop)[0],
            ModelChunk::Finish(FinishReason::Refusal)
        );
    }
}
