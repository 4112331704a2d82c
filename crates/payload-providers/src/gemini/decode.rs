//! Reading a Gemini stream into chunks: each `data:` object's first candidate's parts in
//! order, `text` parts as text, `thought: true` parts as reasoning (docs/spec.md §9.1),
//! `functionCall` parts (whole) as tool calls, or as the answer's text when the call is
//! the whole-response output function's. The call's id carries the part's
//! `thoughtSignature` (`sig:` and the signature) so that the request that sends the
//! call back can echo it, as Gemini's thinking models require.
//!
//! The chunk with `finishReason` ends the answer: `STOP` (tool calls when it made any),
//! `MAX_TOKENS` the token limit, `SAFETY`, `RECITATION`, `BLOCKLIST`,
//! `PROHIBITED_CONTENT`, `SPII` and `IMAGE_SAFETY` the content filter, said with the
//! reason's name as the filter's words (docs/spec.md §9.4: an outcome, never an empty
//! answer). A blocked prompt (`promptFeedback.blockReason`, no candidate) is the filter
//! too. The usage counts are running totals in every chunk: the last is reported once,
//! at the finish.

use super::wire::{ApiError, GenerateResponse, ResponsePart, UsageMetadata};
use crate::sse::Event;
use crate::transport::Decoder;
use crate::wire::read;
use payload_agent::{FinishReason, ModelChunk, ModelError, ModelErrorKind, Usage};

/// What a call's id starts with when it carries the part's thought signature.
pub(crate) const SIGNATURE_ID: &str = "sig:";

/// The decoder of one attempt's stream.
#[derive(Debug, Default)]
pub(crate) struct GeminiDecoder {
    /// The model that answers, once an event named it.
    model: Option<String>,
    /// The whole-response output function's name, in tool mode.
    output: Option<String>,
    calls: usize,
    usage: Option<UsageMetadata>,
    finished: bool,
}

impl GeminiDecoder {
    /// A decoder for a request whose output function (if any) is `output`.
    pub(crate) fn new(output: Option<String>) -> GeminiDecoder {
        GeminiDecoder {
            output,
            ..GeminiDecoder::default()
        }
    }

    fn part(&mut self, part: ResponsePart, chunks: &mut Vec<ModelChunk>) {
        if let Some(call) = part.function_call {
            let args = call.args.unwrap_or_else(|| serde_json::json!({}));
            if Some(&call.name) == self.output.as_ref() {
                chunks.push(ModelChunk::Text(args.to_string()));
                return;
            }
            let id = match part.thought_signature {
                Some(signature) => format!("{SIGNATURE_ID}{signature}"),
                None => format!("gemini_call_{}", self.calls),
            };
            chunks.push(ModelChunk::ToolCall {
                id,
                name: call.name,
                input: args,
            });
            self.calls += 1;
            return;
        }
        let Some(text) = part.text.filter(|t| !t.is_empty()) else {
            return;
        };
        if part.thought == Some(true) {
            chunks.push(ModelChunk::Reasoning(text));
        } else {
            chunks.push(ModelChunk::Text(text));
        }
    }

    fn finish_reason(&self, reason: &str) -> FinishReason {
        match reason {
            "STOP" if self.calls > 0 => FinishReason::ToolCalls,
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
            | "IMAGE_SAFETY" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        }
    }
}

