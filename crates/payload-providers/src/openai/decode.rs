//! Reading an OpenAI-compatible chat completion stream: `data:` lines holding
//! `chat.completion.chunk` objects (`choices[0].delta.content`, `delta.tool_calls[]`
//! fragments, `finish_reason`), a last chunk with `usage` and no choices, then
//! `data: [DONE]`. An object with an `error` member is the server failing mid-stream.
//!
//! Reasoning models on compatible servers send their reasoning apart from the answer, in
//! `delta.reasoning_content` (DeepSeek, llama.cpp, SGLang, older vLLM) or
//! `delta.reasoning` (newer vLLM, OpenRouter, Ollama): it becomes
//! [`ModelChunk::Reasoning`], never text (docs/spec.md §9.1). A `delta.refusal` is the
//! model refusing (OpenAI structured outputs): [`ModelChunk::Refusal`], never text, and
//! `finish_reason: "content_filter"` the provider's filter (docs/spec.md §9.4).
//!
//! The chunks are read as the typed structs of [`super::wire`].

use super::wire::{ChatChunk, Choice};
use crate::http_error::error_message;
use crate::sse::Event;
use crate::transport::Decoder;
use crate::wire::{read, some_text};
use payload_agent::{FinishReason, ModelChunk, ModelError, ModelErrorKind, Usage};
use serde_json::Value;

/// The decoder of one attempt's stream.
#[derive(Debug, Default)]
pub(crate) struct OpenAiDecoder {
    /// The model that answers, once an event named it.
    model: Option<String>,
    /// The output function's name, in whole-response tool mode.
    answer_tool: Option<String>,
    /// The index of the call to it, once it began: its arguments are the answer.
    answer_index: Option<usize>,
    /// Calls of the page's tools so far.
    calls: usize,
    finished: bool,
    done: bool,
}

impl Decoder for OpenAiDecoder {
    fn event(&mut self, event: &Event) -> Result<Vec<ModelChunk>, ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(Vec::new());
        }
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let chunk: ChatChunk = read(data)?;
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            return Err(stream_error(error));
        }
        if self.model.is_none() {
            self.model = chunk.model.filter(|m| !m.is_empty());
        }
        let mut chunks = Vec::new();
        if let Some(choice) = chunk.choices.into_iter().flatten().next() {
            self.choice(choice, &mut chunks);
        }
        if let Some(usage) = chunk.usage {
            chunks.push(ModelChunk::Usage(Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
            }));
        }
        Ok(chunks)
    }

    fn done(&self) -> bool {
        self.done
    }

    fn may_end(&self) -> bool {
        // Some compatible servers close after the finish reason without `[DONE]`.
        self.done || self.finished
    }

    fn response_model(&self) -> Option<&str> {
        self.model.as_deref()
    }
}

impl OpenAiDecoder {
    /// A decoder for a request whose answer is the arguments of `answer_tool`, if any.
    pub(crate) fn new(answer_tool: Option<String>) -> OpenAiDecoder {
        OpenAiDecoder {
            answer_tool,
            ..OpenAiDecoder::default()
        }
    }

    fn choice(&mut self, choice: Choice, chunks: &mut Vec<ModelChunk>) {
        let delta = choice.delta.unwrap_or_default();
        // A server sends one of the two names; were both there, they would be the same
        // text twice, so the first one present is read.
        let reasoning = some_text(delta.reasoning_content).or(some_text(delta.reasoning));
        if let Some(reasoning) = reasoning {
            chunks.push(ModelChunk::Reasoning(reasoning));
        }
        if let Some(refusal) = some_text(delta.refusal) {
            chunks.push(ModelChunk::Refusal(refusal));
        }
        if let Some(text) = some_text(delta.content) {
            chunks.push(ModelChunk::Text(text));
        }
        for (n, call) in delta.tool_calls.into_iter().flatten().enumerate() {
            let (name, arguments) = match call.function {
                Some(function) => (some_text(function.name), function.arguments),
                None => (None, None),
            };
            let index = call.index.unwrap_or(n);
            if name.is_some() && name == self.answer_tool {
                self.answer_index = Some(index);
            }
            if Some(index) == self.answer_index {
                if let Some(piece) = some_text(arguments) {
                    chunks.push(ModelChunk::Text(piece));
                }
                continue;
            }
            if name.is_some() {
                self.calls += 1;
            }
            chunks.push(ModelChunk::ToolCallDelta {
                index,
                id: some_text(call.id),
                name,
                arguments: arguments.unwrap_or_default(),
            });
        }
        if let Some(reason) = choice.finish_reason {
            self.finished = true;
            let reason = match finish_reason(&reason) {
                // Stopping after the output function alone is the answer ending.
                FinishReason::ToolCalls if self.calls == 0 && self.answer_index.is_some() => {
                    FinishReason::Stop
                }
                reason => reason,
            };
            chunks.push(ModelChunk::Finish(reason));
        }
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        "refusal" => FinishReason::Refusal,
        other => FinishReason::Other(other.to_string()),
    }
}

