//! Why a model stopped answering, and the refusal a turn reports when that stop (or
//! the model's words) says it refused: what a model's chunks and a turn's events both
//! name, kept below both.

use serde::Serialize;

/// Why a model stopped answering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// It finished its answer.
    Stop,
    /// It hit the token limit (OpenAI `length`, Anthropic `max_tokens`).
    Length,
    /// It stopped to have tools run.
    ToolCalls,
    /// The provider's content filter stopped it, or blocked the prompt (OpenAI and the
    /// Responses API `content_filter`, Gemini's `SAFETY`, `RECITATION`, `BLOCKLIST`,
    /// `PROHIBITED_CONTENT`, `SPII` and blocked prompts): an outcome like a refusal,
    /// reported by a `refusal` event with reason `content_filter`, never an empty answer.
    ContentFilter,
    /// The model refused (Anthropic `stop_reason: refusal`, OpenAI's refusal output):
    /// the turn reports a `refusal` event.
    Refusal,
    /// A reason this crate does not know, as the provider spelled it.
    Other(String),
}

impl FinishReason {
    /// The reason as the OpenTelemetry GenAI conventions write it
    /// (`gen_ai.response.finish_reasons`): `stop`, `length`, `tool_call`,
    /// `content_filter`, `refusal`, or the provider's own word.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_call",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Refusal => "refusal",
            FinishReason::Other(other) => other,
        }
    }
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
    pub fn of(words: &str, finish: Option<&FinishReason>) -> Option<RefusalReason> {
        match finish {
            Some(FinishReason::ContentFilter) => Some(RefusalReason::ContentFilter),
            Some(FinishReason::Refusal) => Some(RefusalReason::Refusal),
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
