//! An OTLP/HTTP receiver on 127.0.0.1: it takes `POST /v1/traces` and `/v1/metrics`
//! in protobuf or JSON (by the request's content type), decodes each with the
//! protocol's own message types (opentelemetry-proto), and keeps them with the
//! headers they came with.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use std::sync::{Arc, Mutex};

/// What the receiver was sent.
#[derive(Default)]
pub struct Received {
    /// Each traces export, decoded.
    pub traces: Vec<ExportTraceServiceRequest>,
    /// Each metrics export, decoded.
    pub metrics: Vec<ExportMetricsServiceRequest>,
    /// The content type and the `x-team` header of each export.
    pub requests: Vec<(String, Option<String>)>,
    /// Exports that did not decode, and why.
    pub errors: Vec<String>,
}

/// A running receiver.
pub struct Receiver {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    pub received: Arc<Mutex<Received>>,
    // Keeps the server's runtime alive as long as the receiver.
    _runtime: tokio::runtime::Runtime,
}

impl Receiver {
    /// Starts a receiver on a port of its own.
    pub fn start() -> Receiver {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let received = Arc::new(Mutex::new(Received::default()));
        let app = Router::new()
            .route("/v1/traces", post(traces))
            .route("/v1/metrics", post(metrics))
            .with_state(received.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        runtime.spawn(async move { axum::serve(listener, app).await });
        Receiver {
            url,
            received,
            _runtime: runtime,
        }
    }
}

type Store = State<Arc<Mutex<Received>>>;

fn note(store: &Store, headers: &HeaderMap) -> bool {
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let team = headers
        .get("x-team")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let json = content_type == "application/json";
    store.lock().unwrap().requests.push((content_type, team));
    json
}

async fn traces(store: Store, headers: HeaderMap, body: Bytes) -> StatusCode {
    let request = if note(&store, &headers) {
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    } else {
        ExportTraceServiceRequest::decode(body).map_err(|e| e.to_string())
    };
    let mut store = store.lock().unwrap();
    match request {
        Ok(request) => {
            store.traces.push(request);
            StatusCode::OK
        }
        Err(error) => {
            store.errors.push(error);
            StatusCode::BAD_REQUEST
        }
    }
}

async fn metrics(store: Store, headers: HeaderMap, body: Bytes) -> StatusCode {
    let request = if note(&store, &headers) {
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    } else {
        ExportMetricsServiceRequest::decode(body).map_err(|e| e.to_string())
    };
    let mut store = store.lock().unwrap();
    match request {
        Ok(request) => {
            store.metrics.push(request);
            StatusCode::OK
        }
        Err(error) => {
            store.errors.push(error);
            StatusCode::BAD_REQUEST
        }
    }
}
