//! Keys are secrets: a client's `Debug`, its configuration's, the errors it reports
//! (even when the provider echoes the key back) and everything traced or logged while
//! it talks to a server never show one.

use crate::support::*;
use futures::StreamExt;
use payload_agent::Fallback;
use payload_agent::{Model, ModelChunk, ModelMessage, ModelRequest};
use payload_providers::{Anthropic, ExposeSecret, Gemini, OpenAi, OpenAiResponses};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

const KEY: &str = "sk-secret-0123456789abcdef";
const HEADER_KEY: &str = "azure-key-fedcba9876543210";

#[test]
fn debug_shows_no_key_and_no_header_value() {
    let openai = OpenAi::new("m").api_key(KEY).header("api-key", HEADER_KEY);
    let anthropic = Anthropic::new("m")
        .api_key(KEY)
        .header("api-key", HEADER_KEY);
    let responses = OpenAiResponses::new("m")
        .api_key(KEY)
        .header("api-key", HEADER_KEY);
    let gemini = Gemini::new("m").api_key(KEY).header("api-key", HEADER_KEY);
    for text in [
        format!("{openai:?}"),
        format!("{:?}", openai.config()),
        format!("{anthropic:?}"),
        format!("{:#?}", anthropic.config()),
        format!("{responses:?}"),
        format!("{gemini:#?}"),
    ] {
        assert!(!text.contains(KEY), "{text}");
        assert!(!text.contains(HEADER_KEY), "{text}");
        assert!(text.contains("[REDACTED]"), "{text}");
        assert!(
            text.contains("api-key"),
            "the header's name is shown: {text}"
        );
    }
    // The key is still there for whoever asks for it on purpose.
    let key = openai.config().api_key.as_ref().unwrap();
    assert_eq!(key.expose_secret(), KEY);
}

/// Everything traced: span names, fields and their later records, and events.
#[derive(Clone, Default)]
struct Capture {
    text: Arc<Mutex<String>>,
    ids: Arc<AtomicU64>,
}

struct Fields<'a>(&'a mut String);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut text = self.text.lock().unwrap();
        let _ = write!(text, "\nspan {}", span.metadata().name());
        span.record(&mut Fields(&mut text));
        Id::from_u64(self.ids.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, values: &Record<'_>) {
        values.record(&mut Fields(&mut self.text.lock().unwrap()));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut text = self.text.lock().unwrap();
        let _ = write!(text, "\nevent {}", event.metadata().target());
        event.record(&mut Fields(&mut text));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Everything logged through the `log` crate (the HTTP stack's own logging).
struct LogCapture(Arc<Mutex<String>>);

impl log::Log for LogCapture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        let _ = write!(
            self.0.lock().unwrap(),
            "\nlog {} {}",
            record.target(),
            record.args()
        );
    }
    fn flush(&self) {}
}

async fn chunks(model: &mut dyn Model) -> Vec<ModelChunk> {
    let request = ModelRequest::new(vec![ModelMessage::user("hi")]);
    model.stream(&request).collect().await
}

#[test]
fn errors_traces_and_logs_never_show_the_key() {
    let logged = Arc::new(Mutex::new(String::new()));
    log::set_boxed_logger(Box::new(LogCapture(logged.clone()))).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    let capture = Capture::default();
    let traced = capture.text.clone();
    let echoed = format!(
        r#"{{"error": {{"message": "Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}}}"#
    );
    // The global subscriber, not a scoped one: tracing caches whether a call site is
    // wanted per process, and a scoped subscriber races with the other tests of this
    // binary reaching the same call sites first (the span then goes unrecorded now and
    // then). Whatever the other tests trace lands here too, so it is checked as well.
    tracing::subscriber::set_global_default(capture).unwrap();
    let (received, error, attempt_error) = {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let server = Server::start(vec![
                stream("openai/schema_proposal.sse"),
                Reply::Status(401, vec![], echoed),
                // A failure that is retried: its error is traced on the way.
                Reply::Status(500, vec![], format!("upstream said {HEADER_KEY}")),
                stream("anthropic/schema_proposal.sse"),
                Reply::Status(
                    429,
                    vec![],
                    format!(r#"{{"error": {{"code": 429, "message": "quota for {KEY}", "status": "RESOURCE_EXHAUSTED"}}}}"#),
                ),
                stream("responses/schema_proposal.sse"),
            ]);
            let mut openai = OpenAi::new("m")
                .base_url(format!("{}/v1", server.url))
                .api_key(KEY)
                .header("api-key", HEADER_KEY)
                .retry(quick_retry(2));
            let answered = chunks(&mut openai).await;
            assert!(
                !answered.iter().any(|c| matches!(c, ModelChunk::Error(_))),
                "{answered:?}"
            );
            let refused = chunks(&mut openai).await;
            let error = match refused.last() {
                Some(ModelChunk::Error(error)) => error.to_string(),
                other => panic!("{other:?}"),
            };
            let attempt_error = format!("{:?}", openai.attempts());
            let mut anthropic = Anthropic::new("m")
                .base_url(&server.url)
                .api_key(KEY)
                .header("api-key", HEADER_KEY)
                .retry(quick_retry(2));
            chunks(&mut anthropic).await;
            // A chain whose first model (Gemini) is rate limited falls back to the
            // Responses API: both keys sent, neither shown.
            let gemini = Gemini::new("m")
                .base_url(&server.url)
                .api_key(KEY)
                .retry(quick_retry(1));
            let responses = OpenAiResponses::new("m")
                .base_url(format!("{}/v1", server.url))
                .api_key(KEY)
                .retry(quick_retry(1));
            let mut chain = Fallback::new([Box::new(gemini) as Box<dyn Model>]).or(responses);
            chunks(&mut chain).await;
            let fallback = format!("{chain:?}");
            assert!(fallback.contains("RateLimited"), "{fallback}");
            assert!(!fallback.contains(KEY), "{fallback}");
            (server.received(), error, attempt_error)
        })
    };
    // The key was sent where it belongs.
    assert_eq!(
        received[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(received[3].header("x-api-key"), Some(KEY));
    assert_eq!(received[3].header("api-key"), Some(HEADER_KEY));
    assert_eq!(received[4].header("x-goog-api-key"), Some(KEY));
    assert_eq!(
        received[5].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    // The provider echoed it: the error shows it redacted.
    assert_eq!(
        error, "Incorrect API key provided: [REDACTED] (HTTP 401)",
        "{error}"
    );
    assert!(!attempt_error.contains(KEY), "{attempt_error}");
    let traced = traced.lock().unwrap().clone();
    let logged = logged.lock().unwrap().clone();
    assert!(traced.contains("span chat"), "{traced}");
    assert!(traced.contains("upstream said [REDACTED]"), "{traced}");
    for secret in [KEY, HEADER_KEY] {
        assert!(!traced.contains(secret), "traced: {traced}");
        assert!(!logged.contains(secret), "logged: {logged}");
    }
}
