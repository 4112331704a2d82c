//! Reading a Responses API stream into chunks: `response.output_text.delta` is text,
//! `response.refusal.delta` the refusal (never text), the reasoning summary's and raw
//! reasoning's deltas the reasoning channel (docs/spec.md §9.1; a new summary part
//! starts after a blank line), function calls' `arguments` deltas tool-call pieces by
//! the call's output index. In whole-response tool mode the output tool's arguments
//! are the answer's text; with a grammar tool, so is its custom input.
//!
//! The last event says how the answer ended: `response.completed` (a stop, or tool
//! calls when it made any), `response.incomplete` (`max_output_tokens` is the token
//! limit, `content_filter` the filter), `response.failed` and `error` (the failure, by
//! its code).

use super::wire::{ErrorBody, OutputItem, Response, StreamEvent};
use crate::sse::Event;
use crate::transport::Decoder;
use crate::wire::{Wire, read_tagged};
use payload_agent::{FinishReason, ModelChunk, ModelError, ModelErrorKind, ReplayBlock, Usage};
use std::collections::HashMap;

/// What an output item is to the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// A call of a page tool, with its index among the answer's calls.
    Call(usize),
    /// The output tool's (or grammar tool's) input: the answer itself.
    Answer,
}

/// The decoder of one attempt's stream.
#[derive(Debug, Default)]
pub(crate) struct ResponsesDecoder {
    /// The model that answers, once an event named it.
    model: Option<String>,
    /// The name of the tool whose input is the answer, if any.
    answer_tool: Option<String>,
    items: HashMap<u64, Item>,
    calls: usize,
    /// A reasoning summary part has been read (the next one is a new section).
    summarized: bool,
    done: bool,
}

impl ResponsesDecoder {
    /// A decoder for a request whose answer is the input of `answer_tool`, if any.
    pub(crate) fn new(answer_tool: Option<String>) -> ResponsesDecoder {
        ResponsesDecoder {
            answer_tool,
            ..ResponsesDecoder::default()
        }
    }

    fn item(&mut self, index: u64, item: OutputItem) -> Vec<ModelChunk> {
        match item {
            OutputItem::FunctionCall { call_id, name }
            | OutputItem::CustomToolCall { call_id, name } => {
                if Some(&name) == self.answer_tool.as_ref() {
                    self.items.insert(index, Item::Answer);
                    return Vec::new();
                }
                let call = self.calls;
                self.calls += 1;
                self.items.insert(index, Item::Call(call));
                vec![ModelChunk::ToolCallDelta {
                    index: call,
                    id: Some(call_id),
                    name: Some(name),
                    arguments: String::new(),
                }]
            }
            OutputItem::Message {} | OutputItem::Reasoning {} | OutputItem::Unknown => Vec::new(),
        }
    }

    fn arguments(&self, index: u64, delta: String) -> Vec<ModelChunk> {
        match self.items.get(&index) {
            Some(Item::Answer) if !delta.is_empty() => vec![ModelChunk::Text(delta)],
            Some(Item::Call(call)) => vec![ModelChunk::ToolCallDelta {
                index: *call,
                id: None,
                name: None,
                arguments: delta,
            }],
            _ => Vec::new(),
        }
    }

    /// The chunks of the last event: how it ended, and the tokens.
    fn ended(&mut self, reason: FinishReason, response: Response) -> Vec<ModelChunk> {
        self.done = true;
        if let Some(model) = response.model.as_ref().filter(|m| !m.is_empty()) {
            self.model = Some(model.clone());
        }
        let mut chunks = vec![ModelChunk::Finish(reason)];
        if let Some(usage) = response.usage {
            chunks.push(ModelChunk::Usage(Usage {
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
            }));
        }
        chunks
    }
}

