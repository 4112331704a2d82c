//! The extractors of every endpoint: axum's `Json` and `Path`, whose rejections (a body
//! that is not JSON or not the request's shape, a path segment of the wrong type)
//! answer in the same `{"error": ...}` shape as every other error, with the status axum
//! chose (400, 415, 422, 413). An app's own routes use them too.

use crate::error::ApiError;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
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

/// Path parameters of type `T`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Path<T>(pub T);

impl<T, S> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(rejection) => Err(path_rejected(rejection)),
        }
    }
}

/// The rejection as an [`ApiError`] with its status and text.
fn path_rejected(rejection: PathRejection) -> ApiError {
    ApiError::new(rejection.status(), rejection.body_text())
}

/// Query parameters of type `T`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<T, S> FromRequestParts<S> for Query<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(Query(value)),
            Err(rejection) => Err(query_rejected(rejection)),
        }
    }
}

/// The rejection as an [`ApiError`] with its status and text.
fn query_rejected(rejection: QueryRejection) -> ApiError {
    ApiError::new(rejection.status(), rejection.body_text())
}
