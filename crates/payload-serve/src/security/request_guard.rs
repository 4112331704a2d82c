//! The checks every request passes before any handler runs: its `Host`, and for a
//! request that may change state, where it comes from and that its body is JSON.

use super::AllowedHosts;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Refuses a request for another host (421), a state-changing one from another site
/// (403) or with a body that is not JSON (415); passes the rest on.
pub async fn guard(State(hosts): State<AllowedHosts>, request: Request, next: Next) -> Response {
    match check(&hosts, request.method(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err((status, message)) => crate::ApiError::new(status, message).into_response(),
    }
}

type Refusal = (StatusCode, &'static str);

fn check(hosts: &AllowedHosts, method: &Method, headers: &HeaderMap) -> Result<(), Refusal> {
    let host = text(headers, header::HOST)
        .filter(|host| hosts.allows(host))
        .ok_or((
            StatusCode::MISDIRECTED_REQUEST,
            "this server does not answer for that host name",
        ))?;
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    same_origin(headers, host)?;
    json_body(headers)
}

/// Whether the browser says the request comes from this origin (a request that says
/// nothing is not a browser's; see the module's docs).
fn same_origin(headers: &HeaderMap, host: &str) -> Result<(), Refusal> {
    const CROSS: Refusal = (
        StatusCode::FORBIDDEN,
        "requests that change data must come from this server's own page",
    );
    if let Some(site) = text(headers, "sec-fetch-site") {
        if !matches!(site, "same-origin" | "none") {
            return Err(CROSS);
        }
    }
    let source = match (
        text(headers, header::ORIGIN),
        text(headers, header::REFERER),
    ) {
        (Some(origin), _) => origin,
        (None, Some(referer)) => referer,
        // A header that is there but not text is not one we can trust.
        (None, None) if headers.contains_key(header::ORIGIN) => return Err(CROSS),
        (None, None) => return Ok(()),
    };
    match authority(source) {
        Some(authority) if authority.eq_ignore_ascii_case(host) => Ok(()),
        _ => Err(CROSS),
    }
}

/// The `host[:port]` of an `http(s)` origin or URL; `None` for `null` or anything else.
fn authority(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    (!authority.is_empty() && !authority.contains('@')).then_some(authority)
}

fn json_body(headers: &HeaderMap) -> Result<(), Refusal> {
    let essence = text(headers, header::CONTENT_TYPE)
        .map(|value| value.split(';').next().unwrap_or_default().trim());
    match essence {
        Some(essence) if essence.eq_ignore_ascii_case("application/json") => Ok(()),
        _ => Err((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the body as JSON, with Content-Type: application/json",
        )),
    }
}

fn text(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn verdict(method: Method, pairs: &[(&'static str, &'static str)]) -> Option<u16> {
        let hosts = AllowedHosts::new("127.0.0.1:8080".parse().unwrap(), &[]);
        check(&hosts, &method, &headers(pairs))
            .err()
            .map(|(status, _)| status.as_u16())
    }

    const HOST: (&str, &str) = ("host", "127.0.0.1:8080");
    const JSON: (&str, &str) = ("content-type", "application/json; charset=utf-8");

    #[test]
    fn reads_need_only_the_host() {
        assert_eq!(verdict(Method::GET, &[HOST]), None);
        assert_eq!(
            verdict(Method::GET, &[("host", "evil.example:8080")]),
            Some(421)
        );
        assert_eq!(verdict(Method::GET, &[]), Some(421));
        assert_eq!(
            verdict(Method::GET, &[HOST, ("origin", "http://evil.example")]),
            None,
            "a read from elsewhere gets no CORS headers, so its page cannot see it"
        );
    }

    #[test]
    fn changes_must_be_same_origin_json() {
        assert_eq!(verdict(Method::POST, &[HOST, JSON]), None);
        assert_eq!(
            verdict(
                Method::POST,
                &[HOST, JSON, ("origin", "http://127.0.0.1:8080")]
            ),
            None
        );
        assert_eq!(
            verdict(
                Method::POST,
                &[HOST, JSON, ("origin", "HTTP://127.0.0.1:8080")]
            ),
            Some(403),
            "the scheme is matched as browsers write it"
        );
        for origin in [
            "http://127.0.0.1:9999",
            "http://evil.example",
            "null",
            "http://127.0.0.1:8080@evil.example",
            "file://",
        ] {
            assert_eq!(
                verdict(Method::POST, &[HOST, JSON, ("origin", origin)]),
                Some(403),
                "{origin}"
            );
        }
        assert_eq!(
            verdict(
                Method::POST,
                &[HOST, JSON, ("referer", "http://127.0.0.1:8080/#/tables/1")]
            ),
            None
        );
        assert_eq!(
            verdict(
                Method::POST,
                &[HOST, JSON, ("referer", "http://evil.example/x")]
            ),
            Some(403)
        );
        assert_eq!(
            verdict(Method::POST, &[HOST, JSON, ("sec-fetch-site", "same-site")]),
            Some(403)
        );
        assert_eq!(
            verdict(
                Method::DELETE,
                &[HOST, JSON, ("sec-fetch-site", "cross-site")]
            ),
            Some(403)
        );
        for kind in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
        ] {
            assert_eq!(
                verdict(Method::POST, &[HOST, ("content-type", kind)]),
                Some(415),
                "{kind}"
            );
        }
        assert_eq!(verdict(Method::POST, &[HOST]), Some(415), "no content type");
    }
}
