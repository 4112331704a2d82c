//! HTTP failures as [`ModelError`]s: which kind a status is, the provider's own message
//! from an error body, and how long a `Retry-After` header asks us to wait.

use payload_agent::{ModelError, ModelErrorKind};
use serde_json::Value;
use std::time::{Duration, SystemTime};

/// The error for a response with a failing `status` and `body`.
pub(crate) fn status_error(status: u16, body: &str, retry_after: Option<Duration>) -> ModelError {
    let kind = match status {
        429 => ModelErrorKind::RateLimited,
        500..=599 => ModelErrorKind::Server,
        _ => ModelErrorKind::Rejected,
    };
    ModelError::new(kind, body_message(body))
        .with_status(status)
        .with_retry_after(retry_after)
}

/// The provider's message in an error body: `error.message` in both OpenAI's
/// (`{"error": {"message"}}`) and Anthropic's (`{"type": "error", "error": {"message"}}`)
/// shapes, else the body's text (cut short), else a fixed phrase.
pub(crate) fn body_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    if let Some(message) = parsed.as_ref().and_then(error_message) {
        return message;
    }
    let text = body.trim();
    if text.is_empty() {
        return "the provider sent no error message".to_string();
    }
    let mut end = text.len().min(500);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// `error.message` of an error object (or `error` itself when it is a string).
pub(crate) fn error_message(value: &Value) -> Option<String> {
    let error = value.get("error")?;
    match error {
        Value::String(message) => Some(message.clone()),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

/// The wait a `Retry-After` header asks for: seconds, or an HTTP date (a date in the
/// past asks for none). `None` when the header is absent or unreadable.
pub(crate) fn retry_after(header: Option<&str>) -> Option<Duration> {
    let header = header?.trim();
    if let Ok(seconds) = header.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let date = httpdate::parse_http_date(header).ok()?;
    Some(
        date.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_kinds_with_the_providers_message() {
        let openai =
            r#"{"error": {"message": "Incorrect API key", "type": "invalid_request_error"}}"#;
        let error = status_error(401, openai, None);
        assert_eq!(error.kind, ModelErrorKind::Rejected);
        assert_eq!(error.message, "Incorrect API key");
        assert_eq!(error.status, Some(401));
        let anthropic =
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
        assert_eq!(
            status_error(529, anthropic, None).kind,
            ModelErrorKind::Server
        );
        assert_eq!(
            status_error(429, "", None).kind,
            ModelErrorKind::RateLimited
        );
        assert_eq!(
            status_error(502, "Bad gateway", None).message,
            "Bad gateway"
        );
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(Some("0.25")), Some(Duration::from_millis(250)));
        assert_eq!(retry_after(Some("soon")), None);
        assert_eq!(retry_after(None), None);
        let past = "Wed, 21 Oct 2015 07:28:00 GMT";
        assert_eq!(retry_after(Some(past)), Some(Duration::ZERO));
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
        let wait = retry_after(Some(&later)).unwrap();
        assert!(wait > Duration::from_secs(100) && wait <= Duration::from_secs(120));
    }
}
