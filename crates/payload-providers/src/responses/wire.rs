//! The typed wire format of OpenAI's Responses API (`POST /v1/responses`, streamed):
//! the request, and the semantic events of its stream, each tagged by `type`. The
//! stream has no `[DONE]`: it ends with `response.completed`, `response.incomplete` or
//! `response.failed`, or with an `error` event. A type added later is
//! [`StreamEvent::Unknown`], named by [`crate::wire::read_tagged`] and skipped.

use crate::wire::TaggedEvent;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The body of `POST /v1/responses`.
#[derive(Debug, Serialize)]
pub(crate) struct ResponsesRequest<'a> {
    pub model: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub instructions: &'a str,
    pub input: Vec<InputItem<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<TextConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    pub stream: bool,
    /// The conversation is sent whole each time; nothing is kept on OpenAI's side.
    pub store: bool,
    /// With reasoning on, `reasoning.encrypted_content`: since nothing is stored, the
    /// reasoning items come back encrypted so the next request can carry them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<&'static str>,
}

/// One item of the input: a message, a call the model made, or a call's result.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum InputItem<'a> {
    Message {
        role: &'static str,
        content: &'a str,
    },
    FunctionCall {
        call_id: &'a str,
        name: &'a str,
        /// The arguments as JSON text, as the API takes them.
        arguments: String,
    },
    FunctionCallOutput {
        call_id: &'a str,
        output: &'a str,
    },
    /// An output item of an earlier answer sent back as it came (a reasoning item).
    #[serde(untagged)]
    Replay(&'a Value),
}

/// A tool the model may call.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Tool<'a> {
    Function {
        name: String,
        description: &'a str,
        parameters: &'a Value,
        strict: bool,
    },
    /// A tool whose input is free text, here constrained by a grammar.
    Custom {
        name: &'a str,
        description: &'a str,
        format: GrammarFormat<'a>,
    },
}

/// A custom tool's input format: a Lark grammar.
#[derive(Debug, Serialize)]
pub(crate) struct GrammarFormat<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub syntax: &'static str,
    pub definition: &'a str,
}

/// `text.format`: the answer's format.
#[derive(Debug, Serialize)]
pub(crate) struct TextConfig<'a> {
    pub format: TextFormat<'a>,
}

/// A JSON Schema the answer follows (strict), or JSON mode.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum TextFormat<'a> {
    JsonSchema {
        name: String,
        description: &'a str,
        schema: &'a Value,
        strict: bool,
    },
    JsonObject,
}

/// `reasoning`: the effort, and a summary of the reasoning streamed back.
#[derive(Debug, Serialize)]
pub(crate) struct ReasoningConfig<'a> {
    pub effort: &'a str,
    pub summary: &'static str,
}

/// One event of the stream, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum StreamEvent {
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded { output_index: u64, item: OutputItem },
    /// An item is complete: a reasoning item, with its encrypted content, goes back
    /// with the answer.
    #[serde(rename = "response.output_item.done")]
    OutputItemDone { item: Value },
    #[serde(rename = "response.output_text.delta")]
    OutputTextDelta { delta: String },
    #[serde(rename = "response.refusal.delta")]
    RefusalDelta { delta: String },
    #[serde(rename = "response.function_call_arguments.delta")]
    FunctionCallArgumentsDelta { output_index: u64, delta: String },
    #[serde(rename = "response.custom_tool_call_input.delta")]
    CustomToolCallInputDelta { output_index: u64, delta: String },
    #[serde(rename = "response.reasoning_summary_part.added")]
    ReasoningSummaryPartAdded {},
    #[serde(rename = "response.reasoning_summary_text.delta")]
    ReasoningSummaryTextDelta { delta: String },
    /// Raw reasoning, as open-weight models on compatible servers send it.
    #[serde(rename = "response.reasoning_text.delta")]
    ReasoningTextDelta { delta: String },
    #[serde(rename = "response.completed")]
    Completed { response: Response },
    #[serde(rename = "response.incomplete")]
    Incomplete { response: Response },
    #[serde(rename = "response.failed")]
    Failed { response: Response },
    #[serde(rename = "error")]
    Error {
        #[serde(default)]
        code: Option<String>,
        #[serde(default)]
        message: Option<String>,
        /// Some servers nest the error.
        #[serde(default)]
        error: Option<ErrorBody>,
    },
    /// The events that repeat what the deltas said (`*.done`, `*.added` of parts),
    /// or that carry nothing to read (`response.created`, `response.in_progress`).
    #[serde(
        rename = "response.created",
        alias = "response.in_progress",
        alias = "response.content_part.added",
        alias = "response.content_part.done",
        alias = "response.output_text.done",
        alias = "response.refusal.done",
        alias = "response.function_call_arguments.done",
        alias = "response.custom_tool_call_input.done",
        alias = "response.reasoning_summary_part.done",
        alias = "response.reasoning_summary_text.done",
        alias = "response.reasoning_text.done",
        alias = "response.output_text.annotation.added"
    )]
    Repeat {},
    #[serde(other)]
    Unknown,
}

impl TaggedEvent for StreamEvent {
    fn is_unknown(&self) -> bool {
        matches!(self, StreamEvent::Unknown)
    }
}

/// An item of the output, as it is added.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum OutputItem {
    Message {},
    Reasoning {},
    FunctionCall {
        call_id: String,
        name: String,
    },
    CustomToolCall {
        call_id: String,
        name: String,
    },
    #[serde(other)]
    Unknown,
}

/// The response as the last event carries it.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Response {
    /// The model that answers.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub usage: Option<ResponseUsage>,
    #[serde(default)]
    pub incomplete_details: Option<IncompleteDetails>,
    #[serde(default)]
    pub error: Option<ErrorBody>,
}

/// The tokens of the response.
#[derive(Debug, Deserialize)]
pub(crate) struct ResponseUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
}

/// Why a response is incomplete: `max_output_tokens` or `content_filter`.
#[derive(Debug, Deserialize)]
pub(crate) struct IncompleteDetails {
    #[serde(default)]
    pub reason: String,
}

/// An error's code and message.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ErrorBody {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}
