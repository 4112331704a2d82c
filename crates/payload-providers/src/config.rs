//! What both clients are configured with: where the server is, the key, the model, the
//! answer's limits, the timeouts and the network retries.

use secrecy::SecretString;
use std::fmt;
use std::time::Duration;

/// How a client retries a request that failed before any content arrived: HTTP 429 and
/// 5xx, a failed connection, a response or stream that did not come in time, or a
/// connection dropped before the first piece of the answer.
///
/// Waits grow exponentially from `base_delay` (doubling each retry, at most
/// `max_delay`); a 429's `Retry-After` is honoured instead, at most `max_retry_after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkRetry {
    /// Attempts in all, the first included (default 3; 1 turns retries off).
    pub max_attempts: usize,
    /// The wait before the first retry (default 0.5 s).
    pub base_delay: Duration,
    /// The longest backoff wait (default 8 s).
    pub max_delay: Duration,
    /// The longest wait a `Retry-After` header can ask for (default 30 s): a server
    /// asking for more is waited on this long, so a turn never stalls for minutes.
    pub max_retry_after: Duration,
}

impl Default for NetworkRetry {
    fn default() -> Self {
        NetworkRetry {
            max_attempts: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl NetworkRetry {
    /// The backoff before attempt `next` (2 for the first retry).
    pub fn backoff(&self, next: usize) -> Duration {
        let doublings = next.saturating_sub(2).min(16) as u32;
        self.base_delay
            .saturating_mul(1 << doublings)
            .min(self.max_delay)
    }
}

/// The longest one model request may take by default, retries included.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);

/// How long a request waits for the first piece of the answer by default: long enough
/// for a local server on a CPU to read a long prompt (a 2,500-token page prompt at 35
/// tokens a second takes 72 s).
pub const DEFAULT_FIRST_TOKEN_TIMEOUT: Duration = Duration::from_secs(120);

/// How long the answer may pause between two pieces by default.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest server-sent event a client reads by default (16 MiB): far above any
/// provider's chunk, low enough that a hostile stream cannot make the client hold more.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 << 20;

/// The settings a client sends every request with.
///
/// The time limits, all per request (one streamed answer, its retries included):
///
/// - `connect_timeout`: to open the connection. A connection that fails is retried:
///   the server never saw the request.
/// - `first_token_timeout`: from sending the request to the first piece of content, the
///   wait for the response headers included. A server still working on the request is
///   never sent it again (that would make it start over): when this runs out, the
///   request fails with a `Timeout` error.
/// - `idle_timeout`: between two pieces of content once the answer has begun.
/// - `deadline`: the whole request, retries and backoff included. An agent turn that
///   calls tools makes one request per step, each with its own deadline (the turn's
///   steps are bounded by the agent's own limit).
///
/// Only content is progress: text, tool-call pieces, the finish reason and usage.
/// Events that carry none (`{"choices":[]}`, Anthropic's `ping`, comments, whitespace)
/// keep no timer from running out, so a server cannot hold a turn open with
/// keep-alives. `Debug` shows no key and no header value (they are secrets).
#[derive(Clone)]
pub struct ClientConfig {
    /// The API's base URL (`https://api.openai.com/v1`, `https://api.anthropic.com`, or a
    /// local server's).
    pub base_url: String,
    /// The API key; `None` sends no key (local servers need none). It is never printed:
    /// not by `Debug`, not in logs, and a provider's error message that echoes it has it
    /// replaced by `[REDACTED]`.
    pub api_key: Option<SecretString>,
    /// The model's name.
    pub model: String,
    /// The answer's token limit (Anthropic requires one; OpenAI-compatible servers get
    /// none unless it is set).
    pub max_tokens: Option<u32>,
    /// The sampling temperature, if set.
    pub temperature: Option<f32>,
    /// How long to wait to connect (default 10 s).
    pub connect_timeout: Duration,
    /// How long to wait from sending the request to the first piece of content,
    /// response headers included ([`DEFAULT_FIRST_TOKEN_TIMEOUT`]).
    pub first_token_timeout: Duration,
    /// How long the answer may go without content once it has begun
    /// ([`DEFAULT_IDLE_TIMEOUT`]).
    pub idle_timeout: Duration,
    /// How long the whole request may take, retries included ([`DEFAULT_DEADLINE`]).
    pub deadline: Duration,
    /// The largest server-sent event read ([`DEFAULT_MAX_EVENT_BYTES`]); a larger one
    /// ends the request with a `Protocol` error and is not retried.
    pub max_event_bytes: usize,
    /// Retries before the first piece of the answer.
    pub retry: NetworkRetry,
    /// Headers sent with every request besides the provider's own. Their values are
    /// kept as secrets (a header may carry a key), never printed.
    pub headers: Vec<(String, SecretString)>,
}

impl fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| REDACTED))
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("temperature", &self.temperature)
            .field("connect_timeout", &self.connect_timeout)
            .field("first_token_timeout", &self.first_token_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("deadline", &self.deadline)
            .field("max_event_bytes", &self.max_event_bytes)
            .field("retry", &self.retry)
            .field("headers (values redacted)", &headers)
            .finish()
    }
}

