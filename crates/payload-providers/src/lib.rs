//! # payload-providers
//!
//! Model clients for the agent ([`payload_agent::Model`]) that talk to real providers
//! over HTTP, streamed: [`OpenAi`] for OpenAI's chat completions API and the servers
//! that speak it (vLLM, Ollama, llama.cpp, LM Studio), [`OpenAiResponses`] for OpenAI's
//! Responses API, [`Anthropic`] for Anthropic's messages API and [`Gemini`] for
//! Google's. Each reads its provider's server-sent events, as typed wire formats, into
//! [`ModelChunk`](payload_agent::ModelChunk)s: text, reasoning, refusals, tool-call
//! pieces, the finish reason, usage, and failures as values. Whole-response output is
//! asked for in the [`OutputMode`](payload_agent::OutputMode) the request names,
//! resolved by what the provider and model can do (docs/cli.md's provider table).
//!
//! The network is retried inside the client, before the first piece of the answer,
//! only where the server cannot still be working on the request: HTTP 429 (after its
//! `Retry-After`, capped) and 5xx, an overloaded error event, failed connections and a
//! stream that drops before any content, with exponential backoff ([`NetworkRetry`]).
//! A slow server is waited for (the first-token timeout) and never sent the request
//! again. Every request has an overall deadline, and only content resets the timers:
//! a server that keeps the connection open with empty events or keep-alive bytes is
//! given up on with a `Timeout` error saying so ([`ClientConfig`]). Server-sent
//! events are read in time linear in the bytes, one event at most
//! [`DEFAULT_MAX_EVENT_BYTES`] unless set otherwise. The key is a [`SecretString`]:
//! `Debug`, logs and error messages never show it. Once text has been passed on it cannot be unsent, so a
//! later failure ends the stream with an error chunk and the turn completes with the
//! text so far. Every attempt is recorded ([`AttemptRecord`], read with `attempts()`)
//! and traced (a `model_request` span with one `attempt` span per try: status,
//! latency, tokens).
//!
//! [`extract`] is whole-response mode over any model: the payload type's schema asked
//! for natively, the answer read with payload-core's JSON extraction and re-asked with
//! its errors by payload-core's retry driver; [`extract_in`] adds the mode and a budget
//! across re-asks (attempts, tokens), and reports the usage of every attempt.
//!
//! The HTTP stack (reqwest on tokio, rustls with ring) lives only in this crate, so an
//! app that does not talk to a provider does not link it. Clients must be polled from
//! a tokio runtime.
//!
//! ```no_run,standalone_crate
//! use futures::StreamExt;
//! use payload_agent::{Agent, ModelMessage};
//! use payload_core::stream::sse::ServerSentEvent;
//! use payload_providers::OpenAi;
//! use payload_registry::{Page, Registry};
//!
//! payload_registry::register_page!(Page::new("reports"));
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let agent = Agent::for_page(Registry::global(), "reports")?.system("You find trials.");
//!     // The key is read from OPENAI_API_KEY; `base_url` points at a compatible server.
//!     let model = OpenAi::new("gpt-4o-mini").max_tokens(1024);
//!     let question = vec![ModelMessage::user("Find trials")];
//!     let mut turn = agent.turn(model, question, serde_json::json!({}));
//!     let mut response = Vec::new();
//!     while let Some(event) = turn.next().await {
//!         event.write_sse(&mut response)?;
//!     }
//!     Ok(())
//! }
//! ```

#![forbid(unsafe_code)]

mod anthropic;
mod attempts;
mod config;
mod extract;
mod gemini;
mod http_error;
mod mode;
mod native;
mod openai;
#[cfg(test)]
mod properties;
mod responses;
mod sse;
mod trace;
mod transport;
mod wire;

pub use anthropic::{
    ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_VERSION, Anthropic, DEFAULT_MAX_TOKENS,
};
pub use attempts::AttemptRecord;
pub use config::{
    ClientConfig, DEFAULT_DEADLINE, DEFAULT_FIRST_TOKEN_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_EVENT_BYTES, NetworkRetry,
};
pub use extract::{
    ExtractOptions, Extraction, extract, extract_in, extract_payload, extract_with,
    structured_output,
};
pub use gemini::{GEMINI_API_KEY, GEMINI_BASE_URL, Gemini};
pub use native::{NativeSchema, PROVIDER_DIALECTS, Unenforced, WRAPPED_MEMBER, native_schema};
pub use openai::{Constraint, OPENAI_API_KEY, OPENAI_BASE_URL, OpenAi};
pub use responses::{GRAMMAR_TOOL, OpenAiResponses};
/// The key's wrapper ([`ClientConfig::api_key`]) and the trait that reads it, so an
/// app needs no dependency of its own to set or read one.
pub use secrecy::{ExposeSecret, SecretString};

/// The machinery under the public API, reachable only with the `__internals` feature,
/// for this workspace's fuzz targets. **Unstable**: not a public API, no stability
/// promise.
#[cfg(feature = "__internals")]
#[doc(hidden)]
pub mod __internals {
    /// The server-sent-event reader and the check of its invariants.
    pub mod sse {
        pub use crate::sse::check::{check_bytes, check_reading};
        pub use crate::sse::{Event, SseError, SseReader};
    }
}

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
