//! Errors as the JSON API answers them: a status and `{"error": "..."}`. Every error
//! the server makes has this shape, the request extractors' rejections included
//! ([`crate::extract::Json`]), and so does what an app's handler or route returns.

use crate::decide::DecideError;
use crate::store::StoreError;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::fmt;

/// An error response: a status and a message for the user.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

/// The body of every error response.
#[derive(Debug, Serialize)]
pub struct ErrorBody {
    /// What went wrong, in words.
    pub error: String,
}

impl ApiError {
    /// 400: the request is wrong.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: what it names is not there.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 409: it cannot be done in the state things are in.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    /// 500: the server failed.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// Any status, with `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// The status it answers with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What it says.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: self.message,
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        tracing::error!(%e, "database error");
        ApiError::internal(format!("the database failed: {e}"))
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Sqlite(e) => e.into(),
            e => {
                let cause = std::error::Error::source(&e)
                    .map(|c| format!(": {c}"))
                    .unwrap_or_default();
                tracing::error!(%e, %cause, "database error");
                ApiError::internal(format!("the database failed: {e}{cause}"))
            }
        }
    }
}

impl From<DecideError> for ApiError {
    fn from(e: DecideError) -> Self {
        match e {
            DecideError::NotFound => ApiError::not_found(e.to_string()),
            DecideError::AlreadyDecided(_) | DecideError::NoHandler(_) => {
                ApiError::conflict(e.to_string())
            }
            DecideError::Handler(e) => e,
            DecideError::Store(e) => e.into(),
        }
    }
}
