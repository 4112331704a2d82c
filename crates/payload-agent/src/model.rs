//! What passes between the agent and a model: the request for one call, the messages
//! of the conversation, and the chunks of a streamed answer.
//!
//! A model is anything that turns a [`ModelRequest`] into a [`ModelStream`], an
//! asynchronous stream of [`ModelChunk`]s: an HTTP client reading a provider's
//! server-sent events (the `payload-providers` crate has OpenAI and Anthropic), or a script
//! in tests (any `FnMut(&ModelRequest) -> Vec<ModelChunk>` is a model). Failures are
//! chunks too ([`ModelChunk::Error`]), so a stream never ends without saying why.

use crate::finish::{FinishReason, RefusalReason};
use crate::tools::ToolSpec;
use futures::Stream;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::pin::Pin;
use std::time::Duration;

/// A piece of a model's streamed answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelChunk {
    /// Text, in whatever pieces the model API delivers.
    Text(String),
    /// Reasoning from the provider's own reasoning channel (Anthropic `thinking`
    /// deltas, OpenAI Responses reasoning summaries, Gemini `thought` parts, the
    /// `reasoning_content` of OpenAI-compatible servers): shown as
    /// `reasoning_delta` events and returned in `complete`'s `reasoning`, never read for
    /// payloads or suggestions (docs/spec.md §9.1).
    Reasoning(String),
    /// A piece of the model's refusal to answer (OpenAI's `refusal` field and deltas,
    /// the Responses API's refusal parts), or the provider's words for its content
    /// filter's stop (Gemini names the filter): an outcome, never text. The turn reports
    /// the pieces joined as one `refusal` event, does not parse them and does not
    /// re-ask; the answer's [`FinishReason`] says which outcome it is
    /// ([`RefusalReason::of`](RefusalReason::of)).
    Refusal(String),
    /// A part of the answer its provider needs back, unchanged, when the conversation
    /// continues (Anthropic's signed `thinking` and `redacted_thinking` blocks, which must
    /// precede the answer's tool calls when their results are sent). Never shown, never
    /// parsed: the turn keeps it with the answer ([`ModelMessage::Assistant`]'s `replay`)
    /// and the provider's client writes it back into the next request.
    Replay(ReplayBlock),
    /// A piece of a tool call whose arguments arrive in fragments (as both OpenAI's and
    /// Anthropic's streams deliver them). The first piece of call `index` carries its id
    /// and name; every piece may carry more of the arguments' JSON text. The agent joins
    /// the pieces and reads the arguments when the answer ends.
    ToolCallDelta {
        /// Which call of the answer this piece belongs to (0 for the first call).
        index: usize,
        /// The call's id, on the first piece.
        id: Option<String>,
        /// The tool's name, on the first piece.
        name: Option<String>,
        /// More of the arguments' JSON text.
        arguments: String,
    },
    /// A whole tool call, for models that deliver calls in one piece.
    ToolCall {
        /// The call's id, echoed back with its result.
        id: String,
        /// The tool's name.
        name: String,
        /// Its input.
        input: Value,
    },
    /// Why the model stopped. [`FinishReason::Length`] means the answer was cut by the
    /// token limit: a payload still open there is reported `truncated`.
    Finish(FinishReason),
    /// Tokens used by the call (providers send it at the end; it may come more than
    /// once, and the agent keeps the last).
    Usage(Usage),
    /// The model API failed; the turn ends with an `error` event, then `complete`
    /// carrying what arrived before the failure.
    Error(ModelError),
}

/// Tokens one model call used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Tokens of the request (prompt, conversation, tools).
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
}

/// What kind of failure a [`ModelError`] is; decides whether a retry can help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// The provider refused for rate or quota (HTTP 429); retried after `retry_after`.
    RateLimited,
    /// The provider failed (HTTP 5xx, or an `overloaded`/`server` error event); retried.
    Server,
    /// The connection failed or dropped; retried when nothing had arrived yet.
    Connection,
    /// No answer, or no next piece of it, within the time allowed. The HTTP clients do
    /// not send such a request again (the server may still be working on it).
    Timeout,
    /// The request was refused as wrong (HTTP 4xx other than 429: a bad key, an unknown
    /// model, a schema the provider rejects); a retry would fail the same way.
    Rejected,
    /// The stream did not follow the provider's wire format.
    Protocol,
    /// The model code panicked.
    Panicked,
    /// The model refused to answer (its refusal is the message). Sending the same
    /// request again would be refused again, so nothing retries it.
    Refused,
    /// The provider's content filter stopped the answer or blocked the prompt (the
    /// provider's words, or a sentence saying so, are the message). An outcome, not a
    /// format error: nothing re-asks or retries it.
    Filtered,
    /// A budget of the caller's ran out (attempts or tokens across re-asks).
    Budget,
}

