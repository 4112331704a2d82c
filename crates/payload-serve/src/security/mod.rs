//! What keeps other sites and other names off a local web server, as layers that know
//! nothing of the app they wrap: any router of JSON endpoints and pages can take them.
//!
//! - **Host**: every request must name an address the server is served on (or a name
//!   the operator listed), else 421. A page on `evil.example` whose name was rebound
//!   to 127.0.0.1 (DNS rebinding) sends `Host: evil.example` and reads nothing.
//! - **Same origin for changes**: a request that may change state (any method but
//!   GET, HEAD and OPTIONS) is refused (403) when the browser says it comes from another
//!   site: `Sec-Fetch-Site` other than `same-origin`/`none`, or an `Origin` (or, without
//!   one, a `Referer`) whose host is not the request's `Host`. A request with none of
//!   these headers is not a browser's (browsers send `Origin` on every POST) and passes:
//!   the checks stop other sites' pages, not local programs, which could as well open
//!   the database.
//! - **JSON bodies only** for those requests (415 otherwise): an HTML form can send
//!   only `application/x-www-form-urlencoded`, `multipart/form-data` or `text/plain`,
//!   so no form on any site can make one, and a cross-site `fetch` with
//!   `application/json` needs a CORS preflight this server never grants.
//! - **Headers on every response**: a Content-Security-Policy with
//!   `frame-ancestors 'none'`, `X-Frame-Options: DENY` (no site can frame the page to
//!   trick a click), `Referrer-Policy: same-origin` (ids in URLs never leave) and
//!   `X-Content-Type-Options: nosniff`.
//!
//! What this does not do: TLS and authentication. On 127.0.0.1 the machine's user is
//! the user; a deployment behind a proxy must add both, and list its public name as an
//! allowed host.

mod hosts;
mod request_guard;
mod response_headers;

pub use hosts::AllowedHosts;
pub use response_headers::DEFAULT_CONTENT_SECURITY_POLICY;

use axum::Router;
use std::net::SocketAddr;

/// How the security layers are set up.
#[derive(Debug, Clone)]
pub struct SecurityPolicy {
    /// Host names (optionally `name:port`) accepted besides the address served, e.g. the
    /// public name a proxy forwards. A name without a port matches any port.
    pub allowed_hosts: Vec<String>,
    /// The Content-Security-Policy of every response; it should keep
    /// `frame-ancestors 'none'`.
    pub content_security_policy: String,
}

impl Default for SecurityPolicy {
    /// Only the address served; [`DEFAULT_CONTENT_SECURITY_POLICY`].
    fn default() -> Self {
        SecurityPolicy {
            allowed_hosts: Vec::new(),
            content_security_policy: DEFAULT_CONTENT_SECURITY_POLICY.to_string(),
        }
    }
}

/// `router` behind the layers, for a server listening on `served`.
pub fn protect(router: Router, policy: &SecurityPolicy, served: SocketAddr) -> Router {
    let hosts = AllowedHosts::new(served, &policy.allowed_hosts);
    let router = router.layer(axum::middleware::from_fn_with_state(
        hosts,
        request_guard::guard,
    ));
    response_headers::add(router, &policy.content_security_policy)
}
