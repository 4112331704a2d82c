//! The response of `POST /api/chat`: the turn's events as `text/event-stream`, read
//! from the channel the turn's task writes to. When the client goes, the body is
//! dropped, the channel closes, and the task sees it and stops.

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use std::convert::Infallible;
use tokio::sync::mpsc::Receiver;

/// A `text/event-stream` response streaming what arrives on `events`, with the
/// conversation's id and the turn's number in headers (what payload decisions name).
pub fn response(events: Receiver<Bytes>, conversation_id: &str, turn: usize) -> Response {
    let stream = futures::stream::unfold(events, |mut events| async move {
        events
            .recv()
            .await
            .map(|bytes| (Ok::<_, Infallible>(bytes), events))
    });
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies that buffer would hold the stream back until it ends.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    if let Ok(id) = HeaderValue::from_str(conversation_id) {
        headers.insert("x-conversation-id", id);
    }
    headers.insert("x-turn", HeaderValue::from(turn));
    response
}
