//! OpenTelemetry export of the commands that run turns (`chat`, `eval`, `serve`), with
//! the `otel` feature: on when the standard variables name an OTLP endpoint
//! (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` /
//! `..._METRICS_ENDPOINT`), off otherwise (docs/observability.md). The service is named
//! after the program (`payload`, `recipes`) unless `OTEL_SERVICE_NAME` says otherwise.
//! A configuration the exporter cannot use is said on stderr and the command runs
//! without export: a shell's variables meant for another program (a gRPC collector's
//! `OTEL_EXPORTER_OTLP_PROTOCOL=grpc`) do not stop it.

use crate::args::Command;

/// The running export, if the command runs turns and the variables ask for it.
#[cfg(feature = "otel")]
pub(crate) fn start(command: &Command) -> Option<payload_otel::Telemetry> {
    if !matches!(
        command,
        Command::Chat(_) | Command::Eval(_) | Command::Serve(_)
    ) {
        return None;
    }
    let program = std::env::args_os()
        .next()
        .as_deref()
        .map(std::path::Path::new)
        .and_then(|path| path.file_stem())
        .and_then(|stem| stem.to_str())
        .unwrap_or("payload")
        .to_string();
    match payload_otel::init_from_env(&program) {
        Ok(telemetry) => telemetry,
        Err(error) => {
            eprintln!("payload: not exporting traces or metrics: {error}");
            None
        }
    }
}

/// Without the `otel` feature nothing is exported.
#[cfg(not(feature = "otel"))]
pub(crate) fn start(_: &Command) -> Option<std::convert::Infallible> {
    None
}

/// Whether turns record message contents on their spans
/// (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, with the `otel` feature).
#[cfg(feature = "otel")]
pub(crate) fn capture_content() -> bool {
    payload_otel::capture_content_from_env()
}

/// Without the `otel` feature no contents are recorded.
#[cfg(not(feature = "otel"))]
pub(crate) fn capture_content() -> bool {
    false
}
