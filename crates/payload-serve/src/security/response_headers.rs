//! The headers every response carries, whatever answered it (a page, JSON, an error, a
//! refusal of the request guard).

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// A policy for a server of its own files only: scripts, styles, images and
/// connections to itself, no plugins, no `<base>`, no form posts, and no framing.
pub const DEFAULT_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// `router` with the headers added to every response (over whatever a handler set).
pub fn add(router: Router, content_security_policy: &str) -> Router {
    let csp = HeaderValue::from_str(content_security_policy).unwrap_or_else(|_| {
        tracing::error!("the Content-Security-Policy is not a header value; using the default");
        HeaderValue::from_static(DEFAULT_CONTENT_SECURITY_POLICY)
    });
    let fixed: [(HeaderName, HeaderValue); 5] = [
        (header::CONTENT_SECURITY_POLICY, csp),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (
            header::REFERRER_POLICY,
            // Not `no-referrer`: with it a browser sends `Origin: null` on the page's own
            // POSTs, which the same-origin check must refuse.
            HeaderValue::from_static("same-origin"),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            HeaderName::from_static("cross-origin-resource-policy"),
            HeaderValue::from_static("same-origin"),
        ),
    ];
    fixed.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::overriding(name, value))
    })
}
