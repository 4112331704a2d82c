//! # payload-otel
//!
//! OpenTelemetry for payload's turns, following the GenAI semantic conventions
//! (v1.37, as pydantic-ai does): an app (or the `payload` command) that links this
//! crate and finds the standard `OTEL_EXPORTER_OTLP_*` variables set exports, over
//! OTLP/HTTP (protobuf or JSON),
//!
//! - the spans the framework opens as `tracing` spans: `invoke_agent {page}` for a
//!   turn, `chat {model}` for each model call, `execute_tool {name}` for each tool call,
//!   `read_answer` for each read of an answer (what was accepted, rejected, repaired,
//!   and whether a re-ask followed);
//! - the metrics `gen_ai.client.token.usage`, `gen_ai.client.operation.duration`,
//!   `gen_ai.client.operation.time_to_first_chunk` and the framework's counters
//!   `payload.accepted`, `payload.rejected`, `payload.reasks`, `payload.truncated`.
//!
//! An app that does not link this crate exports nothing and links no OpenTelemetry
//! crate: the framework's crates only open `tracing` spans. Message contents are on
//! the spans only when the app opts in ([`CAPTURE_CONTENT_VARIABLE`]); keys never are.
//! docs/observability.md lists every variable, span, attribute and metric.
//!
//! ```no_run
//! // At the start of `main`; keep the handle until the end (dropping it exports
//! // what is left).
//! let telemetry = payload_otel::init_from_env("my-app").expect("the OTEL variables");
//! ```

#![forbid(unsafe_code)]

mod config;
mod fields;
mod http;
mod install;
mod lists;
mod metrics;

pub use config::{CAPTURE_CONTENT_VARIABLE, ConfigError, OtelConfig, Protocol, SignalConfig};
pub use install::{OtelError, Telemetry};
pub use lists::LIST_SEPARATOR;
pub use metrics::{DURATION_BUCKETS, FIRST_CHUNK_BUCKETS, TOKEN_BUCKETS};

/// Starts export as the process's `OTEL_*` variables say, and installs it as the global
/// `tracing` subscriber. `Ok(None)` when they name no endpoint: nothing is started or
/// installed. `service_name` is used when `OTEL_SERVICE_NAME` is unset.
pub fn init_from_env(service_name: &str) -> Result<Option<Telemetry>, OtelError> {
    match OtelConfig::from_env(service_name)? {
        Some(config) => Telemetry::start(&config)?.install().map(Some),
        None => Ok(None),
    }
}

/// Whether the app opted in to message contents on spans:
/// [`CAPTURE_CONTENT_VARIABLE`] is `true` (in any case).
pub fn capture_content_from_env() -> bool {
    std::env::var(CAPTURE_CONTENT_VARIABLE).is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"))
}
