//! What to export and where, from the standard `OTEL_*` variables (or set in code).
//!
//! The rule (docs/observability.md): a signal is exported when an endpoint is named for
//! it, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`
//! (used as written) or `OTEL_EXPORTER_OTLP_ENDPOINT` (the signal's path, `/v1/traces`
//! or `/v1/metrics`, appended), and neither `OTEL_SDK_DISABLED=true` nor
//! `OTEL_TRACES_EXPORTER=none` / `OTEL_METRICS_EXPORTER=none` turns it off. With no
//! endpoint at all nothing is exported and nothing is installed.

use std::time::Duration;

/// The variable that opts in to recording message contents (the prompt, the answers,
/// tool arguments and results) on spans: `true` records them, anything else does not.
/// The name the OpenTelemetry GenAI instrumentations read.
pub const CAPTURE_CONTENT_VARIABLE: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// How the OTLP payloads are encoded (`OTEL_EXPORTER_OTLP_PROTOCOL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// `http/protobuf`: protobuf over HTTP (the default).
    #[default]
    HttpProtobuf,
    /// `http/json`: the protobuf messages as JSON over HTTP.
    HttpJson,
}

impl Protocol {
    /// The protocol the variable's value names; `None` for a value this exporter does
    /// not speak (`grpc`, a typo).
    pub fn parse(value: &str) -> Option<Protocol> {
        match value.trim() {
            "http/protobuf" => Some(Protocol::HttpProtobuf),
            "http/json" => Some(Protocol::HttpJson),
            _ => None,
        }
    }
}

/// A configuration the variables could not give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A protocol other than `http/protobuf` or `http/json`.
    #[error(
        "{variable}={value}: this build exports OTLP over HTTP only (http/protobuf or http/json)"
    )]
    Protocol {
        /// The variable that named it.
        variable: String,
        /// What it said.
        value: String,
    },
    /// A header HTTP cannot carry (a name with a space, a value with a line break).
    #[error("{variable}: the header '{name}' cannot be sent over HTTP")]
    Header {
        /// The variable that named it.
        variable: String,
        /// The header's name as decoded.
        name: String,
    },
    /// A timeout that is not a whole number of milliseconds.
    #[error("{variable}={value}: not a number of milliseconds")]
    Timeout {
        /// The variable that named it.
        variable: String,
        /// What it said.
        value: String,
    },
}

/// One signal's exporter: where it sends and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalConfig {
    /// The full URL the payloads are posted to (`…/v1/traces`, `…/v1/metrics`).
    pub endpoint: String,
    /// How they are encoded.
    pub protocol: Protocol,
    /// Extra headers sent with each export (authentication for a hosted backend).
    /// Never written to a span or a log.
    pub headers: Vec<(String, String)>,
    /// How long one export may take.
    pub timeout: Duration,
}

/// What to export: traces, metrics, or both, under one service name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtelConfig {
    /// `service.name` of the exported resource (`OTEL_SERVICE_NAME`, else the
    /// program's default).
    pub service_name: String,
    /// Where spans go; `None` exports none.
    pub traces: Option<SignalConfig>,
    /// Where metrics go; `None` exports none.
    pub metrics: Option<SignalConfig>,
    /// How often metrics are exported (`OTEL_METRIC_EXPORT_INTERVAL`, 60 s by default;
    /// every flush and the shutdown export too).
    pub metric_interval: Duration,
}

/// The default export timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`'s default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default metric export interval (`OTEL_METRIC_EXPORT_INTERVAL`'s default).
const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);

impl OtelConfig {
    /// Both signals to `endpoint` (a base URL such as `http://127.0.0.1:4318`, the
    /// signal's path appended), protobuf, no headers.
    pub fn new(service_name: impl Into<String>, endpoint: &str) -> OtelConfig {
        let signal = |path: &str| SignalConfig {
            endpoint: join(endpoint, path),
            protocol: Protocol::default(),
            headers: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
        };
        OtelConfig {
            service_name: service_name.into(),
            traces: Some(signal("v1/traces")),
            metrics: Some(signal("v1/metrics")),
            metric_interval: DEFAULT_INTERVAL,
        }
    }

