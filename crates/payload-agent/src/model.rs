//! What passes between the agent and a model: the request for one call, the messages
//! of the conversation, and the chunks of a streamed answer. A model is anything that
//! turns a [`ModelRequest`] into an iterator of [`ModelChunk`]s.

use crate::tools::ToolSpec;
use serde::Serialize;
use serde_json::Value;

/// A piece of a model's streamed answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelChunk {
    /// Text, in whatever pieces the model API delivers.
    Text(String),
    /// The model asks for a tool to be run.
    ToolCall {
        /// The call's id, echoed back with its result.
        id: String,
        /// The tool's name.
        name: String,
        /// Its input.
        input: Value,
    },
    /// The model API failed; the turn ends with an `error` event, then `complete`.
    Error(String),
    /// The answer is over (the iterator ending means the same).
    End,
}

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
}

/// One call to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRequest {
    /// The page the chat is on.
    pub page: String,
    /// The conversation so far, this turn's tool calls and results included.
    pub messages: Vec<ModelMessage>,
    /// The tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// Which call of the turn this is, from 1.
    pub iteration: usize,
}

/// A model the agent can call: a streamed completion.
pub trait Model {
    /// The chunks of one answer.
    type Chunks: Iterator<Item = ModelChunk>;
    /// Starts an answer to `request`.
    fn stream(&mut self, request: &ModelRequest) -> Self::Chunks;
}

impl<F, I> Model for F
where
    F: FnMut(&ModelRequest) -> I,
    I: IntoIterator<Item = ModelChunk>,
{
    type Chunks = I::IntoIter;

    fn stream(&mut self, request: &ModelRequest) -> Self::Chunks {
        self(request).into_iter()
    }
}