impl ModelErrorKind {
    /// The snake_case name used in JSON (and as a trace's `error.type`).
    pub fn as_str(self) -> &'static str {
        match self {
            ModelErrorKind::RateLimited => "rate_limited",
            ModelErrorKind::Server => "server",
            ModelErrorKind::Connection => "connection",
            ModelErrorKind::Timeout => "timeout",
            ModelErrorKind::Rejected => "rejected",
            ModelErrorKind::Protocol => "protocol",
            ModelErrorKind::Panicked => "panicked",
            ModelErrorKind::Refused => "refused",
            ModelErrorKind::Filtered => "filtered",
            ModelErrorKind::Budget => "budget",
        }
    }
}

/// A failed model call, as a value the turn reports and a retry loop reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelError {
    /// What kind of failure it is.
    pub kind: ModelErrorKind,
    /// What happened, in words (the provider's own message when it sent one).
    pub message: String,
    /// The HTTP status, when there was a response.
    pub status: Option<u16>,
    /// How long the provider asked us to wait (`Retry-After`), if it did.
    #[serde(skip)]
    pub retry_after: Option<Duration>,
}

impl ModelError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> ModelError {
        ModelError {
            kind,
            message: message.into(),
            status: None,
            retry_after: None,
        }
    }

    /// Sets the HTTP status.
    pub fn with_status(mut self, status: u16) -> ModelError {
        self.status = Some(status);
        self
    }

    /// Sets how long the provider asked us to wait.
    pub fn with_retry_after(mut self, wait: Option<Duration>) -> ModelError {
        self.retry_after = wait;
        self
    }

    /// The error that ends a whole-response extraction whose answer was a refusal or
    /// a filter's stop: [`ModelErrorKind::Refused`] or [`ModelErrorKind::Filtered`],
    /// `message` its words ([`RefusalReason::message`](RefusalReason::message)
    /// when there were none).
    pub fn refused(reason: RefusalReason, message: &str) -> ModelError {
        let kind = match reason {
            RefusalReason::ContentFilter => ModelErrorKind::Filtered,
            _ => ModelErrorKind::Refused,
        };
        ModelError::new(kind, reason.describe(message))
    }

    /// Whether this error is a refusal or a filter's stop, and which: an outcome of
    /// the answer, not a failure of the call.
    pub fn refusal(&self) -> Option<RefusalReason> {
        match self.kind {
            ModelErrorKind::Refused => Some(RefusalReason::Refusal),
            ModelErrorKind::Filtered => Some(RefusalReason::ContentFilter),
            _ => None,
        }
    }

    /// Whether sending the same request again may succeed (rate limits, server
    /// failures, dropped connections and timeouts; not a rejected request).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ModelErrorKind::RateLimited
                | ModelErrorKind::Server
                | ModelErrorKind::Connection
                | ModelErrorKind::Timeout
        )
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(status) => write!(f, "{} (HTTP {status})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ModelError {}

/// A tool call the model made, kept in the conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its input.
    pub input: Value,
}

/// A block of an answer kept for its provider to read back ([`ModelChunk::Replay`]).
///
/// Only the client of `provider` sends it: a block one provider signed means nothing
/// to another, so a conversation that moves to another client (a fallback chain) drops
/// it there, as it would any reasoning the new model never wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayBlock {
    /// The provider that wrote it (`anthropic`).
    pub provider: String,
    /// The block, exactly as the provider sent it.
    pub block: Value,
}

/// A message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ModelMessage {
    /// What the user wrote.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered, with the tools it called.
    Assistant {
        /// The text.
        text: String,
        /// The tool calls, in order.
        tool_calls: Vec<ToolCall>,
        /// The answer's blocks its provider needs back, in the order they came (they
        /// preceded the text and the calls; [`ModelChunk::Replay`]).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        replay: Vec<ReplayBlock>,
    },
    /// A tool's result, for the model.
    Tool {
        /// The id of the call it answers.
        id: String,
        /// The tool's name.
        name: String,
        /// The result's text.
        text: String,
    },
}

impl ModelMessage {
    /// A user message.
    pub fn user(text: impl Into<String>) -> ModelMessage {
        ModelMessage::User { text: text.into() }
    }

    /// An assistant message without tool calls.
    pub fn assistant(text: impl Into<String>) -> ModelMessage {
        ModelMessage::Assistant {
            text: text.into(),
            tool_calls: Vec::new(),
            replay: Vec::new(),
        }
    }

    /// The blocks of an answer that `provider`'s client writes back, in order: the ones
    /// that provider wrote ([`ReplayBlock::provider`]), and only with an answer that
    /// has text or tool calls to follow them (an answer with neither is not sent, and
    /// both Anthropic and the Responses API refuse a reasoning block nothing follows).
    pub fn replay_for<'a>(&'a self, provider: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        let blocks = match self {
            ModelMessage::Assistant {
                text,
                tool_calls,
                replay,
            } if !text.is_empty() || !tool_calls.is_empty() => replay.as_slice(),
            _ => &[],
        };
        blocks
            .iter()
            .filter(move |block| block.provider == provider)
            .map(|block| &block.block)
    }
}