    /// The configuration the process's `OTEL_*` variables give; `Ok(None)` when they
    /// export nothing. `default_service_name` is used when `OTEL_SERVICE_NAME` is unset.
    pub fn from_env(default_service_name: &str) -> Result<Option<OtelConfig>, ConfigError> {
        OtelConfig::from_lookup(default_service_name, |name| std::env::var(name).ok())
    }

    /// [`OtelConfig::from_env`] reading the variables through `lookup` (a test's map).
    pub fn from_lookup(
        default_service_name: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<OtelConfig>, ConfigError> {
        // An empty variable is an unset one, as the specification asks.
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        if get("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let traces = signal(&get, "TRACES", "v1/traces")?;
        let metrics = signal(&get, "METRICS", "v1/metrics")?;
        if traces.is_none() && metrics.is_none() {
            return Ok(None);
        }
        let metric_interval = match get("OTEL_METRIC_EXPORT_INTERVAL") {
            Some(value) => millis("OTEL_METRIC_EXPORT_INTERVAL", &value)?,
            None => DEFAULT_INTERVAL,
        };
        Ok(Some(OtelConfig {
            service_name: get("OTEL_SERVICE_NAME")
                .unwrap_or_else(|| default_service_name.to_string()),
            traces,
            metrics,
            metric_interval,
        }))
    }
}

/// One signal's configuration from the variables, `None` when it is not exported.
fn signal(
    get: &impl Fn(&str) -> Option<String>,
    signal: &'static str,
    path: &str,
) -> Result<Option<SignalConfig>, ConfigError> {
    let var = |suffix: &str| format!("OTEL_EXPORTER_OTLP_{signal}_{suffix}");
    if get(&format!("OTEL_{signal}_EXPORTER")).is_some_and(|v| v.trim() == "none") {
        return Ok(None);
    }
    let endpoint = match (get(&var("ENDPOINT")), get("OTEL_EXPORTER_OTLP_ENDPOINT")) {
        (Some(own), _) => own.trim().to_string(),
        (None, Some(base)) => join(base.trim(), path),
        (None, None) => return Ok(None),
    };
    let protocol = match named(get, &var("PROTOCOL"), "OTEL_EXPORTER_OTLP_PROTOCOL") {
        Some((variable, value)) => {
            Protocol::parse(&value).ok_or(ConfigError::Protocol { variable, value })?
        }
        None => Protocol::default(),
    };
    let headers = match named(get, &var("HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS") {
        Some((variable, value)) => {
            let headers = parse_headers(&value);
            // Checked here, so a header is never dropped without a word.
            if let Some((name, _)) = headers.iter().find(|(name, value)| {
                http::HeaderName::from_bytes(name.as_bytes()).is_err()
                    || http::HeaderValue::from_str(value).is_err()
            }) {
                return Err(ConfigError::Header {
                    variable,
                    name: name.clone(),
                });
            }
            headers
        }
        None => Vec::new(),
    };
    let timeout = match named(get, &var("TIMEOUT"), "OTEL_EXPORTER_OTLP_TIMEOUT") {
        Some((variable, value)) => millis(&variable, &value)?,
        None => DEFAULT_TIMEOUT,
    };
    Ok(Some(SignalConfig {
        endpoint,
        protocol,
        headers,
        timeout,
    }))
}

/// The signal's own variable if set, else the general one, with the name that gave it.
fn named(
    get: &impl Fn(&str) -> Option<String>,
    own: &str,
    general: &str,
) -> Option<(String, String)> {
    get(own)
        .map(|v| (own.to_string(), v))
        .or_else(|| get(general).map(|v| (general.to_string(), v)))
}

/// A number of milliseconds.
fn millis(variable: &str, value: &str) -> Result<Duration, ConfigError> {
    value
        .trim()
        .parse::<u64>()
        .map(Duration::from_millis)
        .map_err(|_| ConfigError::Timeout {
            variable: variable.to_string(),
            value: value.to_string(),
        })
}

/// `key1=value1,key2=value2`, each part percent-decoded (the W3C baggage form the
/// specification names); a part without `=` or with an empty key is skipped.
pub(crate) fn parse_headers(value: &str) -> Vec<(String, String)> {
    value
        .split(',')
        .filter_map(|part| {
            let (key, value) = part.split_once('=')?;
            let key = percent_decode(key.trim());
            (!key.is_empty()).then(|| (key, percent_decode(value.trim())))
        })
        .collect()
}

/// `%XX` sequences decoded; a `%` not followed by two hex digits is kept as written,
/// and bytes that do not make UTF-8 are replaced rather than dropped.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `base` and `path` with one `/` between them.
fn join(base: &str, path: &str) -> String {
    format!("{}/{path}", base.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Option<OtelConfig>, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OtelConfig::from_lookup("payload", |name| map.get(name).cloned())
    }

    #[test]
    fn no_endpoint_exports_nothing() {
        assert_eq!(config(&[]), Ok(None));
        assert_eq!(config(&[("OTEL_SERVICE_NAME", "shop")]), Ok(None));
        assert_eq!(config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]), Ok(None));
        assert_eq!(
            config(&[("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Basic%20x")]),
            Ok(None)
        );
    }

    #[test]
    fn the_general_endpoint_gets_each_signals_path() {
        let c = config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")])
            .unwrap()
            .unwrap();
        assert_eq!(c.service_name, "payload");
        assert_eq!(
            c.traces.unwrap().endpoint,
            "http://collector:4318/v1/traces"
        );
        assert_eq!(
            c.metrics.unwrap().endpoint,
            "http://collector:4318/v1/metrics"
        );
    }

    #[test]
    fn a_signals_own_endpoint_is_used_as_written_and_alone() {
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t:1/x"),
            ("OTEL_SERVICE_NAME", "shop"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.traces.unwrap().endpoint, "http://t:1/x");
        assert_eq!(c.metrics, None);
        assert_eq!(c.service_name, "shop");
    }

    #[test]
    fn the_switches_turn_signals_off() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318");
        assert_eq!(config(&[base, ("OTEL_SDK_DISABLED", "TRUE")]), Ok(None));
        let c = config(&[base, ("OTEL_METRICS_EXPORTER", "none")])
            .unwrap()
            .unwrap();
        assert!(c.traces.is_some() && c.metrics.is_none());
        assert_eq!(
            config(&[
                base,
                ("OTEL_METRICS_EXPORTER", "none"),
                ("OTEL_TRACES_EXPORTER", "none")
            ]),
            Ok(None)
        );
    }

