//! The OpenAI-compatible client: `POST {base}/chat/completions`, streamed. Works with
//! OpenAI and with servers that speak its API (vLLM, Ollama, llama.cpp, LM Studio);
//! without a key no `Authorization` header is sent.

mod body;
pub(crate) mod decode;
mod wire;

use crate::config::{ClientConfig, client_methods};
use crate::mode::{Capability, Sent, has_native, resolve};
use crate::transport::{self, Connection, HttpRequest, KeyHeader, RequestParts};
use decode::OpenAiDecoder;
use payload_agent::{Model, ModelRequest, ModelStream};
use serde_json::Value;

/// OpenAI's API.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// The environment variable the key is read from by default.
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";

/// A streaming client of an OpenAI-compatible chat completions API. Call it from a
/// tokio runtime. `&mut OpenAi` is a model too, so the caller keeps the client and can
/// read [`OpenAi::attempts`] after a turn.
#[derive(Debug, Clone)]
pub struct OpenAi {
    http: Connection,
    constraint: Option<Constraint>,
}

/// A grammar the server enforces while the model writes (constrained decoding), for
/// marker-mode turns; whole-response turns keep their `response_format`. Each is sent
/// where the servers that accept it read it; a server that does not know the field
/// ignores it or refuses the request, so send one only to a server that takes it.
///
/// Grammars for a page come from `payload grammar` (the `payload-grammar` crate).
#[derive(Debug, Clone, PartialEq)]
pub enum Constraint {
    /// An llguidance Lark grammar, as `structured_outputs.grammar` (vLLM).
    Lark(String),
    /// An xgrammar structural tag (`{"type": "structural_tag", ...}`), as the
    /// `response_format` (vLLM, SGLang).
    StructuralTag(Value),
    /// A GBNF grammar, as `grammar` (llama.cpp's server).
    Gbnf(String),
    /// A lazy GBNF grammar rooted at a marker, as `grammar` with `grammar_lazy` and
    /// each trigger word in `grammar_triggers` (llama.cpp's server): the text stays free
    /// until a trigger is written. llama.cpp reads the lazy fields on its `/completion`
    /// endpoint; its chat endpoint sets them from the chat template instead, so there
    /// the grammar applies from the first token (ARCHITECTURE.md, constrained decoding).
    LazyGbnf {
        /// The grammar, rooted at the marker.
        grammar: String,
        /// The words that switch it on (`MARKER:`).
        triggers: Vec<String>,
    },
}

impl OpenAi {
    /// A client of OpenAI's API for `model`, with the key from `OPENAI_API_KEY` (none
    /// when it is unset or empty).
    pub fn new(model: impl Into<String>) -> OpenAi {
        let config = ClientConfig::new(OPENAI_BASE_URL, model).key_from_env(OPENAI_API_KEY);
        OpenAi::with_config(config)
    }

    /// A client with exactly `config`.
    pub fn with_config(config: ClientConfig) -> OpenAi {
        OpenAi {
            http: Connection::new(config),
            constraint: None,
        }
    }

    /// Asks the server to enforce `constraint` on marker-mode answers.
    pub fn constrain(mut self, constraint: Constraint) -> OpenAi {
        self.constraint = Some(constraint);
        self
    }

    /// The mode `request` is sent in. OpenAI's older models lack structured outputs;
    /// compatible servers (vLLM, llama.cpp, Ollama) enforce `json_schema` with their
    /// grammar engines.
    fn sent(&self, request: &ModelRequest) -> Sent {
        let can = Capability {
            native: has_structured_outputs(&self.http.config.model)
                && has_native(request, payload_core::schema::Dialect::OpenAiStrict),
            tool: true,
            tool_first: false,
        };
        resolve(request.output.as_ref(), can)
    }

    /// The JSON body sent for `request`.
    pub fn body(&self, request: &ModelRequest) -> Value {
        let sent = self.sent(request);
        let mut body = body::body(&self.http.config, request, sent);
        if let (Some(constraint), None) = (&self.constraint, &request.output) {
            body::constrain(&mut body, constraint);
        }
        body
    }

    fn request(&mut self, request: &ModelRequest) -> HttpRequest {
        let parts = RequestParts {
            provider: "openai",
            path: "chat/completions",
            key: KeyHeader::Bearer,
            fixed: &[],
            body: self.body(request).to_string().into_bytes(),
            iteration: request.iteration,
        };
        self.http.request(parts)
    }
}

client_methods!(OpenAi);

/// Whether an OpenAI model has structured outputs (a strict JSON Schema enforced on the
/// answer): every current one, not `gpt-3.5*`, `gpt-4` and `gpt-4-*` (`gpt-4o` and
/// later have it).
pub(crate) fn has_structured_outputs(model: &str) -> bool {
    !(model.starts_with("gpt-3.5") || model == "gpt-4" || model.starts_with("gpt-4-"))
}

impl Model for OpenAi {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        let answer_tool = match (self.sent(request), &request.output) {
            (Sent::Tool, Some(output)) => Some(crate::output_name(&output.name)),
            _ => None,
        };
        let request = self.request(request);
        transport::stream(request, move || OpenAiDecoder::new(answer_tool.clone()))
    }
}