/// How a client asks for whole-response output ([`StructuredOutput::mode`]), from the
/// strongest guarantee to the weakest. Each client resolves [`OutputMode::Auto`] by its
/// provider's and model's capability (docs/cli.md's provider table) and falls back from
/// `Native` to `Tool` or `Prompted` where the provider cannot send the schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// The client's best mode for its provider, model and request.
    #[default]
    Auto,
    /// The provider's own structured output, enforcing the schema on the answer's text
    /// (OpenAI `response_format` / Responses `text.format`, Anthropic
    /// `output_config.format`, Gemini `responseJsonSchema`). Tool calls stay possible.
    Native,
    /// A tool whose input is the answer, which the model must call (or call another
    /// tool first): for providers or schemas without native output.
    Tool,
    /// Nothing enforced: the instructions in the prompt describe the shape (and JSON
    /// mode where the provider has one); the parser checks every value.
    Prompted,
    /// No whole-response output at all: the answer is text with marker blocks, read
    /// by the page's parser (a client sends no schema).
    Marker,
}

impl OutputMode {
    /// The mode's name, as `payload chat --mode` spells it.
    pub fn name(self) -> &'static str {
        match self {
            OutputMode::Auto => "auto",
            OutputMode::Native => "native",
            OutputMode::Tool => "tool",
            OutputMode::Prompted => "prompted",
            OutputMode::Marker => "marker",
        }
    }
}

/// The answer must be one JSON value of a schema (whole-response mode): clients ask the
/// provider for it in [`StructuredOutput::mode`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructuredOutput {
    /// The payload type's name (providers want a name for the schema).
    pub name: String,
    /// What the value is, for the provider.
    pub description: String,
    /// The JSON Schema of tool mode (an output tool's input): OpenAI's strict subset
    /// when `strict`, otherwise the type's ordinary schema; wrapped in an object member
    /// when `wrapped` says so.
    pub schema: Value,
    /// Whether `schema` is in OpenAI's strict subset.
    pub strict: bool,
    /// The schema native mode sends, by dialect (`openai-strict`, `anthropic-strict`,
    /// `gemini`), for each dialect that can send the type: its narrowing keywords the
    /// dialect does not enforce left out (and checked locally), listed in `unenforced`.
    /// A dialect missing here cannot send the type at all (the client falls back).
    pub native: BTreeMap<String, Value>,
    /// What each dialect leaves out, as `dialect: /pointer keyword`.
    pub unenforced: Vec<String>,
    /// The member the value is wrapped in when the type's root is not an object (every
    /// schema above is then the wrapper's); the answer is unwrapped before it is read.
    pub wrapped: Option<String>,
    /// How the client asks for it.
    pub mode: OutputMode,
}

impl StructuredOutput {
    /// An output of `schema` (not strict, no native form, not wrapped) in
    /// [`OutputMode::Auto`].
    pub fn new(name: impl Into<String>, description: impl Into<String>, schema: Value) -> Self {
        StructuredOutput {
            name: name.into(),
            description: description.into(),
            schema,
            strict: false,
            native: BTreeMap::new(),
            unenforced: Vec::new(),
            wrapped: None,
            mode: OutputMode::Auto,
        }
    }
}

/// One call to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRequest {
    /// The page the chat is on.
    pub page: String,
    /// The system prompt (empty for none).
    pub system: String,
    /// The conversation so far, this turn's tool calls and results included.
    pub messages: Vec<ModelMessage>,
    /// The tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// Set in whole-response mode: the answer must be one value of this schema.
    pub output: Option<StructuredOutput>,
    /// Which call of the turn this is, from 1.
    pub iteration: usize,
}

impl ModelRequest {
    /// A request with the conversation `messages` and nothing else.
    pub fn new(messages: Vec<ModelMessage>) -> ModelRequest {
        ModelRequest {
            page: String::new(),
            system: String::new(),
            messages,
            tools: Vec::new(),
            output: None,
            iteration: 1,
        }
    }
}

/// A streamed answer: its chunks, as they arrive.
pub type ModelStream = Pin<Box<dyn Stream<Item = ModelChunk> + Send + 'static>>;

/// A model the agent can call: a streamed completion.
pub trait Model: Send {
    /// Starts an answer to `request`.
    fn stream(&mut self, request: &ModelRequest) -> ModelStream;
}

impl<F, I> Model for F
where
    F: FnMut(&ModelRequest) -> I + Send,
    I: IntoIterator<Item = ModelChunk>,
    I::IntoIter: Send + 'static,
{
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        Box::pin(futures::stream::iter(self(request)))
    }
}

impl Model for Box<dyn Model> {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        (**self).stream(request)
    }
}
