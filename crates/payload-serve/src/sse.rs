//! The response of `POST /api/chat`: the turn's events as `text/event-stream` (axum's
//! `Sse`, with a keep-alive comment every 15 s so a proxy does not close a stream
//! whose model is thinking), read from the channel the turn's task writes to. When the
//! client goes, the body is dropped, the channel closes, and the task sees it and
//! stops.

use axum::http::{HeaderName, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use payload_agent::AgentEvent;
use payload_core::stream::sse::ServerSentEvent;
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::mpsc::Receiver;

/// How often a quiet stream sends a comment to stay open.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A `text/event-stream` response streaming what arrives on `events`, with the
/// conversation's id and the turn's number in headers (what payload decisions name).
pub fn response(events: Receiver<AgentEvent>, conversation_id: &str, turn: usize) -> Response {
    let mut response = stream(events, |event| {
        let mut data = Vec::new();
        // Writing JSON into a Vec cannot fail.
        let _ = event.write_data(&mut data);
        Event::default()
            .event(event.event_name())
            .data(String::from_utf8_lossy(&data))
    });
    let headers = response.headers_mut();
    if let Ok(id) = HeaderValue::from_str(conversation_id) {
        headers.insert(HeaderName::from_static("x-conversation-id"), id);
    }
    headers.insert(HeaderName::from_static("x-turn"), HeaderValue::from(turn));
    response
}

/// The events arriving on `events`, each written by `encode`, as a `text/event-stream`
/// response with keep-alive comments.
pub fn stream<T: Send + 'static>(
    events: Receiver<T>,
    encode: impl Fn(T) -> Event + Send + Sync + 'static,
) -> Response {
    let body = futures::stream::unfold(events, |mut events| async move {
        events.recv().await.map(|event| (event, events))
    });
    let body = futures::StreamExt::map(body, move |event| Ok::<_, Infallible>(encode(event)));
    let mut response = Sse::new(body)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies that buffer would hold the stream back until it ends.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