/// An error object sent inside the stream, by its `type` or `code`.
pub(crate) fn stream_error(error: Value) -> ModelError {
    let label = error["type"]
        .as_str()
        .or_else(|| error["code"].as_str())
        .unwrap_or_default();
    let kind = if label.contains("rate_limit") {
        ModelErrorKind::RateLimited
    } else if label.contains("invalid_request") {
        ModelErrorKind::Rejected
    } else {
        ModelErrorKind::Server
    };
    let message = error_message(&serde_json::json!({ "error": error }))
        .unwrap_or_else(|| "the provider failed".to_string());
    ModelError::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> Event {
        Event {
            event: "message".to_string(),
            data: data.to_string(),
            id: String::new(),
            retry: None,
        }
    }

    #[test]
    fn deltas_calls_finish_usage_and_done() {
        let mut decoder = OpenAiDecoder::default();
        let text = r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}"#;
        assert_eq!(
            decoder.event(&event(text)).unwrap(),
            [ModelChunk::Text("Hi".into())]
        );
        let call = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_9","type":"function","function":{"name":"f","arguments":"{\"a"}}]},"finish_reason":null}]}"#;
        assert_eq!(
            decoder.event(&event(call)).unwrap(),
            [ModelChunk::ToolCallDelta {
                index: 1,
                id: Some("call_9".into()),
                name: Some("f".into()),
                arguments: "{\"a".into()
            }]
        );
        assert!(!decoder.may_end());
        let finish = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#;
        assert_eq!(
            decoder.event(&event(finish)).unwrap(),
            [ModelChunk::Finish(FinishReason::Length)]
        );
        let usage = r#"{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}"#;
        assert_eq!(
            decoder.event(&event(usage)).unwrap(),
            [ModelChunk::Usage(Usage {
                input_tokens: 7,
                output_tokens: 3
            })]
        );
        assert!(decoder.may_end() && !decoder.done());
        decoder.event(&event("[DONE]")).unwrap();
        assert!(decoder.done());
    }

    #[test]
    fn reasoning_content_and_reasoning_are_the_reasoning_channel() {
        let mut decoder = OpenAiDecoder::default();
        let deepseek = r#"{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Hmm"},"finish_reason":null}]}"#;
        assert_eq!(
            decoder.event(&event(deepseek)).unwrap(),
            [ModelChunk::Reasoning("Hmm".into())]
        );
        let vllm = r#"{"choices":[{"index":0,"delta":{"reasoning":" ok"},"finish_reason":null}]}"#;
        assert_eq!(
            decoder.event(&event(vllm)).unwrap(),
            [ModelChunk::Reasoning(" ok".into())]
        );
        let both = r#"{"choices":[{"index":0,"delta":{"reasoning_content":"","content":"Hi","refusal":null},"finish_reason":null}]}"#;
        assert_eq!(
            decoder.event(&event(both)).unwrap(),
            [ModelChunk::Text("Hi".into())]
        );
    }

    #[test]
    fn errors_in_the_stream_and_bad_json() {
        let mut decoder = OpenAiDecoder::default();
        let error = r#"{"error":{"message":"The server had an error","type":"server_error"}}"#;
        let failed = decoder.event(&event(error)).unwrap_err();
        assert_eq!(failed.kind, ModelErrorKind::Server);
        assert_eq!(failed.message, "The server had an error");
        let bad = decoder.event(&event("{nope")).unwrap_err();
        assert_eq!(bad.kind, ModelErrorKind::Protocol);
    }

    #[test]
    fn refusal_deltas_are_the_refusal_never_text() {
        let mut decoder = OpenAiDecoder::default();
        let refusal = r#"{"choices":[{"index":0,"delta":{"content":null,"refusal":"I'm sorry"},"finish_reason":null}]}"#;
        assert_eq!(
            decoder.event(&event(refusal)).unwrap(),
            [ModelChunk::Refusal("I'm sorry".into())]
        );
    }

    #[test]
    fn a_member_of_the_wrong_type_is_a_protocol_error_not_a_silent_miss() {
        let mut decoder = OpenAiDecoder::default();
        let wrong = r#"{"choices":[{"index":0,"delta":{"content":7},"finish_reason":null}]}"#;
        assert_eq!(
            decoder.event(&event(wrong)).unwrap_err().kind,
            ModelErrorKind::Protocol
        );
    }
}
