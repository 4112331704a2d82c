//! The typed wire format of Anthropic's Messages stream: `message_start` (input
//! tokens), `content_block_start` / `content_block_delta` / `content_block_stop` for
//! each `text`, `thinking`, `redacted_thinking` or `tool_use` block, `message_delta`
//! (the stop reason and output tokens), `message_stop`, `ping` and `error`. A type
//! added later is [`StreamEvent::Unknown`] (named by [`crate::wire::read_tagged`]), as
//! Anthropic asks clients to skip them.

use crate::wire::TaggedEvent;
use serde::Deserialize;

/// One event of the stream, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum StreamEvent {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: u64,
        content_block: ContentBlock,
    },
    ContentBlockDelta {
        index: u64,
        delta: BlockDelta,
    },
    ContentBlockStop {
        #[serde(default)]
        index: u64,
    },
    MessageDelta {
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: Option<Usage>,
    },
    MessageStop {},
    Ping {},
    Error {
        error: ApiError,
    },
    #[serde(other)]
    Unknown,
}

impl TaggedEvent for StreamEvent {
    fn is_unknown(&self) -> bool {
        matches!(self, StreamEvent::Unknown)
    }
}

/// The message `message_start` opens.
#[derive(Debug, Deserialize)]
pub(crate) struct MessageStart {
    /// The model that answers.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// Token counts (`input_tokens` on `message_start`, the running `output_tokens` on
/// `message_delta`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Usage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
}

/// A content block as it starts.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ContentBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
        #[serde(default)]
        signature: String,
    },
    /// Encrypted thinking: nothing to show, but sent back with the answer's tool calls.
    RedactedThinking {
        #[serde(default)]
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
    },
    #[serde(other)]
    Unknown,
}

/// A piece of a content block.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum BlockDelta {
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    /// The thinking block's signature: nothing to show, but sent back with the block.
    SignatureDelta {
        signature: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Unknown,
}

/// What `message_delta` says of the message.
#[derive(Debug, Deserialize)]
pub(crate) struct MessageDeltaBody {
    #[serde(default)]
    pub stop_reason: Option<String>,
}

/// An error, in the stream or as an error response's body.
#[derive(Debug, Deserialize)]
pub(crate) struct ApiError {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub message: String,
}
