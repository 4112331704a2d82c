//! Reading Anthropic's message stream: `message_start` (input tokens),
//! `content_block_start` / `content_block_delta` / `content_block_stop` for each text or
//! `tool_use` block, `message_delta` (the stop reason and output tokens),
//! `message_stop`, `ping`, and `error`. Event types it does not know are skipped, as
//! Anthropic asks of clients.
//!
//! With extended thinking, `thinking` blocks come first: their `thinking_delta` pieces
//! are the reasoning channel ([`ModelChunk::Reasoning`], never text, docs/spec.md §9.1); their
//! `signature_delta` and `redacted_thinking` blocks (encrypted, nothing to show) are
//! skipped. A second thinking block of the same answer starts after a blank line.
//!
//! In whole-response mode the answer is the input of a forced tool: that block's
//! `input_json_delta` pieces are passed on as text, not as a tool call, so the turn
//! reads the JSON as the answer.

use crate::sse::Event;
use crate::transport::Decoder;
use payload_agent::{FinishReason, ModelChunk, ModelError, ModelErrorKind, Usage};
use serde_json::Value;
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
    /// The forced output tool's name, in whole-response mode.
    output: Option<String>,
    blocks: HashMap<u64, Block>,
    calls: usize,
    /// A thinking block has been read (the next one is a new section).
    thought: bool,
    input_tokens: u64,
    done: bool,
}

impl AnthropicDecoder {
    /// A decoder for a request whose forced output tool (if any) is `output`.
    pub(crate) fn new(output: Option<String>) -> AnthropicDecoder {
        AnthropicDecoder {
            output,
            ..AnthropicDecoder::default()
        }
    }

    fn start(&mut self, event: &Value) -> Vec<ModelChunk> {
        let index = event["index"].as_u64().unwrap_or_default();
        let block = &event["content_block"];
        match block["type"].as_str() {
            Some("text") => {
                self.blocks.insert(index, Block::Text);
                text(block["text"].as_str().unwrap_or_default())
            }
            Some("thinking") => {
                self.blocks.insert(index, Block::Thinking);
                let mut chunks = Vec::new();
                if std::mem::replace(&mut self.thought, true) {
                    chunks.push(ModelChunk::Reasoning("\n\n".to_string()));
                }
                let thinking = block["thinking"].as_str().unwrap_or_default();
                if !thinking.is_empty() {
                    chunks.push(ModelChunk::Reasoning(thinking.to_string()));
                }
                chunks
            }
            Some("tool_use") if block["name"].as_str() == self.output.as_deref() => {
                self.blocks.insert(index, Block::Answer);
                Vec::new()
            }
            Some("tool_use") => {
                let call = self.calls;
                self.calls += 1;
                self.blocks.insert(index, Block::Call(call));
                // `input` here is always `{}`: the arguments come as deltas.
                vec![ModelChunk::ToolCallDelta {
                    index: call,
                    id: block["id"].as_str().map(str::to_string),
                    name: block["name"].as_str().map(str::to_string),
                    arguments: String::new(),
                }]
            }
            _ => Vec::new(),
        }
    }

    fn delta(&self, event: &Value) -> Vec<ModelChunk> {
        let index = event["index"].as_u64().unwrap_or_default();
        let delta = &event["delta"];
        match (self.blocks.get(&index), delta["type"].as_str()) {
            (Some(Block::Text), Some("text_delta")) => {
                text(delta["text"].as_str().unwrap_or_default())
            }
            (Some(Block::Thinking), Some("thinking_delta")) => {
                match delta["thinking"].as_str().filter(|t| !t.is_empty()) {
                    Some(thinking) => vec![ModelChunk::Reasoning(thinking.to_string())],
                    None => Vec::new(),
                }
            }
            (Some(Block::Answer), Some("input_json_delta")) => {
                text(delta["partial_json"].as_str().unwrap_or_default())
            }
            (Some(Block::Call(call)), Some("input_json_delta")) => {
                vec![ModelChunk::ToolCallDelta {
                    index: *call,
                    id: None,
                    name: None,
                    arguments: delta["partial_json"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                }]
            }
            _ => Vec::new(),
        }
    }

    fn message_delta(&self, event: &Value) -> Vec<ModelChunk> {
        let mut chunks = Vec::new();
        if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
            chunks.push(ModelChunk::Finish(self.stop_reason(reason)));
        }
        if let Some(output) = event
            .pointer("/usage/output_tokens")
            .and_then(Value::as_u64)
        {
            // `output_tokens` is the total so far; this is the call's one usage chunk.
            chunks.push(ModelChunk::Usage(Usage {
                input_tokens: self.input_tokens,
                output_tokens: output,
            }));
        }
        chunks
    }

    fn stop_reason(&self, reason: &str) -> FinishReason {
        match reason {
            "end_turn" | "stop_sequence" => FinishReason::Stop,
            "max_tokens" => FinishReason::Length,
            // Stopping for the forced output tool is the answer ending, not a call.
            "tool_use" if self.calls == 0 && self.output.is_some() => FinishReason::Stop,
            "tool_use" => FinishReason::ToolCalls,
            "refusal" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        }
    }
}

impl Decoder for AnthropicDecoder {
    fn event(&mut self, event: &Event) -> Result<Vec<ModelChunk>, ModelError> {
        let data: Value = serde_json::from_str(&event.data).map_err(|e| {
            ModelError::new(
                ModelErrorKind::Protocol,
                format!(
                    "the stream sent an event that is not JSON ({e}): {}",
                    event.data
                ),
            )
        })?;
        let kind = data["type"].as_str().unwrap_or(&event.event);
        Ok(match kind {
            "message_start" => {
                self.input_tokens = data
                    .pointer("/message/usage/input_tokens")
                    .and_then(Value::as_u64)
                    .unwrap_or_default();
                Vec::new()
            }
            "content_block_start" => self.start(&data),
            "content_block_delta" => self.delta(&data),
            "message_delta" => self.message_delta(&data),
            "message_stop" => {
                self.done = true;
                Vec::new()
            }
            "error" => return Err(stream_error(&data)),
            // ping, content_block_stop, and event types added later.
            _ => Vec::new(),
        })
    }

    fn done(&self) -> bool {
        self.done
    }

    fn may_end(&self) -> bool {
        self.done
    }
}

fn text(text: &str) -> Vec<ModelChunk> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![ModelChunk::Text(text.to_string())]
    }
}

/// An `error` event, by its `error.type`.
fn stream_error(data: &Value) -> ModelError {
    let kind = match data.pointer("/error/type").and_then(Value::as_str) {
        Some("rate_limit_error") => ModelErrorKind::RateLimited,
        Some(
            "invalid_request_error"
            | "authentication_error"
            | "permission_error"
            | "not_found_error"
            | "request_too_large",
        ) => ModelErrorKind::Rejected,
        _ => ModelErrorKind::Server,
    };
    let message = data
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("the provider failed");
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
        let redacted = r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}"#;
        assert!(read(&mut decoder, redacted).is_empty());
        let again = r#"{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":""}}"#;
        assert_eq!(
            read(&mut decoder, again),
            [ModelChunk::Reasoning("\n\n".into())]
        );
        // A thinking delta on a block that is not a thinking block is not reasoning.
        let text_start =
            r#"{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}"#;
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
}
