//! One streamed request, whatever the provider: send it, retry what failed before any
//! of the answer arrived, read the server-sent events with an idle timeout, and turn
//! each into [`ModelChunk`]s with the provider's [`Decoder`].
//!
//! Retries happen only before the first piece of content (text or a tool call) is
//! passed on. Chunks that carry no content (usage, say) are held until then, so a
//! retried attempt leaves nothing behind. After content has been passed on, a failure
//! cannot be retried: the text was already shown and cannot be unsent, so it ends the
//! stream with [`ModelChunk::Error`] and the turn completes with what arrived.
//!
//! Needs a tokio runtime with the time driver (the one reqwest runs on).

use crate::attempts::{AttemptLog, AttemptRecord};
use crate::config::ClientConfig;
use crate::http_error::{retry_after, status_error};
use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use payload_agent::{ModelChunk, ModelError, ModelErrorKind, ModelStream};
use reqwest::header::{HeaderMap, RETRY_AFTER};
use std::pin::Pin;
use std::time::Instant;
use tracing::Instrument;
use tracing::field::Empty;

/// Reads one provider's stream: each server-sent event becomes chunks, or the error the
/// stream reported.
pub(crate) trait Decoder: Send + 'static {
    /// The chunks of one event; `Err` for an error the provider sent in the stream.
    fn event(&mut self, event: &Event) -> Result<Vec<ModelChunk>, ModelError>;
    /// Whether the provider's last event has come (nothing more is read).
    fn done(&self) -> bool;
    /// Whether the stream may end here: a stream that ends otherwise was cut.
    fn may_end(&self) -> bool;
}

/// A request ready to be sent, with what the stream needs to send it again.
pub(crate) struct HttpRequest {
    /// The client (its connect timeout set from the configuration).
    pub client: reqwest::Client,
    /// Where to send it.
    pub url: String,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its JSON body.
    pub body: Vec<u8>,
    /// Timeouts and retries.
    pub config: ClientConfig,
    /// Where each attempt is recorded.
    pub log: AttemptLog,
    /// The request's span: each attempt is a span inside it.
    pub span: tracing::Span,
}

/// Sends `request` and streams its answer, decoded by a fresh `new_decoder()` for each
/// attempt.
pub(crate) fn stream<D: Decoder>(
    request: HttpRequest,
    new_decoder: impl Fn() -> D + Send + 'static,
) -> ModelStream {
    let driver = Driver {
        decoder: new_decoder(),
        new_decoder: Box::new(new_decoder),
        request,
        events: None,
        attempt: 0,
        attempt_span: tracing::Span::none(),
        started: Instant::now(),
        status: None,
        held: Vec::new(),
        content: false,
        finished: false,
    };
    let chunks = futures::stream::unfold(driver, |mut driver| async move {
        let span = driver.request.span.clone();
        let chunks = driver.next().instrument(span).await?;
        Some((futures::stream::iter(chunks), driver))
    });
    Box::pin(chunks.flatten())
}

type Events = Pin<Box<dyn Stream<Item = Result<Event, EventStreamError<reqwest::Error>>> + Send>>;

/// The state of one streamed request across its attempts.
struct Driver<D> {
    request: HttpRequest,
    new_decoder: Box<dyn Fn() -> D + Send>,
    decoder: D,
    /// The current attempt's events, once its response came.
    events: Option<Events>,
    attempt: usize,
    attempt_span: tracing::Span,
    started: Instant,
    status: Option<u16>,
    /// Chunks without content, held until content comes (or the stream ends).
    held: Vec<ModelChunk>,
    /// Whether content has been passed on (no retry after that).
    content: bool,
    finished: bool,
}

impl<D: Decoder> Driver<D> {
    /// The next chunks to pass on; `None` when the stream is over.
    async fn next(&mut self) -> Option<Vec<ModelChunk>> {
        loop {
            if self.finished {
                return None;
            }
            if self.events.is_none() {
                if let Err(error) = self.connect().await {
                    match self.failed(error).await {
                        Some(chunks) => return Some(chunks),
                        None => continue,
                    }
                }
            }
            let idle = self.request.config.idle_timeout;
            let events = self.events.as_mut()?;
            let error = match tokio::time::timeout(idle, events.next()).await {
                Err(_) => ModelError::new(
                    ModelErrorKind::Timeout,
                    format!("the provider sent nothing for {} ms", idle.as_millis()),
                ),
                Ok(Some(Err(error))) => ModelError::new(
                    ModelErrorKind::Connection,
                    format!("the connection failed during the answer: {error}"),
                ),
                Ok(None) if self.decoder.may_end() => {
                    self.succeeded();
                    return Some(std::mem::take(&mut self.held));
                }
                Ok(None) => ModelError::new(
                    ModelErrorKind::Connection,
                    "the connection closed before the answer ended",
                ),
                Ok(Some(Ok(event))) => match self.decoder.event(&event) {
                    Ok(chunks) => {
                        if let Some(chunks) = self.pass_on(chunks) {
                            return Some(chunks);
                        }
                        continue;
                    }
                    Err(error) => error,
                },
            };
            if let Some(chunks) = self.failed(error).await {
                return Some(chunks);
            }
        }
    }

