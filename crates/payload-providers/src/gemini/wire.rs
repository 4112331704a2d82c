//! The typed wire format of Google's Gemini API (`models/{model}:streamGenerateContent`
//! with `alt=sse`): the request (contents of parts, the system instruction, function
//! declarations, the generation config with `responseJsonSchema` and thinking) and the
//! `GenerateContentResponse` objects of the stream. The stream has no end marker: the
//! chunk with a `finishReason` is the last, then the connection closes. Members this
//! client does not read are ignored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The body of `streamGenerateContent`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerateRequest<'a> {
    pub contents: Vec<Content<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tools<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig>,
    pub generation_config: GenerationConfig<'a>,
}

/// A turn of the conversation (`user` or `model`), or the system instruction.
#[derive(Debug, Serialize)]
pub(crate) struct Content<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    pub parts: Vec<Part<'a>>,
}

/// One part of a turn: text, a function call the model made, or a call's result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Part<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse<'a>>,
    /// The signature of the model's reasoning, echoed back with its function call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<&'a str>,
}

impl<'a> Part<'a> {
    /// A text part.
    pub fn text(text: &'a str) -> Part<'a> {
        Part {
            text: Some(text),
            function_call: None,
            function_response: None,
            thought_signature: None,
        }
    }
}

/// A function call, as the model made it.
#[derive(Debug, Serialize)]
pub(crate) struct FunctionCall<'a> {
    pub name: &'a str,
    pub args: &'a Value,
}

/// A function's result for the model.
#[derive(Debug, Serialize)]
pub(crate) struct FunctionResponse<'a> {
    pub name: &'a str,
    pub response: Value,
}

/// A set of function declarations.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tools<'a> {
    pub function_declarations: Vec<FunctionDeclaration<'a>>,
}

/// A function the model may call, its parameters as JSON Schema.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FunctionDeclaration<'a> {
    pub name: String,
    pub description: &'a str,
    pub parameters_json_schema: &'a Value,
}

/// How the model may call functions.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolConfig {
    pub function_calling_config: FunctionCallingConfig,
}

/// `ANY`: the model must call a function (one of `allowed_function_names` if given).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FunctionCallingConfig {
    pub mode: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_function_names: Vec<String>,
}

/// The answer's limits and format.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerationConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_mime_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_json_schema: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
}

/// Thinking: its token budget, and its summaries streamed as `thought` parts.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThinkingConfig {
    pub include_thoughts: bool,
    pub thinking_budget: u32,
}

/// One chunk of the stream.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerateResponse {
    /// The model version that answers.
    #[serde(default)]
    pub model_version: Option<String>,
    #[serde(default)]
    pub candidates: Option<Vec<Candidate>>,
    #[serde(default)]
    pub prompt_feedback: Option<PromptFeedback>,
    #[serde(default)]
    pub usage_metadata: Option<UsageMetadata>,
    /// A failure mid-stream: `{"code", "message", "status"}`.
    #[serde(default)]
    pub error: Option<ApiError>,
}

/// The answer (the client asks for one candidate).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Candidate {
    #[serde(default)]
    pub content: Option<CandidateContent>,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The parts of the answer in this chunk.
#[derive(Debug, Deserialize)]
pub(crate) struct CandidateContent {
    #[serde(default)]
    pub parts: Option<Vec<ResponsePart>>,
}

/// A part of the answer: text (reasoning when `thought`), or a whole function call.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponsePart {
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub thought: Option<bool>,
    #[serde(default)]
    pub function_call: Option<ResponseFunctionCall>,
    #[serde(default)]
    pub thought_signature: Option<String>,
}

/// A function call in the answer, whole.
#[derive(Debug, Deserialize)]
pub(crate) struct ResponseFunctionCall {
    pub name: String,
    #[serde(default)]
    pub args: Option<Value>,
}

/// Why the prompt was blocked, when it was.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptFeedback {
    #[serde(default)]
    pub block_reason: Option<String>,
}

/// The tokens so far (every chunk carries the running counts).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UsageMetadata {
    #[serde(default)]
    pub prompt_token_count: u64,
    #[serde(default)]
    pub candidates_token_count: u64,
    #[serde(default)]
    pub thoughts_token_count: u64,
}

/// An error object (also the body of an error response).
#[derive(Debug, Deserialize)]
pub(crate) struct ApiError {
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}
