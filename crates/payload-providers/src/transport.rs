//! One streamed request, whatever the provider: send it, retry what failed before any
//! of the answer arrived, read the server-sent events under the request's time limits,
//! and turn each into [`ModelChunk`]s with the provider's [`Decoder`].
//!
//! Retries happen only before the first piece of content (text or a tool call) is
//! passed on, and only when the server cannot still be working on the request: after a
//! failed or dropped connection, or a status that asks for it (429, 5xx, an overloaded
//! error event). A request that timed out is never sent again: a slow server would
//! start over with every re-send. Chunks that carry no content (usage, say) are held
//! until content comes, so a retried attempt leaves nothing behind. After content has
//! been passed on, a failure cannot be retried: the text was already shown and cannot
//! be unsent, so it ends the stream with [`ModelChunk::Error`] and the turn completes
//! with what arrived.
//!
//! Time runs against three marks ([`ClientConfig`]): the first piece of content, each
//! next piece, and the request's overall deadline. Only content moves the first two:
//! events without any, comments and stray bytes do not, so keep-alives cannot hold a
//! request open. Each timeout says which mark passed and what the server was doing.
//!
//! Needs a tokio runtime with the time driver (the one reqwest runs on).

use crate::attempts::{AttemptLog, AttemptRecord};
use crate::config::{ClientConfig, REDACTED};
use crate::http_error::{retry_after, status_error};
use crate::sse::{Event, SseError, SseReader};
use futures::{Stream, StreamExt};
use payload_agent::{ModelChunk, ModelError, ModelErrorKind, ModelStream, Usage};
use reqwest::header::{HeaderMap, RETRY_AFTER};
use secrecy::{ExposeSecret, SecretString};
use std::pin::Pin;
use std::time::Duration;
use tokio::time::Instant;
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
    /// The model that answered, once an event named it (`gen_ai.response.model`).
    fn response_model(&self) -> Option<&str>;
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
    /// Timeouts, retries, and the secrets to keep out of error messages.
    pub config: ClientConfig,
    /// Where each attempt is recorded.
    pub log: AttemptLog,
    /// The request's span: each attempt is a span inside it.
    pub span: tracing::Span,
}

/// How a provider takes the key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeyHeader {
    /// `Authorization: Bearer KEY` (OpenAI).
    Bearer,
    /// The key alone in a header of this name (`x-api-key`, `x-goog-api-key`).
    Named(&'static str),
}

/// What one provider's request is made of, besides the configuration.
pub(crate) struct RequestParts<'a> {
    /// The provider's name in the OpenTelemetry GenAI conventions
    /// (`gen_ai.provider.name`: `openai`, `anthropic`, `gcp.gemini`), for traces.
    pub provider: &'static str,
    /// The path after the base URL.
    pub path: &'a str,
    /// How the key is sent.
    pub key: KeyHeader,
    /// The provider's own fixed headers (an API version).
    pub fixed: &'a [(&'static str, &'static str)],
    /// The JSON body.
    pub body: Vec<u8>,
    /// Which call of the turn this is.
    pub iteration: usize,
}

/// What every provider's client holds to send its requests: the configuration, the HTTP
/// client (built on first use), and the attempts of the last request. One value, so the
/// four clients share how a request is made and what is kept of it.
#[derive(Debug, Clone)]
pub(crate) struct Connection {
    /// The configuration requests are sent with.
    pub(crate) config: ClientConfig,
    client: Option<reqwest::Client>,
    attempts: AttemptLog,
}

impl Connection {
    /// A connection with `config`; no request sent yet.
    pub(crate) fn new(config: ClientConfig) -> Connection {
        Connection {
            config,
            client: None,
            attempts: AttemptLog::fresh(),
        }
    }

    /// Forgets the HTTP client, which holds the connect timeout, so the next request
    /// builds it again from the configuration.
    pub(crate) fn rebuild_client(&mut self) {
        self.client = None;
    }

    /// The attempts of the last request.
    pub(crate) fn attempts(&self) -> &AttemptLog {
        &self.attempts
    }

    /// The request for `parts` with the configuration's headers and key (marked
    /// sensitive); its fresh attempt log becomes "the last request's".
    pub(crate) fn request(&mut self, parts: RequestParts<'_>) -> HttpRequest {
        let config = &self.config;
        let client = self
            .client
            .get_or_insert_with(|| http_client(config))
            .clone();
        let (request, log) = http_request(config, client, parts);
        self.attempts = log;
        request
    }
}