impl Decoder for GeminiDecoder {
    fn event(&mut self, event: &Event) -> Result<Vec<ModelChunk>, ModelError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let response: GenerateResponse = read(data)?;
        if let Some(error) = response.error {
            return Err(api_error(error));
        }
        if self.model.is_none() {
            self.model = response.model_version.filter(|m| !m.is_empty());
        }
        if let Some(usage) = response.usage_metadata {
            self.usage = Some(usage);
        }
        let mut chunks = Vec::new();
        if let Some(reason) = response.prompt_feedback.and_then(|f| f.block_reason) {
            self.finished = true;
            chunks.push(ModelChunk::Refusal(format!(
                "The provider blocked the prompt ({reason})."
            )));
            chunks.push(ModelChunk::Finish(FinishReason::ContentFilter));
            chunks.extend(self.usage_chunk());
            return Ok(chunks);
        }
        let Some(candidate) = response.candidates.into_iter().flatten().next() else {
            return Ok(chunks);
        };
        let parts = candidate.content.and_then(|c| c.parts).unwrap_or_default();
        for part in parts {
            self.part(part, &mut chunks);
        }
        if let Some(reason) = candidate.finish_reason {
            self.finished = true;
            let finish = self.finish_reason(&reason);
            if finish == FinishReason::ContentFilter {
                // The filter's name is all Gemini says of it: the outcome's words.
                chunks.push(ModelChunk::Refusal(format!(
                    "The provider's content filter stopped the answer ({reason})."
                )));
            }
            chunks.push(ModelChunk::Finish(finish));
            chunks.extend(self.usage_chunk());
        }
        Ok(chunks)
    }

    fn done(&self) -> bool {
        false
    }

    fn may_end(&self) -> bool {
        self.finished
    }

    fn response_model(&self) -> Option<&str> {
        self.model.as_deref()
    }
}

impl GeminiDecoder {
    /// The call's usage, once: thinking tokens are output tokens.
    fn usage_chunk(&mut self) -> Option<ModelChunk> {
        self.usage.take().map(|usage| {
            ModelChunk::Usage(Usage {
                input_tokens: usage.prompt_token_count,
                output_tokens: usage.candidates_token_count + usage.thoughts_token_count,
            })
        })
    }
}

/// An error object in the stream, by its `status`.
fn api_error(error: ApiError) -> ModelError {
    let kind = match error.status.as_deref().unwrap_or_default() {
        "RESOURCE_EXHAUSTED" => ModelErrorKind::RateLimited,
        "INVALID_ARGUMENT"
        | "FAILED_PRECONDITION"
        | "PERMISSION_DENIED"
        | "NOT_FOUND"
        | "UNAUTHENTICATED" => ModelErrorKind::Rejected,
        _ => ModelErrorKind::Server,
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

    fn read(decoder: &mut GeminiDecoder, data: &str) -> Result<Vec<ModelChunk>, ModelError> {
        decoder.event(&Event {
            event: "message".into(),
            data: data.into(),
            id: String::new(),
            retry: None,
        })
    }

    #[test]
    fn thought_parts_are_reasoning_and_usage_comes_once_at_the_finish() {
        let mut decoder = GeminiDecoder::default();
        let thought = r#"{"candidates":[{"content":{"parts":[{"text":"Hmm.","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"thoughtsTokenCount":4}}"#;
        assert_eq!(
            read(&mut decoder, thought).unwrap(),
            [ModelChunk::Reasoning("Hmm.".into())]
        );
        let last = r#"{"candidates":[{"content":{"parts":[{"text":"Hi."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":2,"thoughtsTokenCount":4}}"#;
        assert_eq!(
            read(&mut decoder, last).unwrap(),
            [
                ModelChunk::Text("Hi.".into()),
                ModelChunk::Finish(FinishReason::Stop),
                ModelChunk::Usage(Usage {
                    input_tokens: 9,
                    output_tokens: 6
                })
            ]
        );
        assert!(decoder.may_end());
    }

    #[test]
    fn a_blocked_prompt_is_a_refusal_and_errors_have_kinds() {
        let mut decoder = GeminiDecoder::default();
        let blocked =
            r#"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":5}}"#;
        let chunks = read(&mut decoder, blocked).unwrap();
        assert_eq!(
            chunks[..2],
            [
                ModelChunk::Refusal("The provider blocked the prompt (SAFETY).".into()),
                ModelChunk::Finish(FinishReason::ContentFilter)
            ]
        );
        let error = r#"{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}"#;
        assert_eq!(
            read(&mut decoder, error).unwrap_err().kind,
            ModelErrorKind::RateLimited
        );
        assert_eq!(
            read(&mut decoder, r#"{"candidates":"many"}"#)
                .unwrap_err()
                .kind,
            ModelErrorKind::Protocol
        );
    }
}
