//! The Google Gemini client: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`
//! with an `x-goog-api-key` header. Whole-response output is native
//! (`responseJsonSchema`), an output function, or JSON mode, by [`crate::mode`]; `thought`
//! parts are the reasoning channel ([`Gemini::thinking_budget`] asks for them); a blocked
//! prompt is a refusal.

mod body;
pub(crate) mod decode;
mod wire;

use crate::config::{ClientConfig, client_methods};
use crate::mode::{Capability, Sent, has_native, resolve};
use crate::transport::{self, Connection, HttpRequest, KeyHeader, RequestParts};
use decode::GeminiDecoder;
use payload_agent::{Model, ModelRequest, ModelStream};
use secrecy::SecretString;
use serde_json::Value;

/// Google's Gemini API.
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// The environment variable the key is read from by default (`GOOGLE_API_KEY` when it
/// is unset, as Google's own libraries do).
pub const GEMINI_API_KEY: &str = "GEMINI_API_KEY";

/// A streaming client of Google's Gemini API. Call it from a tokio runtime.
/// `&mut Gemini` is a model too, so the caller keeps the client and can read
/// [`Gemini::attempts`] after a turn.
#[derive(Debug, Clone)]
pub struct Gemini {
    http: Connection,
    thinking_budget: Option<u32>,
}

impl Gemini {
    /// A client of Google's API for `model`, with the key from `GEMINI_API_KEY` (or
    /// `GOOGLE_API_KEY`; none when both are unset or empty).
    pub fn new(model: impl Into<String>) -> Gemini {
        let mut config = ClientConfig::new(GEMINI_BASE_URL, model);
        config.api_key = [GEMINI_API_KEY, "GOOGLE_API_KEY"]
            .iter()
            .filter_map(|name| std::env::var(name).ok())
            .find(|k| !k.is_empty())
            .map(SecretString::from);
        Gemini::with_config(config)
    }

    /// A client with exactly `config`.
    pub fn with_config(config: ClientConfig) -> Gemini {
        Gemini {
            http: Connection::new(config),
            thinking_budget: None,
        }
    }

    /// Lets the model think for up to `tokens` and streams its thought summaries as
    /// reasoning (`thinkingConfig`).
    pub fn thinking_budget(mut self, tokens: u32) -> Gemini {
        self.thinking_budget = Some(tokens);
        self
    }

    /// The mode `request` is sent in. Gemini 2 models refuse a JSON response format
    /// beside function declarations, so with the page's tools they get the output
    /// function instead; Gemini 3 models take both.
    fn sent(&self, request: &ModelRequest) -> Sent {
        let model = self.model_name();
        let native = (request.tools.is_empty() || !model.starts_with("gemini-2"))
            && has_native(request, payload_core::schema::Dialect::Gemini);
        let can = Capability {
            native,
            tool: true,
            tool_first: true,
        };
        resolve(request.output.as_ref(), can)
    }

    /// The model's name without a `models/` prefix.
    fn model_name(&self) -> &str {
        let model = &self.http.config.model;
        model.strip_prefix("models/").unwrap_or(model)
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
        let path = format!(
            "v1beta/models/{}:streamGenerateContent?alt=sse",
            path_segment(self.model_name())
        );
        let parts = RequestParts {
            provider: "gcp.gemini",
            path: &path,
            key: KeyHeader::Named("x-goog-api-key"),
            fixed: &[],
            body: self.body(request).to_string().into_bytes(),
            iteration: request.iteration,
        };
        self.http.request(parts)
    }
}

client_methods!(Gemini);

/// `text` as one URL path segment: every byte but letters, digits, `.`, `-` and `_`
/// percent-encoded, so a model name cannot change the path or add a query.
fn path_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'_') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

impl Model for Gemini {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        let output = match (self.sent(request), &request.output) {
            (Sent::Tool, Some(output)) => Some(crate::output_name(&output.name)),
            _ => None,
        };
        let http = self.request(request);
        transport::stream(http, move || GeminiDecoder::new(output.clone()))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_model_name_is_one_path_segment() {
        assert_eq!(super::path_segment("gemini-2.5-flash"), "gemini-2.5-flash");
        assert_eq!(super::path_segment("a/../b?x#y"), "a%2F..%2Fb%3Fx%23y");
    }
}
