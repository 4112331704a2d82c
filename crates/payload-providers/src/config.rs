//! What both clients are configured with: where the server is, the key, the model, the
//! answer's limits, the timeouts and the network retries.

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

/// The settings a client sends every request with.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientConfig {
    /// The API's base URL (`https://api.openai.com/v1`, `https://api.anthropic.com`, or a
    /// local server's).
    pub base_url: String,
    /// The API key; `None` sends no key (local servers need none).
    pub api_key: Option<String>,
    /// The model's name.
    pub model: String,
    /// The answer's token limit (Anthropic requires one; OpenAI-compatible servers get
    /// none unless it is set).
    pub max_tokens: Option<u32>,
    /// The sampling temperature, if set.
    pub temperature: Option<f32>,
    /// How long to wait to connect.
    pub connect_timeout: Duration,
    /// How long one attempt may wait for the response's status and headers.
    pub response_timeout: Duration,
    /// How long to wait for the next event of the stream: a server that goes quiet for
    /// longer is given up on with a `Timeout` error, never waited on for ever.
    pub idle_timeout: Duration,
    /// Retries before the first piece of the answer.
    pub retry: NetworkRetry,
    /// Headers sent with every request besides the provider's own.
    pub headers: Vec<(String, String)>,
}

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
            response_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
            retry: NetworkRetry::default(),
            headers: Vec::new(),
        }
    }

    /// `path` appended to the base URL, with exactly one slash between them.
    pub(crate) fn url(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.base_url.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }
}

/// The builder methods both clients share, over their [`ClientConfig`].
macro_rules! config_builder {
    ($client:ty) => {
        impl $client {
            /// Sets the base URL.
            pub fn base_url(mut self, url: impl Into<String>) -> Self {
                self.config.base_url = url.into();
                self
            }

            /// Sets the API key (replacing the one read from the environment).
            pub fn api_key(mut self, key: impl Into<String>) -> Self {
                self.config.api_key = Some(key.into());
                self
            }

            /// Sends no API key (local servers need none).
            pub fn no_api_key(mut self) -> Self {
                self.config.api_key = None;
                self
            }

            /// Sets the model.
            pub fn model(mut self, model: impl Into<String>) -> Self {
                self.config.model = model.into();
                self
            }

            /// Sets the answer's token limit.
            pub fn max_tokens(mut self, max: u32) -> Self {
                self.config.max_tokens = Some(max);
                self
            }

            /// Sets the sampling temperature.
            pub fn temperature(mut self, temperature: f32) -> Self {
                self.config.temperature = Some(temperature);
                self
            }

            /// Sets how long to wait to connect.
            pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.config.connect_timeout = timeout;
                // The HTTP client holds the connect timeout: build it again.
                self.client = None;
                self
            }

            /// Sets how long one attempt may wait for the response's head.
            pub fn response_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.config.response_timeout = timeout;
                self
            }

            /// Sets how long to wait for the stream's next event.
            pub fn idle_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.config.idle_timeout = timeout;
                self
            }

            /// Sets the network retries.
            pub fn retry(mut self, retry: $crate::NetworkRetry) -> Self {
                self.config.retry = retry;
                self
            }

            /// Adds a header sent with every request.
            pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
                self.config.headers.push((name.into(), value.into()));
                self
            }

            /// The configuration requests are sent with.
            pub fn config(&self) -> &$crate::ClientConfig {
                &self.config
            }

            /// Every attempt of the last request, in order (empty before the first).
            pub fn attempts(&self) -> Vec<$crate::AttemptRecord> {
                self.attempts.snapshot()
            }
        }
    };
}

pub(crate) use config_builder;

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
