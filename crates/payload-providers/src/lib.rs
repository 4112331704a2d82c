//! # payload-providers
//!
//! Model clients for the agent ([`payload_agent::Model`]) that talk to real providers
//! over HTTP, streamed: [`OpenAi`] for OpenAI's chat completions API and the servers
//! that speak it (vLLM, Ollama, llama.cpp, LM Studio), and [`Anthropic`] for Anthropic's
//! messages API. Each reads its provider's server-sent events into
//! [`ModelChunk`](payload_agent::ModelChunk)s: text, tool-call pieces, the finish
//! reason, usage, and failures as values.
//!
//! The network is retried inside the client, before the first piece of the answer:
//! HTTP 429 (after its `Retry-After`, capped) and 5xx, failed connections, and a
//! response or stream that stalls or drops before any content, with exponential
//! backoff ([`NetworkRetry`]). Once text has been passed on it cannot be unsent, so a
//! later failure ends the stream with an error chunk and the turn completes with the
//! text so far. Every attempt is recorded ([`AttemptRecord`], read with `attempts()`)
//! and traced (a `model_request` span with one `attempt` span per try: status,
//! latency, tokens).
//!
//! [`extract`] is whole-response mode over any model: the payload type's schema asked
//! for natively, the answer read with payload-core's JSON extraction and re-asked with
//! its errors by payload-core's retry driver.
//!
//! The HTTP stack (reqwest on tokio, rustls with ring) lives only in this crate, so an
//! app that does not talk to a provider does not link it. Clients must be polled from
//! a tokio runtime.
//!
//! ```ignore
//! let agent = Agent::for_page(Registry::global(), "reports")?.system(prompt);
//! let mut model = OpenAi::new("gpt-4o-mini").max_tokens(1024);
//! let mut turn = agent.turn(&mut model, vec![ModelMessage::user("Find trials")], context);
//! while let Some(event) = turn.next().await {
//!     event.write_sse(&mut response)?;
//! }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod anthropic;
mod attempts;
mod config;
mod extract;
mod http_error;
mod openai;
mod transport;

pub use anthropic::{
    ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_VERSION, Anthropic, DEFAULT_MAX_TOKENS,
};
pub use attempts::AttemptRecord;
pub use config::{ClientConfig, NetworkRetry};
pub use extract::{extract, extract_with, structured_output};
pub use openai::{Constraint, OPENAI_API_KEY, OPENAI_BASE_URL, OpenAi};

/// A name the providers accept for the output schema or its tool (letters, digits, `_`
/// and `-`, at most 64), from a payload type's name.
pub(crate) fn output_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.is_empty() {
        "output".to_string()
    } else {
        cleaned
    }
}

/// The span of one model request: its attempts are spans inside it, and the tokens are
/// recorded on it when the usage arrives.
pub(crate) fn request_span(provider: &'static str, model: &str, iteration: usize) -> tracing::Span {
    tracing::info_span!(
        "model_request",
        provider,
        model = %model,
        iteration,
        input_tokens = tracing::field::Empty,
        output_tokens = tracing::field::Empty,
    )
}