/// What a secret is shown as.
pub(crate) const REDACTED: &str = "[REDACTED]";

impl ClientConfig {
    /// A configuration for `base_url` and `model` with the default limits.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> ClientConfig {
        ClientConfig {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            max_tokens: None,
            temperature: None,
            connect_timeout: Duration::from_secs(10),
            first_token_timeout: DEFAULT_FIRST_TOKEN_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            deadline: DEFAULT_DEADLINE,
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
            retry: NetworkRetry::default(),
            headers: Vec::new(),
        }
    }

    /// The key read from the environment variable `var` (none when it is unset or
    /// empty, as a local server needs none).
    pub fn key_from_env(mut self, var: &str) -> ClientConfig {
        self.api_key = std::env::var(var)
            .ok()
            .filter(|k| !k.is_empty())
            .map(SecretString::from);
        self
    }

    /// `path` appended to the base URL, with exactly one slash between them.
    pub(crate) fn url(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.base_url.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }

    /// The secrets of this configuration (the key, the header values), to be cut out
    /// of any text the client prints.
    pub(crate) fn secrets(&self) -> Vec<SecretString> {
        self.api_key
            .iter()
            .chain(self.headers.iter().map(|(_, value)| value))
            .cloned()
            .collect()
    }
}

/// What every provider's client shares, over its `http` connection
/// ([`crate::transport::Connection`]): the builder methods on its [`ClientConfig`], the
/// last request's attempts, and `&mut Client` as a model (so the caller keeps the client).
macro_rules! client_methods {
    ($client:ty) => {
        impl $client {
            /// Sets the base URL.
            pub fn base_url(mut self, url: impl Into<String>) -> Self {
                self.http.config.base_url = url.into();
                self
            }

            /// Sets the API key (replacing the one read from the environment).
            pub fn api_key(mut self, key: impl Into<String>) -> Self {
                self.http.config.api_key = Some($crate::SecretString::from(key.into()));
                self
            }

            /// Sends no API key (local servers need none).
            pub fn no_api_key(mut self) -> Self {
                self.http.config.api_key = None;
                self
            }

            /// Sets the model.
            pub fn model(mut self, model: impl Into<String>) -> Self {
                self.http.config.model = model.into();
                self
            }

            /// Sets the answer's token limit.
            pub fn max_tokens(mut self, max: u32) -> Self {
                self.http.config.max_tokens = Some(max);
                self
            }

            /// Sets the sampling temperature.
            pub fn temperature(mut self, temperature: f32) -> Self {
                self.http.config.temperature = Some(temperature);
                self
            }

            /// Sets how long to wait to connect.
            pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.http.config.connect_timeout = timeout;
                // The HTTP client holds the connect timeout: build it again.
                self.http.rebuild_client();
                self
            }

            /// Sets how long to wait from sending the request to the first piece of
            /// content (response headers included). A slow server is waited for this
            /// long and never sent the request again.
            pub fn first_token_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.http.config.first_token_timeout = timeout;
                self
            }

            /// Sets how long the answer may go without content once it has begun
            /// (events without content do not count).
            pub fn idle_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.http.config.idle_timeout = timeout;
                self
            }

            /// Sets how long the whole request may take, retries included.
            pub fn deadline(mut self, deadline: std::time::Duration) -> Self {
                self.http.config.deadline = deadline;
                self
            }

            /// Sets the largest server-sent event read (bytes).
            pub fn max_event_bytes(mut self, max: usize) -> Self {
                self.http.config.max_event_bytes = max;
                self
            }

            /// Sets the network retries.
            pub fn retry(mut self, retry: $crate::NetworkRetry) -> Self {
                self.http.config.retry = retry;
                self
            }

            /// Adds a header sent with every request (its value kept as a secret).
            pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
                self.http
                    .config
                    .headers
                    .push((name.into(), $crate::SecretString::from(value.into())));
                self
            }

            /// The configuration requests are sent with.
            pub fn config(&self) -> &$crate::ClientConfig {
                &self.http.config
            }

            /// Every attempt of the last request, in order (empty before the first).
            pub fn attempts(&self) -> Vec<$crate::AttemptRecord> {
                self.http.attempts().snapshot()
            }
        }

        impl payload_agent::Model for &mut $client {
            fn stream(
                &mut self,
                request: &payload_agent::ModelRequest,
            ) -> payload_agent::ModelStream {
                (**self).stream(request)
            }
        }
    };
}

pub(crate) use client_methods;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let retry = NetworkRetry {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
            ..NetworkRetry::default()
        };
        let waits: Vec<u128> = (2..6).map(|n| retry.backoff(n).as_millis()).collect();
        assert_eq!(waits, [100, 200, 350, 350]);
    }

    #[test]
    fn urls_join_with_one_slash() {
        let config = ClientConfig::new("http://localhost:8080/v1/", "m");
        assert_eq!(
            config.url("/chat/completions"),
            "http://localhost:8080/v1/chat/completions"
        );
    }
}