/// The request for `parts` on `client`, and its attempt log.
fn http_request(
    config: &ClientConfig,
    client: reqwest::Client,
    parts: RequestParts<'_>,
) -> (HttpRequest, AttemptLog) {
    use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue};
    let mut map = headers(&config.headers);
    map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    for (name, value) in parts.fixed {
        map.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    if let Some(key) = &config.api_key {
        let (name, value) = match parts.key {
            KeyHeader::Bearer => (AUTHORIZATION, format!("Bearer {}", key.expose_secret())),
            KeyHeader::Named(name) => (
                HeaderName::from_static(name),
                key.expose_secret().to_string(),
            ),
        };
        if let Ok(mut value) = HeaderValue::from_str(&value) {
            value.set_sensitive(true);
            map.insert(name, value);
        }
    }
    let log = AttemptLog::fresh();
    let url = config.url(parts.path);
    let span = crate::trace::request_span(parts.provider, config, &url, parts.iteration);
    let request = HttpRequest {
        client,
        url,
        headers: map,
        body: parts.body,
        config: config.clone(),
        log: log.clone(),
        span,
    };
    (request, log)
}

/// Sends `request` and streams its answer, decoded by a fresh `new_decoder()` for each
/// attempt.
pub(crate) fn stream<D: Decoder>(
    request: HttpRequest,
    new_decoder: impl Fn() -> D + Send + 'static,
) -> ModelStream {
    let secrets = request.config.secrets();
    let driver = Driver {
        decoder: new_decoder(),
        new_decoder: Box::new(new_decoder),
        reader: SseReader::new(request.config.max_event_bytes),
        request,
        secrets,
        body: None,
        attempt: 0,
        attempt_span: tracing::Span::none(),
        started: Instant::now(),
        deadline: None,
        status: None,
        progress_at: None,
        received_at_progress: 0,
        held: Vec::new(),
        content: false,
        finished: false,
        first_sent: None,
        usage: Usage::default(),
        model_recorded: false,
    };
    let chunks = futures::stream::unfold(driver, |mut driver| async move {
        let span = driver.request.span.clone();
        let chunks = driver.next().instrument(span).await?;
        Some((futures::stream::iter(chunks), driver))
    });
    Box::pin(chunks.flatten())
}

type Body = Pin<Box<dyn Stream<Item = Result<bytes::Bytes, reqwest::Error>> + Send>>;

/// What the request is waiting for when a time limit passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    /// The response's status and headers (under the first-token timeout).
    Headers,
    /// The first piece of content, the headers in (under the first-token timeout).
    FirstContent,
    /// The next piece of content (under the idle timeout).
    NextContent,
    /// Anything: the overall deadline comes first.
    Deadline,
}

/// The state of one streamed request across its attempts.
struct Driver<D> {
    request: HttpRequest,
    secrets: Vec<SecretString>,
    new_decoder: Box<dyn Fn() -> D + Send>,
    decoder: D,
    reader: SseReader,
    /// The current attempt's body, once its response came.
    body: Option<Body>,
    attempt: usize,
    attempt_span: tracing::Span,
    /// When the current attempt was sent.
    started: Instant,
    /// When the whole request must be over (set when the first attempt is sent).
    deadline: Option<Instant>,
    status: Option<u16>,
    /// When the current attempt's last piece of content came.
    progress_at: Option<Instant>,
    /// The bytes the current attempt had received then.
    received_at_progress: u64,
    /// Chunks without content, held until content comes (or the stream ends).
    held: Vec<ModelChunk>,
    /// Whether content has been passed on (no retry after that).
    content: bool,
    finished: bool,
    /// When the first attempt was sent (the time to the first chunk counts from it).
    first_sent: Option<Instant>,
    /// The current attempt's usage chunks added up (a provider may send input and
    /// output tokens in different events).
    usage: Usage,
    /// Whether the answering model is on the span.
    model_recorded: bool,
}

