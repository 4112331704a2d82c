//! Building the exporters and the `tracing` layers from an [`OtelConfig`], and the
//! handle that flushes and shuts them down.

use crate::config::{OtelConfig, Protocol, SignalConfig};
use crate::http::ExportClient;
use crate::lists::Lists;
use crate::metrics::MetricsLayer;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracerProvider};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;

/// The instrumentation scope the spans and metrics are exported under.
const SCOPE: &str = "payload";

/// Why export could not start.
#[derive(Debug, thiserror::Error)]
pub enum OtelError {
    /// The variables do not make a configuration.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// An exporter could not be built (an endpoint that is not a URL, ...).
    #[error("the OTLP {signal} exporter: {message}")]
    Exporter {
        /// `traces` or `metrics`.
        signal: &'static str,
        /// What went wrong.
        message: String,
    },
    /// Another `tracing` subscriber is already the global one.
    #[error("a tracing subscriber is already installed; add `Telemetry::layer` to it instead")]
    SubscriberTaken,
}

/// The running exporters. Dropping it (or [`Telemetry::shutdown`]) exports what is
/// left and stops them.
pub struct Telemetry {
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("traces", &self.tracer_provider.is_some())
            .field("metrics", &self.meter_provider.is_some())
            .finish()
    }
}

impl Telemetry {
    /// Starts the exporters `config` names; no `tracing` subscriber is touched (see
    /// [`Telemetry::layer`] and [`Telemetry::install`]).
    pub fn start(config: &OtelConfig) -> Result<Telemetry, OtelError> {
        let resource = Resource::builder()
            .with_service_name(config.service_name.clone())
            .build();
        let tracer_provider = match &config.traces {
            Some(signal) => {
                let exporter = opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_endpoint(signal.endpoint.clone())
                    .with_protocol(protocol(signal.protocol))
                    .with_timeout(signal.timeout)
                    .with_headers(signal.headers.iter().cloned().collect())
                    .with_http_client(client(signal, "traces")?)
                    .build()
                    .map_err(|e| exporter_error("traces", e))?;
                let processor = BatchSpanProcessor::builder(exporter).build();
                Some(
                    SdkTracerProvider::builder()
                        .with_span_processor(Lists(processor))
                        .with_resource(resource.clone())
                        .build(),
                )
            }
            None => None,
        };
        let meter_provider = match &config.metrics {
            Some(signal) => {
                let exporter = opentelemetry_otlp::MetricExporter::builder()
                    .with_http()
                    .with_endpoint(signal.endpoint.clone())
                    .with_protocol(protocol(signal.protocol))
                    .with_timeout(signal.timeout)
                    .with_headers(signal.headers.iter().cloned().collect())
                    .with_http_client(client(signal, "metrics")?)
                    .build()
                    .map_err(|e| exporter_error("metrics", e))?;
                let reader = PeriodicReader::builder(exporter)
                    .with_interval(config.metric_interval)
                    .build();
                Some(
                    SdkMeterProvider::builder()
                        .with_reader(reader)
                        .with_resource(resource)
                        .build(),
                )
            }
            None => None,
        };
        Ok(Telemetry {
            tracer_provider,
            meter_provider,
        })
    }

    /// The `tracing` layer that exports: spans through `tracing-opentelemetry`, and the
    /// metrics read off them. Add it to an app's own subscriber.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        let traces = self.tracer_provider.as_ref().map(|provider| {
            tracing_opentelemetry::layer()
                .with_tracer(provider.tracer(SCOPE))
                .with_threads(false)
                .with_tracked_inactivity(false)
                .with_location(false)
                .with_target(false)
        });
        let metrics = self
            .meter_provider
            .as_ref()
            .map(|provider| MetricsLayer::new(&provider.meter(SCOPE)));
        // The metrics layer reads a span's fields before the span layer ends it.
        Layer::and_then(metrics, traces)
    }

    /// Makes [`Telemetry::layer`] on a registry the process's global `tracing`
    /// subscriber.
    pub fn install(self) -> Result<Telemetry, OtelError> {
        let subscriber = tracing_subscriber::registry().with(self.layer());
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|_| OtelError::SubscriberTaken)?;
        Ok(self)
    }

    /// Exports every finished span and the metrics now, and waits for it.
    pub fn flush(&self) {
        // A failed export is the receiver's problem, reported by the SDK's own log;
        // the app goes on.
        if let Some(provider) = &self.tracer_provider {
            let _ = provider.force_flush();
        }
        if let Some(provider) = &self.meter_provider {
            let _ = provider.force_flush();
        }
    }

    /// Exports what is left and stops the exporters.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Some(provider) = self.tracer_provider.take() {
            let _ = provider.shutdown();
        }
        if let Some(provider) = self.meter_provider.take() {
            let _ = provider.shutdown();
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        self.stop();
    }
}

fn protocol(protocol: Protocol) -> opentelemetry_otlp::Protocol {
    match protocol {
        Protocol::HttpProtobuf => opentelemetry_otlp::Protocol::HttpBinary,
        Protocol::HttpJson => opentelemetry_otlp::Protocol::HttpJson,
    }
}

fn client(signal: &SignalConfig, name: &'static str) -> Result<ExportClient, OtelError> {
    ExportClient::new(signal.timeout).map_err(|e| OtelError::Exporter {
        signal: name,
        message: e.to_string(),
    })
}

fn exporter_error(signal: &'static str, error: impl std::fmt::Display) -> OtelError {
    OtelError::Exporter {
        signal,
        message: error.to_string(),
    }
}
