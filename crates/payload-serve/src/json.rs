//! The JSON body extractor of every endpoint: axum's `Json`, whose rejections (a body
//! that is not JSON, or not the request's shape) answer in the same `{"error": ...}`
//! shape as every other error, with the status axum chose (400, 415, 422, 413).

use crate::error::ApiError;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

/// A JSON request body of type `T`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<T, S> FromRequest<S> for Json<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Json(value)),
            Err(rejection) => Err(rejected(rejection)),
        }
    }
}

/// The rejection as an [`ApiError`] with its status and text.
fn rejected(rejection: JsonRejection) -> ApiError {
    ApiError::new(rejection.status(), rejection.body_text())
}
