//! The Anthropic client: `POST {base}/v1/messages`, streamed, with `x-api-key` and
//! `anthropic-version` headers.

mod body;
pub(crate) mod decode;
pub(crate) mod wire;

pub use body::DEFAULT_MAX_TOKENS;

use crate::config::{ClientConfig, client_methods};
use crate::mode::{Capability, Sent, has_native, resolve};
use crate::output_name;
use crate::transport::{self, Connection, HttpRequest, KeyHeader, RequestParts};
use decode::AnthropicDecoder;
use payload_agent::{Model, ModelRequest, ModelStream};
use serde_json::Value;

/// Anthropic's API.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// The environment variable the key is read from by default.
pub const ANTHROPIC_API_KEY: &str = "ANTHROPIC_API_KEY";

/// The API version this client speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A streaming client of Anthropic's messages API. Call it from a tokio runtime.
/// `&mut Anthropic` is a model too, so the caller keeps the client and can read
/// [`Anthropic::attempts`] after a turn.
#[derive(Debug, Clone)]
pub struct Anthropic {
    http: Connection,
    thinking_budget: Option<u32>,
}

impl Anthropic {
    /// A client of Anthropic's API for `model`, with the key from `ANTHROPIC_API_KEY`
    /// (none when it is unset or empty) and a token limit of [`DEFAULT_MAX_TOKENS`].
    pub fn new(model: impl Into<String>) -> Anthropic {
        let mut config =
            ClientConfig::new(ANTHROPIC_BASE_URL, model).key_from_env(ANTHROPIC_API_KEY);
        config.max_tokens = Some(DEFAULT_MAX_TOKENS);
        Anthropic::with_config(config)
    }

    /// A client with exactly `config` (without `max_tokens`, [`DEFAULT_MAX_TOKENS`] is
    /// sent).
    pub fn with_config(config: ClientConfig) -> Anthropic {
        Anthropic {
            http: Connection::new(config),
            thinking_budget: None,
        }
    }

    /// Turns extended thinking on with a budget of `tokens` (at least 1024, as the API
    /// requires): the thinking streams as reasoning, never as text.
    pub fn thinking_budget(mut self, tokens: u32) -> Anthropic {
        self.thinking_budget = Some(tokens.max(1024));
        self
    }

    /// The mode `request` is sent in: native structured output on the models that have
    /// it, else the output tool.
    fn sent(&self, request: &ModelRequest) -> Sent {
        let can = Capability {
            native: body::has_structured_outputs(&self.http.config.model)
                && has_native(request, payload_core::schema::Dialect::AnthropicStrict),
            tool: true,
            tool_first: true,
        };
        resolve(request.output.as_ref(), can)
    }

    /// The JSON body sent for `request`.
    pub fn body(&self, request: &ModelRequest) -> Value {
        let sent = self.sent(request);
        serde_json::to_value(body::body(
            &self.http.config,
            request,
            sent,
            self.thinking_budget,
        ))
        .unwrap_or_default()
    }

    fn request(&mut self, request: &ModelRequest) -> HttpRequest {
        let parts = RequestParts {
            provider: "anthropic",
            path: "v1/messages",
            key: KeyHeader::Named("x-api-key"),
            fixed: &[("anthropic-version", ANTHROPIC_VERSION)],
            body: self.body(request).to_string().into_bytes(),
            iteration: request.iteration,
        };
        self.http.request(parts)
    }
}

client_methods!(Anthropic);

impl Model for Anthropic {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        let output = match (self.sent(request), &request.output) {
            (Sent::Tool, Some(output)) => Some(output_name(&output.name)),
            _ => None,
        };
        let http = self.request(request);
        transport::stream(http, move || AnthropicDecoder::new(output.clone()))
    }
}
