//! The typed wire format of a streamed Chat Completions answer: `chat.completion.chunk`
//! objects (`choices[0].delta` with `content`, `refusal`, `tool_calls` fragments and the
//! reasoning of compatible servers; `finish_reason`), a last chunk with `usage` and no
//! choices, and an `error` object when the server fails mid-stream. Members this client
//! does not read are ignored; `null` is read as absent, as the API sends it.

use serde::Deserialize;
use serde_json::Value;

/// One `data:` object of the stream.
#[derive(Debug, Deserialize)]
pub(crate) struct ChatChunk {
    /// The model that answers.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub choices: Option<Vec<Choice>>,
    #[serde(default)]
    pub usage: Option<ChatUsage>,
    /// A failure: `{"message", "type", "code"}` (or a bare string on some servers).
    #[serde(default)]
    pub error: Option<Value>,
}

/// One choice of a chunk (the client asks for one).
#[derive(Debug, Deserialize)]
pub(crate) struct Choice {
    #[serde(default)]
    pub delta: Option<Delta>,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// What a chunk adds to the answer.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Delta {
    #[serde(default)]
    pub content: Option<String>,
    /// The model's refusal (OpenAI structured outputs), an outcome and never text.
    #[serde(default)]
    pub refusal: Option<String>,
    /// Reasoning as DeepSeek, llama.cpp, SGLang and older vLLM send it.
    #[serde(default)]
    pub reasoning_content: Option<String>,
    /// Reasoning as newer vLLM, OpenRouter and Ollama send it.
    #[serde(default)]
    pub reasoning: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A fragment of a tool call.
#[derive(Debug, Deserialize)]
pub(crate) struct ToolCallDelta {
    #[serde(default)]
    pub index: Option<usize>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub function: Option<FunctionDelta>,
}

/// The function of a tool-call fragment: its name first, its arguments' text in pieces.
#[derive(Debug, Deserialize)]
pub(crate) struct FunctionDelta {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub arguments: Option<String>,
}

/// The tokens of the call.
#[derive(Debug, Deserialize)]
pub(crate) struct ChatUsage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
}