impl Decoder for ResponsesDecoder {
    fn event(&mut self, event: &Event) -> Result<Vec<ModelChunk>, ModelError> {
        let event = match read_tagged::<StreamEvent>(&event.data)? {
            Wire::Known(event) => event,
            Wire::Unknown { .. } => return Ok(Vec::new()),
        };
        Ok(match event {
            StreamEvent::OutputItemAdded { output_index, item } => self.item(output_index, item),
            StreamEvent::OutputTextDelta { delta } => nonempty(delta, ModelChunk::Text),
            StreamEvent::RefusalDelta { delta } => nonempty(delta, ModelChunk::Refusal),
            StreamEvent::FunctionCallArgumentsDelta {
                output_index,
                delta,
            }
            | StreamEvent::CustomToolCallInputDelta {
                output_index,
                delta,
            } => self.arguments(output_index, delta),
            StreamEvent::ReasoningSummaryPartAdded {} => {
                if std::mem::replace(&mut self.summarized, true) {
                    vec![ModelChunk::Reasoning("\n\n".to_string())]
                } else {
                    Vec::new()
                }
            }
            StreamEvent::ReasoningSummaryTextDelta { delta }
            | StreamEvent::ReasoningTextDelta { delta } => nonempty(delta, ModelChunk::Reasoning),
            StreamEvent::Completed { response } => {
                let reason = if self.calls > 0 {
                    FinishReason::ToolCalls
                } else {
                    FinishReason::Stop
                };
                self.ended(reason, response)
            }
            StreamEvent::Incomplete { response } => {
                let reason = match response.incomplete_details.as_ref() {
                    Some(details) if details.reason == "max_output_tokens" => FinishReason::Length,
                    Some(details) if details.reason == "content_filter" => {
                        FinishReason::ContentFilter
                    }
                    Some(details) => FinishReason::Other(details.reason.clone()),
                    None => FinishReason::Other("incomplete".to_string()),
                };
                self.ended(reason, response)
            }
            StreamEvent::Failed { response } => {
                self.done = true;
                return Err(failure(response.error.unwrap_or_default()));
            }
            StreamEvent::Error {
                code,
                message,
                error,
            } => {
                let nested = error.unwrap_or_default();
                return Err(failure(ErrorBody {
                    code: code.or(nested.code),
                    message: message.or(nested.message),
                }));
            }
            StreamEvent::OutputItemDone { item } => replay(item),
            StreamEvent::Repeat {} | StreamEvent::Unknown => Vec::new(),
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

/// The name replayed items carry ([`payload_agent::ReplayBlock::provider`]).
pub(crate) const PROVIDER: &str = "openai_responses";

/// A finished reasoning item that carries its encrypted content goes back with the
/// answer: with `store: false` the API keeps nothing, and a reasoning model's next
/// request after its tool calls reads its reasoning from there. An item without the
/// content names what was never stored, which the API would refuse, so it stays here.
fn replay(item: serde_json::Value) -> Vec<ModelChunk> {
    let reasoning = item["type"] == "reasoning"
        && item["encrypted_content"]
            .as_str()
            .is_some_and(|content| !content.is_empty());
    if reasoning {
        vec![ModelChunk::Replay(ReplayBlock {
            provider: PROVIDER.to_string(),
            block: item,
        })]
    } else {
        Vec::new()
    }
}

fn nonempty(text: String, chunk: fn(String) -> ModelChunk) -> Vec<ModelChunk> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![chunk(text)]
    }
}

/// A failure the stream reported, by its code.
fn failure(error: ErrorBody) -> ModelError {
    let code = error.code.unwrap_or_default();
    let kind = if code.contains("rate_limit") {
        ModelErrorKind::RateLimited
    } else if code.contains("invalid") || code.contains("not_found") {
        ModelErrorKind::Rejected
    } else {
        ModelErrorKind::Server
    };
    let message = error
        .message
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "the provider failed".to_string());
    ModelError::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(decoder: &mut ResponsesDecoder, data: &str) -> Vec<ModelChunk> {
        decoder
            .event(&Event {
                event: String::new(),
                data: data.to_string(),
                id: String::new(),
                retry: None,
            })
            .unwrap()
    }

    #[test]
    fn every_documented_event_that_carries_nothing_new_is_known() {
        for kind in [
            "response.created",
            "response.in_progress",
            "response.content_part.added",
            "response.content_part.done",
            "response.output_text.done",
            "response.refusal.done",
            "response.function_call_arguments.done",
            "response.reasoning_summary_part.done",
            "response.reasoning_summary_text.done",
        ] {
            let data = format!(r#"{{"type":"{kind}","sequence_number":1}}"#);
            assert!(
                matches!(
                    read_tagged::<StreamEvent>(&data),
                    Ok(Wire::Known(StreamEvent::Repeat {}))
                ),
                "{kind}"
            );
        }
        assert!(matches!(
            read_tagged::<StreamEvent>(r#"{"type":"response.audio.delta","delta":"AAAA"}"#),
            Ok(Wire::Unknown { kind }) if kind == "response.audio.delta"
        ));
    }

    #[test]
    fn the_output_tools_arguments_are_the_answer_and_other_calls_are_calls() {
        let mut decoder = ResponsesDecoder::new(Some("note".into()));
        let added = r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"note","arguments":"","status":"in_progress"}}"#;
        assert!(read(&mut decoder, added).is_empty());
        let delta = r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"a\":1}"}"#;
        assert_eq!(
            read(&mut decoder, delta),
            [ModelChunk::Text("{\"a\":1}".into())]
        );
        let other = r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_2","call_id":"call_2","name":"echo","arguments":""}}"#;
        assert_eq!(
            read(&mut decoder, other),
            [ModelChunk::ToolCallDelta {
                index: 0,
                id: Some("call_2".into()),
                name: Some("echo".into()),
                arguments: String::new()
            }]
        );
        let done = r#"{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":5,"output_tokens":7,"total_tokens":12}}}"#;
        assert_eq!(
            read(&mut decoder, done),
            [
                ModelChunk::Finish(FinishReason::ToolCalls),
                ModelChunk::Usage(Usage {
                    input_tokens: 5,
                    output_tokens: 7
                })
            ]
        );
        assert!(decoder.done());
    }
}