impl<D: Decoder> Driver<D> {
    /// The next chunks to pass on; `None` when the stream is over.
    async fn next(&mut self) -> Option<Vec<ModelChunk>> {
        loop {
            if self.finished {
                return None;
            }
            let error = if let Some(event) = self.reader.next_event() {
                let decoded = self.decoder.event(&event);
                if !self.model_recorded
                    && let Some(model) = self.decoder.response_model()
                {
                    crate::trace::response_model(&self.request.span, model);
                    self.model_recorded = true;
                }
                match decoded {
                    Ok(chunks) => match self.pass_on(chunks) {
                        Some(chunks) => return Some(chunks),
                        None => continue,
                    },
                    Err(error) => error,
                }
            } else if self.body.is_none() {
                match self.connect().await {
                    Ok(()) => continue,
                    Err(error) => error,
                }
            } else {
                match self.read().await {
                    Ok(None) => continue,
                    Ok(Some(chunks)) => return Some(chunks),
                    Err(error) => error,
                }
            };
            if let Some(chunks) = self.failed(error).await {
                return Some(chunks);
            }
        }
    }

    /// Reads the next piece of the body into the event reader: `Ok(Some(_))` when the
    /// stream ended as it may (the held chunks), `Ok(None)` to go on.
    async fn read(&mut self) -> Result<Option<Vec<ModelChunk>>, ModelError> {
        let (until, waiting) = self.next_mark();
        let Some(body) = self.body.as_mut() else {
            return Ok(None);
        };
        match tokio::time::timeout_at(until, body.next()).await {
            Err(_) => Err(self.timed_out(waiting)),
            Ok(Some(Ok(bytes))) => match self.reader.push(&bytes) {
                Ok(()) => Ok(None),
                Err(error) => Err(reader_error(&error)),
            },
            Ok(Some(Err(error))) => Err(ModelError::new(
                ModelErrorKind::Connection,
                format!(
                    "the connection failed during the answer: {}",
                    error_chain(&error.without_url())
                ),
            )),
            Ok(None) if self.decoder.may_end() => {
                self.succeeded();
                Ok(Some(std::mem::take(&mut self.held)))
            }
            Ok(None) => Err(ModelError::new(
                ModelErrorKind::Connection,
                "the connection closed before the answer ended",
            )),
        }
    }

    /// The next time limit and what the request waits for until then.
    fn next_mark(&self) -> (Instant, Waiting) {
        let config = &self.request.config;
        let deadline = self
            .deadline
            .unwrap_or_else(|| self.started + config.deadline);
        let (mark, waiting) = match (self.progress_at, self.status) {
            (Some(at), _) => (at + config.idle_timeout, Waiting::NextContent),
            (None, Some(_)) => (
                self.started + config.first_token_timeout,
                Waiting::FirstContent,
            ),
            (None, None) => (self.started + config.first_token_timeout, Waiting::Headers),
        };
        if deadline <= mark {
            (deadline, Waiting::Deadline)
        } else {
            (mark, waiting)
        }
    }

    /// The error for a time limit that passed while waiting for `waiting`.
    fn timed_out(&self, waiting: Waiting) -> ModelError {
        let config = &self.request.config;
        let ms = |d: Duration| d.as_millis();
        // Bytes that came since the last content (or the headers): keep-alives.
        let idle_bytes = self.reader.received() - self.received_at_progress;
        let kept_alive = |since: &str, limit: &str| {
            format!(
                "while the provider kept the connection alive with empty events ({idle_bytes} bytes since {since}, no content; {limit})"
            )
        };
        let message = match waiting {
            Waiting::Headers => format!(
                "no response headers within {} ms of sending the request (first-token timeout); it is not sent again, since the server may still be working on it",
                ms(config.first_token_timeout)
            ),
            Waiting::FirstContent if idle_bytes > 0 => format!(
                "no content for {} ms {}",
                ms(config.first_token_timeout),
                kept_alive("the response headers", "first-token timeout")
            ),
            Waiting::FirstContent => format!(
                "the response headers came, then nothing: no content for {} ms after sending the request (first-token timeout)",
                ms(config.first_token_timeout)
            ),
            Waiting::NextContent if idle_bytes > 0 => format!(
                "no content for {} ms {}",
                ms(config.idle_timeout),
                kept_alive("the last content", "idle timeout")
            ),
            Waiting::NextContent => format!(
                "the answer stopped: nothing for {} ms after its last content (idle timeout)",
                ms(config.idle_timeout)
            ),
            Waiting::Deadline => {
                let doing = match (self.status, self.progress_at) {
                    (None, _) => "waiting for the response headers",
                    (Some(_), None) => "waiting for the first content",
                    (Some(_), Some(_)) => "the answer was still coming",
                };
                format!(
                    "the request did not finish within its overall deadline of {} ms ({} attempt(s); {doing})",
                    ms(config.deadline),
                    self.attempt
                )
            }
        };
        ModelError::new(ModelErrorKind::Timeout, message)
    }

