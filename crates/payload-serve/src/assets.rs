//! The page: plain HTML, CSS and JavaScript compiled into the binary, so the demo needs
//! no build step and no files beside it. The [`crate::security`] layers serve it with a
//! Content-Security-Policy that allows only these files' scripts and styles: a second
//! wall behind the page's rule of never turning model text into HTML.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The files, by the name the page asks for, with their content types.
const FILES: &[(&str, &str, &str)] = &[
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../assets/app.css"),
    ),
    (
        "markdown.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/markdown.js"),
    ),
    (
        "payloads.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/payloads.js"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
];

const INDEX: &str = include_str!("../assets/index.html");

/// `GET /`: the page.
pub async fn index() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX).into_response()
}

/// `GET /assets/{name}`: a script or style sheet.
pub async fn asset(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(file, _, _)| *file == name) {
        Some((_, content_type, body)) => {
            ([(header::CONTENT_TYPE, *content_type)], *body).into_response()
        }
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}