    #[test]
    fn protocol_headers_and_timeouts_are_read_per_signal_first() {
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "authorization=Basic%20abc%3D,x-team = a ,=skipped,novalue",
            ),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
        ])
        .unwrap()
        .unwrap();
        let traces = c.traces.unwrap();
        let metrics = c.metrics.unwrap();
        assert_eq!(traces.protocol, Protocol::HttpJson);
        assert_eq!(metrics.protocol, Protocol::HttpProtobuf);
        assert_eq!(
            traces.headers,
            [
                ("authorization".to_string(), "Basic abc=".to_string()),
                ("x-team".to_string(), "a".to_string())
            ]
        );
        assert_eq!(traces.timeout, Duration::from_millis(2500));
    }

    #[test]
    fn a_protocol_this_build_cannot_speak_is_a_clear_error() {
        let error = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ])
        .unwrap_err();
        assert!(
            error.to_string().contains("http/protobuf or http/json"),
            "{error}"
        );
        assert!(matches!(
            config(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "soon"),
            ]),
            Err(ConfigError::Timeout { .. })
        ));
    }

    #[test]
    fn a_header_http_cannot_carry_is_a_clear_error() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318");
        for headers in ["bad name=x", "x-ok=line%0Abreak"] {
            let error =
                config(&[base, ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", headers)]).unwrap_err();
            assert!(
                matches!(&error, ConfigError::Header { variable, .. } if variable == "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
                "{error}"
            );
        }
    }

    #[test]
    fn percent_decoding_keeps_what_is_not_an_escape() {
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
        assert_eq!(percent_decode("%FF"), "\u{FFFD}");
        assert_eq!(percent_decode("é%20"), "é ");
    }
}