    /// What to pass on of an event's chunks: nothing while no content has come (they are
    /// held), the held chunks with the first content, the chunks themselves after.
    fn pass_on(&mut self, chunks: Vec<ModelChunk>) -> Option<Vec<ModelChunk>> {
        for chunk in &chunks {
            match chunk {
                ModelChunk::Usage(usage) => {
                    self.usage.input_tokens += usage.input_tokens;
                    self.usage.output_tokens += usage.output_tokens;
                    crate::trace::usage(&self.request.span, self.usage);
                }
                ModelChunk::Finish(reason) => crate::trace::finished(&self.request.span, reason),
                _ => {}
            }
        }
        if !self.content
            && chunks.iter().any(is_content)
            && let Some(sent) = self.first_sent
        {
            crate::trace::first_chunk(&self.request.span, sent.elapsed());
        }
        if chunks.iter().any(is_progress) {
            self.progress_at = Some(Instant::now());
            self.received_at_progress = self.reader.received();
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

    /// Sends the request once; on success the response's body is ready to read.
    async fn connect(&mut self) -> Result<(), ModelError> {
        self.attempt += 1;
        self.started = Instant::now();
        let config = &self.request.config;
        self.deadline.get_or_insert(self.started + config.deadline);
        self.first_sent.get_or_insert(self.started);
        self.status = None;
        self.progress_at = None;
        self.received_at_progress = 0;
        self.reader = SseReader::new(config.max_event_bytes);
        self.attempt_span = tracing::info_span!(
            parent: &self.request.span,
            "attempt",
            attempt = self.attempt,
            status = Empty,
            latency_ms = Empty,
            error = Empty,
        );
        let (until, waiting) = self.next_mark();
        let request = &self.request;
        let send = request
            .client
            .post(&request.url)
            .headers(request.headers.clone())
            .body(request.body.clone())
            .send();
        let response = match tokio::time::timeout_at(until, send).await {
            Err(_) => return Err(self.timed_out(waiting)),
            Ok(Err(error)) => return Err(send_error(error, request.config.connect_timeout)),
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        self.status = Some(status);
        self.attempt_span.record("status", status);
        if response.status().is_success() {
            self.body = Some(Box::pin(response.bytes_stream()));
            return Ok(());
        }
        let wait = retry_after(
            response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
        );
        let body = error_body(response, until).await;
        Err(status_error(status, &body, wait))
    }

    /// Records a failed attempt. Before any content, a failure the server cannot still
    /// be working on, with attempts and time left, waits and returns `None` (send
    /// again); otherwise the stream ends with the error (and the chunks held before it).
    async fn failed(&mut self, mut error: ModelError) -> Option<Vec<ModelChunk>> {
        redact(&mut error.message, &self.secrets);
        self.body = None;
        let retry = &self.request.config.retry;
        if !self.content && may_send_again(&error) && self.attempt < retry.max_attempts {
            let wait = match error.retry_after {
                Some(asked) => asked.min(retry.max_retry_after),
                None => retry.backoff(self.attempt + 1),
            };
            let deadline = self.deadline.unwrap_or_else(Instant::now);
            if Instant::now() + wait < deadline {
                self.record(Some(error.clone()));
                tracing::info!(parent: &self.request.span, attempt = self.attempt, kind = ?error.kind, wait_ms = wait.as_millis() as u64, "retrying");
                tokio::time::sleep(wait).await;
                self.decoder = (self.new_decoder)();
                self.held.clear();
                self.usage = Usage::default();
                return None;
            }
            error.message.push_str(&format!(
                " (not sent again: the overall deadline of {} ms would pass first)",
                self.request.config.deadline.as_millis()
            ));
        }
        self.record(Some(error.clone()));
        crate::trace::failed(&self.request.span, &error);
        self.finished = true;
        let mut chunks = std::mem::take(&mut self.held);
        chunks.push(ModelChunk::Error(error));
        Some(chunks)
    }

    /// The answer streamed to its end.
    fn succeeded(&mut self) {
        self.body = None;
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

/// Whether a failed request may be sent again (before any content): only when the
/// server cannot still be working on it (the connection failed or dropped) or asked for
/// it (429, 5xx, an overloaded or server error event). A timeout is not: the server
/// may be reading a long prompt, and a re-send would make it start over.
fn may_send_again(error: &ModelError) -> bool {
    matches!(
        error.kind,
        ModelErrorKind::RateLimited | ModelErrorKind::Server | ModelErrorKind::Connection
    )
}

/// Whether a chunk is part of the answer (after which nothing can be retried).
fn is_content(chunk: &ModelChunk) -> bool {
    match chunk {
        ModelChunk::Text(text) | ModelChunk::Refusal(text) => !text.is_empty(),
        ModelChunk::ToolCallDelta { .. } | ModelChunk::ToolCall { .. } => true,
        _ => false,
    }
}

/// Whether a chunk moves the answer on, resetting the idle timer: anything a decoder
/// read from an event but an error and an empty piece (so a server cannot keep a
/// request alive with empty deltas).
fn is_progress(chunk: &ModelChunk) -> bool {
    match chunk {
        ModelChunk::Text(text) => !text.is_empty(),
        ModelChunk::ToolCallDelta {
            id,
            name,
            arguments,
            ..
        } => id.is_some() || name.is_some() || !arguments.is_empty(),
        ModelChunk::Error(_) => false,
        _ => true,
    }
}

/// The error for bytes the event reader refused: neither is sent again (the server
/// would send the same).
fn reader_error(error: &SseError) -> ModelError {
    ModelError::new(
        ModelErrorKind::Protocol,
        format!("{error}; the answer is not read further and the request is not sent again"),
    )
}

/// A request that got no response, as a model error: the connection failed, so the
/// server never had the request (or lost it), and it may be sent again.
fn send_error(error: reqwest::Error, connect_timeout: Duration) -> ModelError {
    let message = if error.is_connect() && error.is_timeout() {
        format!(
            "could not connect within {} ms (connect timeout)",
            connect_timeout.as_millis()
        )
    } else if error.is_connect() {
        format!("could not connect: {}", error_chain(&error.without_url()))
    } else {
        format!(
            "the connection failed before a response came: {}",
            error_chain(&error.without_url())
        )
    };
    ModelError::new(ModelErrorKind::Connection, message)
}

/// The most of an error response's body that is read for its message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// An error response's body (its first [`MAX_ERROR_BODY`] bytes), read until `until`
/// at the latest.
async fn error_body(response: reqwest::Response, until: Instant) -> String {
    let mut body = Vec::new();
    let mut pieces = response.bytes_stream();
    let read = async {
        while let Some(Ok(piece)) = pieces.next().await {
            let room = MAX_ERROR_BODY - body.len();
            body.extend_from_slice(&piece[..piece.len().min(room)]);
            if body.len() >= MAX_ERROR_BODY {
                break;
            }
        }
    };
    let until = until.min(Instant::now() + Duration::from_secs(10));
    let _ = tokio::time::timeout_at(until, read).await;
    String::from_utf8_lossy(&body).into_owned()
}

/// `text` with every secret in it replaced by `[REDACTED]` (a provider may echo the
/// key in its error message). Secrets shorter than 4 bytes are no real key and would
/// only mangle the text.
pub(crate) fn redact(text: &mut String, secrets: &[SecretString]) {
    for secret in secrets {
        let secret = secret.expose_secret();
        if secret.len() >= 4 && text.contains(secret) {
            *text = text.replace(secret, REDACTED);
        }
    }
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

/// Headers from (name, value) pairs, each value marked sensitive (it may be a key);
/// pairs that are not valid header text are left out (with a warning naming the header,
/// never its value), since a request without them is better than none.
pub(crate) fn headers(pairs: &[(String, SecretString)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        match (
            reqwest::header::HeaderName::from_bytes(name.as_bytes()),
            reqwest::header::HeaderValue::from_str(value.expose_secret()),
        ) {
            (Ok(name), Ok(mut value)) => {
                value.set_sensitive(true);
                map.insert(name, value);
            }
            _ => tracing::warn!(header = %name, "a header that is not valid HTTP is not sent"),
        }
    }
    map
}
