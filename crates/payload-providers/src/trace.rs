//! The `chat {model}` span of one model request, attributed as the OpenTelemetry GenAI
//! semantic conventions (v1.37) say, so an exporter (`payload-otel`) sends it as it
//! is: the operation, the provider, the model asked for and the one that answered, the
//! sampling settings that were set, the server, the tokens, the finish reason, the
//! time to the first chunk and, on failure, the error's type. Its attempts are spans
//! inside it. No header is ever recorded: the key stays out of every span.

use crate::config::ClientConfig;
use payload_agent::{FinishReason, ModelError, Usage};
use std::time::Duration;
use tracing::Span;
use tracing::field::Empty;

/// The span of one request to `provider` (its name in the conventions: `openai`,
/// `anthropic`, `gcp.gemini`) at `url`, the turn's `iteration`-th call.
pub(crate) fn request_span(
    provider: &'static str,
    config: &ClientConfig,
    url: &str,
    iteration: usize,
) -> Span {
    let span = tracing::info_span!(
        "chat",
        otel.name = %format_args!("chat {}", config.model),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = %config.model,
        gen_ai.request.temperature = Empty,
        gen_ai.request.max_tokens = Empty,
        gen_ai.response.model = Empty,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.response.time_to_first_chunk = Empty,
        server.address = Empty,
        server.port = Empty,
        error.type = Empty,
        payload.iteration = int(iteration as u64),
    );
    if let Some(temperature) = config.temperature {
        // Through its decimal text, so 0.2 is sent as 0.2 and not as the f32's
        // nearest double (0.20000000298...).
        let value = temperature
            .to_string()
            .parse::<f64>()
            .unwrap_or(f64::from(temperature));
        span.record("gen_ai.request.temperature", value);
    }
    if let Some(max) = config.max_tokens {
        span.record("gen_ai.request.max_tokens", i64::from(max));
    }
    if let Ok(url) = reqwest::Url::parse(url) {
        if let Some(host) = url.host_str() {
            span.record("server.address", host);
        }
        if let Some(port) = url.port_or_known_default() {
            span.record("server.port", i64::from(port));
        }
    }
    span
}

/// The tokens of the answer so far (the provider's usage chunks added up).
pub(crate) fn usage(span: &Span, usage: Usage) {
    span.record("gen_ai.usage.input_tokens", int(usage.input_tokens))
        .record("gen_ai.usage.output_tokens", int(usage.output_tokens));
}

/// A count as a signed integer: `tracing-opentelemetry` exports an `i64` as an integer
/// attribute and a `u64` as text, and the conventions type these as integers.
fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Why the answer stopped.
pub(crate) fn finished(span: &Span, reason: &FinishReason) {
    span.record(
        "gen_ai.response.finish_reasons",
        &*list_item(reason.as_str()),
    );
}

/// `item` as one item of a list field: the field joins items with `,` (the exporter
/// splits them into an array), so a `,` in a provider's own finish reason is written
/// as U+FFFD rather than splitting the reason in two.
fn list_item(item: &str) -> std::borrow::Cow<'_, str> {
    if item.contains(',') {
        item.replace(',', "\u{FFFD}").into()
    } else {
        item.into()
    }
}

/// The model that answered, as the provider named it.
pub(crate) fn response_model(span: &Span, model: &str) {
    span.record("gen_ai.response.model", model);
}

/// The first content came `after` the request was first sent.
pub(crate) fn first_chunk(span: &Span, after: Duration) {
    span.record("gen_ai.response.time_to_first_chunk", after.as_secs_f64());
}

/// The request failed for good.
pub(crate) fn failed(span: &Span, error: &ModelError) {
    span.record("error.type", error.kind.as_str())
        .record("otel.status_code", "error");
}

#[cfg(test)]
mod tests {
    use super::list_item;

    #[test]
    fn a_comma_in_a_providers_reason_does_not_split_it() {
        assert_eq!(list_item("stop"), "stop");
        assert_eq!(list_item("a,b"), "a\u{FFFD}b");
        assert!(!list_item(",,").contains(','));
    }
}
