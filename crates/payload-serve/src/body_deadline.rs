//! Reads a request's body whole, within a deadline and a size limit, before a handler
//! sees it: a client sending a byte a second gets 408 and its connection closed instead
//! of holding a task for as long as it likes. Every body this server takes is a small
//! JSON document, so holding it in memory costs nothing the limit does not bound.

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::time::Duration;

/// The deadline and the limit.
#[derive(Debug, Clone, Copy)]
pub struct BodyBounds {
    /// The time the whole body may take.
    pub deadline: Duration,
    /// Its largest size in bytes.
    pub limit: usize,
}

/// Reads the body within the bounds; 408 (closing the connection) or 413 when it does
/// not fit them.
pub async fn read_within(
    State(bounds): State<BodyBounds>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    if body.size_hint().exact() == Some(0) {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let read = axum::body::to_bytes(body, bounds.limit);
    match tokio::time::timeout(bounds.deadline, read).await {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(_)) => refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the body is larger than {} bytes, or was cut off",
                bounds.limit
            ),
        ),
        Err(_) => refuse(
            StatusCode::REQUEST_TIMEOUT,
            format!("the body did not arrive within {:?}", bounds.deadline),
        ),
    }
}

fn refuse(status: StatusCode, message: String) -> Response {
    let mut response = crate::ApiError::new(status, message).into_response();
    // The rest of the body may still be on its way: the connection cannot be reused.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
