//! The OpenAI Responses API client: `POST {base}/responses`, streamed (where OpenAI
//! steers new work). Whole-response output is native (`text.format` json_schema,
//! strict), an output function, or JSON mode, by [`crate::mode`]; marker pages can have
//! their answer constrained by the page's Lark grammar through a custom tool
//! ([`OpenAiResponses::grammar`]); reasoning summaries are the reasoning channel;
//! refusals are refusals.

mod body;
pub(crate) mod decode;
pub(crate) mod wire;

pub use body::GRAMMAR_TOOL;

use crate::config::{ClientConfig, client_methods};
use crate::mode::{Capability, Sent, has_native, resolve};
use crate::transport::{self, Connection, HttpRequest, KeyHeader, RequestParts};
use crate::{OPENAI_API_KEY, OPENAI_BASE_URL};
use decode::ResponsesDecoder;
use payload_agent::{Model, ModelRequest, ModelStream};
use serde_json::Value;

/// A streaming client of OpenAI's Responses API. Call it from a tokio runtime.
/// `&mut OpenAiResponses` is a model too, so the caller keeps the client and can read
/// [`OpenAiResponses::attempts`] after a turn.
#[derive(Debug, Clone)]
pub struct OpenAiResponses {
    http: Connection,
    extras: body::Extras,
}

impl OpenAiResponses {
    /// A client of OpenAI's API for `model`, with the key from `OPENAI_API_KEY` (none
    /// when it is unset or empty).
    pub fn new(model: impl Into<String>) -> OpenAiResponses {
        let config = ClientConfig::new(OPENAI_BASE_URL, model).key_from_env(OPENAI_API_KEY);
        OpenAiResponses::with_config(config)
    }

    /// A client with exactly `config`.
    pub fn with_config(config: ClientConfig) -> OpenAiResponses {
        OpenAiResponses {
            http: Connection::new(config),
            extras: body::Extras::default(),
        }
    }

    /// Constrains the answers of marker pages with `lark`, a Lark grammar (from
    /// `payload grammar --target lark`): the model answers through the custom tool
    /// [`GRAMMAR_TOOL`], whose input the grammar constrains, and that input is the
    /// answer's text.
    pub fn grammar(mut self, lark: impl Into<String>) -> OpenAiResponses {
        self.extras.grammar = Some(lark.into());
        self
    }

    /// Sets the reasoning effort of a reasoning model (`minimal`, `low`, `medium`,
    /// `high`) and asks for its reasoning summary, streamed as reasoning.
    pub fn reasoning_effort(mut self, effort: impl Into<String>) -> OpenAiResponses {
        self.extras.reasoning_effort = Some(effort.into());
        self
    }

    /// The mode `request` is sent in: native structured output for OpenAI's models
    /// that have it (not `gpt-3.5*`, `gpt-4`, `gpt-4-*`), else the output tool.
    fn sent(&self, request: &ModelRequest) -> Sent {
        let can = Capability {
            native: crate::openai::has_structured_outputs(&self.http.config.model)
                && has_native(request, payload_core::schema::Dialect::OpenAiStrict),
            tool: true,
            tool_first: true,
        };
        resolve(request.output.as_ref(), can)
    }

    /// The JSON body sent for `request`.
    pub fn body(&self, request: &ModelRequest) -> Value {
        let sent = self.sent(request);
        serde_json::to_value(body::body(&self.http.config, &self.extras, request, sent))
            .unwrap_or_default()
    }

    /// The name of the tool whose input is the answer, in the mode `request` is sent.
    fn answer_tool(&self, request: &ModelRequest) -> Option<String> {
        match (self.sent(request), &request.output) {
            (Sent::Tool, Some(output)) => Some(crate::output_name(&output.name)),
            (Sent::Marker, _) if self.extras.grammar.is_some() => Some(GRAMMAR_TOOL.to_string()),
            _ => None,
        }
    }

    fn request(&mut self, request: &ModelRequest) -> HttpRequest {
        let parts = RequestParts {
            provider: "openai",
            path: "responses",
            key: KeyHeader::Bearer,
            fixed: &[],
            body: self.body(request).to_string().into_bytes(),
            iteration: request.iteration,
        };
        self.http.request(parts)
    }
}

client_methods!(OpenAiResponses);

impl Model for OpenAiResponses {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        let answer_tool = self.answer_tool(request);
        let http = self.request(request);
        transport::stream(http, move || ResponsesDecoder::new(answer_tool.clone()))
    }
}
