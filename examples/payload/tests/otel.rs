//! The command's export rule, end to end (docs/observability.md): `payload chat` with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` set sends its turn's spans and metrics to that OTLP
//! receiver (one on 127.0.0.1, reading OTLP/JSON), named after the program; a command
//! that runs no turn, and `OTEL_SDK_DISABLED=true`, send nothing.

use payload_loopback::{Reply, Server};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

/// What the receiver was sent: each request's path and JSON body.
type Exports = Arc<Mutex<Vec<(String, Value)>>>;

/// An OTLP/HTTP receiver: every request's path and JSON body, answered `200 {}`.
fn receiver() -> (String, Exports) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let store = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buffer = [0u8; 8192];
            let (head_end, length) = loop {
                let n = stream.read(&mut buffer).unwrap_or(0);
                if n == 0 {
                    break (0, 0);
                }
                request.extend_from_slice(&buffer[..n]);
                if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&request[..at]).to_ascii_lowercase();
                    let length = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    break (at + 4, length);
                }
            };
            while head_end > 0 && request.len() < head_end + length {
                let n = stream.read(&mut buffer).unwrap_or(0);
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buffer[..n]);
            }
            let line = String::from_utf8_lossy(&request)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string();
            let path = line.split(' ').nth(1).unwrap_or_default().to_string();
            let body = request.get(head_end..head_end + length).unwrap_or_default();
            let body = serde_json::from_slice(body).unwrap_or(Value::Null);
            store.lock().unwrap().push((path, body));
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
            );
        }
    });
    (url, received)
}

/// OpenAI's stream of one short answer, with its usage.
fn answer() -> Reply {
    let chunk = |choices: Value, usage: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c1", "object": "chat.completion.chunk", "model": "gpt-4o-mini-2024-07-18",
                   "choices": choices, "usage": usage})
        )
    };
    let mut stream = chunk(
        json!([{"index": 0, "delta": {"content": "Which table?"}, "finish_reason": null}]),
        Value::Null,
    );
    stream += &chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
        Value::Null,
    );
    stream += &chunk(
        json!([]),
        json!({"prompt_tokens": 90, "completion_tokens": 4}),
    );
    stream += "data: [DONE]\n\n";
    Reply::Stream(stream.into_bytes())
}

/// `payload ARGS` with only the OTEL variables given set.
fn payload(args: &[&str], otel: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payload"));
    command.args(args).env_remove("OPENAI_API_KEY");
    for (name, _) in std::env::vars() {
        if name.starts_with("OTEL_") {
            command.env_remove(name);
        }
    }
    command.envs(otel.iter().copied()).output().unwrap()
}

fn chat(model: &Server) -> Vec<String> {
    let base_url = format!("{}/v1", model.url);
    [
        "chat",
        "--page",
        "tables_list",
        "--provider",
        "openai",
        "--model",
        "gpt-4o-mini",
        "--message",
        "hi",
        "--base-url",
        &base_url,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The names of the spans and metrics received, and the resources' service names.
fn names(received: &[(String, Value)]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut spans, mut metrics, mut services) = (Vec::new(), Vec::new(), Vec::new());
    for (path, body) in received {
        let (resources, scopes, items) = match path.as_str() {
            "/v1/traces" => ("resourceSpans", "scopeSpans", "spans"),
            "/v1/metrics" => ("resourceMetrics", "scopeMetrics", "metrics"),
            other => panic!("an export to {other}"),
        };
        for resource in body[resources].as_array().into_iter().flatten() {
            for attribute in resource["resource"]["attributes"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if attribute["key"] == "service.name" {
                    services.push(
                        attribute["value"]["stringValue"]
                            .as_str()
                            .unwrap()
                            .to_string(),
                    );
                }
            }
            for scope in resource[scopes].as_array().into_iter().flatten() {
                for item in scope[items].as_array().into_iter().flatten() {
                    let name = item["name"].as_str().unwrap().to_string();
                    if path == "/v1/traces" {
                        spans.push(name)
                    } else {
                        metrics.push(name)
                    }
                }
            }
        }
    }
    (spans, metrics, services)
}

#[test]
fn chat_exports_when_an_endpoint_is_set() {
    let (url, received) = receiver();
    let model = Server::start(vec![answer()]);
    let args = chat(&model);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = payload(
        &args,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &url),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The command exported before it exited.
    let (spans, metrics, services) = names(&received.lock().unwrap());
    for span in [
        "invoke_agent tables_list",
        "chat gpt-4o-mini",
        "read_answer",
    ] {
        assert!(spans.iter().any(|s| s == span), "{span} in {spans:?}");
    }
    for metric in [
        "gen_ai.client.token.usage",
        "gen_ai.client.operation.duration",
    ] {
        assert!(
            metrics.iter().any(|m| m == metric),
            "{metric} in {metrics:?}"
        );
    }
    assert!(
        !services.is_empty() && services.iter().all(|s| s == "payload"),
        "{services:?}"
    );
}

#[test]
fn nothing_is_exported_without_a_turn_or_when_disabled() {
    let (url, received) = receiver();
    let model = Server::start(vec![answer()]);
    let args = chat(&model);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let disabled = payload(
        &args,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &url),
            ("OTEL_SDK_DISABLED", "true"),
        ],
    );
    assert!(
        disabled.status.success(),
        "{}",
        String::from_utf8_lossy(&disabled.stderr)
    );
    let types = payload(&["types"], &[("OTEL_EXPORTER_OTLP_ENDPOINT", &url)]);
    assert!(types.status.success());
    assert!(
        received.lock().unwrap().is_empty(),
        "exported: {:?}",
        received.lock().unwrap()
    );
    // A protocol this build does not speak is said, and the turn still runs.
    let model = Server::start(vec![answer()]);
    let args = chat(&model);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let grpc = payload(
        &args,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &url),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ],
    );
    assert!(grpc.status.success());
    let stderr = String::from_utf8_lossy(&grpc.stderr);
    assert!(
        stderr.contains("not exporting traces or metrics"),
        "{stderr}"
    );
    assert!(received.lock().unwrap().is_empty());
}