    /// What to pass on of an event's chunks: nothing while no content has come (they are
    /// held), the held chunks with the first content, the chunks themselves after.
    fn pass_on(&mut self, chunks: Vec<ModelChunk>) -> Option<Vec<ModelChunk>> {
        for chunk in &chunks {
            if let ModelChunk::Usage(usage) = chunk {
                self.request
                    .span
                    .record("input_tokens", usage.input_tokens)
                    .record("output_tokens", usage.output_tokens);
            }
        }
        let done = self.decoder.done();
        if done {
            self.succeeded();
        }
        if !self.content && !done && !chunks.iter().any(is_content) {
            self.held.extend(chunks);
            return None;
        }
        self.content |= chunks.iter().any(is_content);
        let mut out = std::mem::take(&mut self.held);
        out.extend(chunks);
        (!out.is_empty() || done).then_some(out)
    }

    /// Sends the request once; on success the response's events are ready to read.
    async fn connect(&mut self) -> Result<(), ModelError> {
        self.attempt += 1;
        self.started = Instant::now();
        self.status = None;
        self.attempt_span = tracing::info_span!(
            parent: &self.request.span,
            "attempt",
            attempt = self.attempt,
            status = Empty,
            latency_ms = Empty,
            error = Empty,
        );
        let request = &self.request;
        let send = request
            .client
            .post(&request.url)
            .headers(request.headers.clone())
            .body(request.body.clone())
            .send();
        let timeout = request.config.response_timeout;
        let response = match tokio::time::timeout(timeout, send).await {
            Err(_) => {
                return Err(ModelError::new(
                    ModelErrorKind::Timeout,
                    format!("no response within {} ms", timeout.as_millis()),
                ));
            }
            Ok(Err(error)) => return Err(send_error(&error)),
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        self.status = Some(status);
        self.attempt_span.record("status", status);
        if response.status().is_success() {
            self.events = Some(Box::pin(response.bytes_stream().eventsource()));
            return Ok(());
        }
        let wait = retry_after(
            response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
        );
        let body = tokio::time::timeout(timeout, response.text())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        Err(status_error(status, &body, wait))
    }

    /// Records a failed attempt. Before any content, a retryable failure with attempts
    /// left waits and returns `None` (try again); otherwise the stream ends with the
    /// error (and the chunks held before it).
    async fn failed(&mut self, error: ModelError) -> Option<Vec<ModelChunk>> {
        self.events = None;
        self.record(Some(error.clone()));
        let retry = &self.request.config.retry;
        if !self.content && error.is_retryable() && self.attempt < retry.max_attempts {
            let wait = match error.retry_after {
                Some(asked) => asked.min(retry.max_retry_after),
                None => retry.backoff(self.attempt + 1),
            };
            tracing::info!(parent: &self.request.span, attempt = self.attempt, kind = ?error.kind, wait_ms = wait.as_millis() as u64, "retrying");
            tokio::time::sleep(wait).await;
            self.decoder = (self.new_decoder)();
            self.held.clear();
            return None;
        }
        self.finished = true;
        let mut chunks = std::mem::take(&mut self.held);
        chunks.push(ModelChunk::Error(error));
        Some(chunks)
    }

    /// The answer streamed to its end.
    fn succeeded(&mut self) {
        self.events = None;
        self.finished = true;
        self.record(None);
    }

    fn record(&self, error: Option<ModelError>) {
        let latency = self.started.elapsed();
        self.attempt_span
            .record("latency_ms", latency.as_millis() as u64);
        if let Some(error) = &error {
            self.attempt_span
                .record("error", tracing::field::display(error));
        }
        self.request.log.push(AttemptRecord {
            attempt: self.attempt,
            status: self.status,
            latency,
            error,
            content: self.content,
        });
    }
}

/// Whether a chunk is part of the answer (after which nothing can be retried).
fn is_content(chunk: &ModelChunk) -> bool {
    match chunk {
        ModelChunk::Text(text) => !text.is_empty(),
        ModelChunk::ToolCallDelta { .. } | ModelChunk::ToolCall { .. } => true,
        _ => false,
    }
}

/// A request that got no response, as a model error.
fn send_error(error: &reqwest::Error) -> ModelError {
    let kind = if error.is_timeout() {
        ModelErrorKind::Timeout
    } else {
        ModelErrorKind::Connection
    };
    ModelError::new(kind, format!("the request failed: {}", error_chain(error)))
}

/// An error and its sources in one line (reqwest's own message hides the cause).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A client with the configuration's connect timeout.
pub(crate) fn http_client(config: &ClientConfig) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(config.connect_timeout)
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// Headers from (name, value) pairs; pairs that are not valid header text are left out
/// (with a warning), since a request without them is better than none.
pub(crate) fn headers(pairs: &[(String, String)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        match (
            reqwest::header::HeaderName::from_bytes(name.as_bytes()),
            reqwest::header::HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(value)) => {
                map.insert(name, value);
            }
            _ => tracing::warn!(header = %name, "a header that is not valid HTTP is not sent"),
        }
    }
    map
}
