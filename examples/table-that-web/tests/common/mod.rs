//! What the server's tests share: an app on 127.0.0.1 with a chosen model, and a reader
//! of its Server-Sent Events.

#![allow(dead_code)] // each test file uses part of it

use payload_agent::{Model, ModelChunk, ModelRequest};
use payload_registry::Registry;
use payload_serve::{ModelSource, ReplayModel, ServeOptions, Service, TurnInfo};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A running server.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The app, to read how many turns are live.
    pub app: Service,
}

/// Starts table.that with `models` on a free port of 127.0.0.1.
pub async fn start(models: ModelSource) -> Server {
    start_with(models, ServeOptions::default()).await
}

/// Starts table.that with `models` and `options`.
pub async fn start_with(models: ModelSource, options: ServeOptions) -> Server {
    let app = table_that_web::app(Registry::global())
        .model(move |turn: &TurnInfo| models(turn))
        .options(options)
        .build()
        .expect("the in-memory database opens");
    let url = payload_browser::serve(|listener| app.clone().serve(listener)).await;
    Server { url, app }
}

/// The replay model, as fast as the client reads.
pub fn replay() -> ModelSource {
    replay_with_delay(Duration::ZERO)
}

/// The replay model of table.that's recording, pausing `delay` between pieces.
pub fn replay_with_delay(delay: Duration) -> ModelSource {
    let recording = table_that_web::recording();
    Arc::new(move |turn: &TurnInfo| -> Box<dyn Model> {
        Box::new(
            ReplayModel::for_turn(&recording, turn.turn)
                .expect("the recording has answers")
                .delay(delay),
        )
    })
}

/// A model that answers every call with `text`.
pub fn saying(text: &'static str) -> ModelSource {
    Arc::new(move |_: &TurnInfo| -> Box<dyn Model> {
        Box::new(move |_: &ModelRequest| vec![ModelChunk::Text(text.to_string())])
    })
}

/// One event of a response: its name and its data.
pub type Event = (String, Value);

/// Posts `body` to `/api/chat`; the response as it arrives.
pub async fn post_chat(
    client: &reqwest::Client,
    server: &Server,
    body: &Value,
) -> reqwest::Response {
    client
        .post(format!("{}/api/chat", server.url))
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Posts a chat message; returns the response's conversation id, turn and events.
pub async fn chat(
    client: &reqwest::Client,
    server: &Server,
    body: Value,
) -> (String, usize, Vec<Event>) {
    let response = post_chat(client, server, &body).await;
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let id = headers["x-conversation-id"].to_str().unwrap().to_string();
    let turn = headers["x-turn"].to_str().unwrap().parse().unwrap();
    (id, turn, events(&text))
}

/// A chat message on `page` in conversation `id` (a new one when `None`).
pub fn message(text: &str, page: &str, table: Option<i64>, id: Option<&str>) -> Value {
    let mut context = json!({ "current_page": page });
    if let Some(table) = table {
        context["table_id"] = table.into();
    }
    json!({ "message": text, "context": context, "conversation_id": id })
}

/// The events of an SSE body.
pub fn events(body: &str) -> Vec<Event> {
    body.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .filter_map(|block| {
            let mut name = String::new();
            let mut data = String::new();
            if !block.lines().any(|l| l.starts_with("data:")) {
                // A keep-alive comment: no event.
                return None;
            }
            for line in block.lines() {
                if let Some(rest) = line.strip_prefix("event: ") {
                    name = rest.to_string();
                } else if let Some(rest) = line.strip_prefix("data: ") {
                    data.push_str(rest);
                }
            }
            Some((
                name,
                serde_json::from_str(&data).expect("event data is JSON"),
            ))
        })
        .collect()
}

/// The `complete` event's data.
pub fn complete(events: &[Event]) -> &Value {
    let (name, data) = events.last().expect("events");
    assert_eq!(name, "complete");
    data
}

/// GETs `path` as JSON.
pub async fn get(client: &reqwest::Client, server: &Server, path: &str) -> Value {
    let response = client
        .get(format!("{}{path}", server.url))
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    response.json().await.unwrap()
}

/// POSTs a decision; returns the status and the body.
pub async fn decide(
    client: &reqwest::Client,
    server: &Server,
    id: &str,
    turn: usize,
    decision: &str,
    body: Value,
) -> (u16, Value) {
    let response = client
        .post(format!(
            "{}/api/payloads/{id}/{turn}/{decision}",
            server.url
        ))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A server on a runtime of its own (two workers), so a test can see whether its
/// workers are free while the test's own runtime waits; the runtime stops when this is
/// dropped.
pub struct OwnRuntime {
    /// The server.
    pub server: Server,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Starts the app with `models` and `options` on its own two-worker runtime.
pub fn start_on_own_runtime(models: ModelSource, options: ServeOptions) -> OwnRuntime {
    // Built and entered on a thread of its own: a runtime cannot be entered from
    // inside the test's.
    let (runtime, server) = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(start_with(models, options));
        (runtime, server)
    })
    .join()
    .unwrap();
    OwnRuntime {
        server,
        runtime: Some(runtime),
    }
}

/// `host:port` of the server.
pub fn authority(server: &Server) -> String {
    server.url.trim_start_matches("http://").to_string()
}

/// Sends `request` as written on a new connection; the response's bytes until the
/// server closes the connection or `wait` passes.
pub async fn raw(server: &Server, request: &str, wait: Duration) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(authority(server))
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(wait, stream.read_to_end(&mut response)).await;
    String::from_utf8_lossy(&response).into_owned()
}

/// A model that answers every call with `text` (an owned string).
pub fn saying_owned(text: String) -> ModelSource {
    Arc::new(move |_: &TurnInfo| -> Box<dyn Model> {
        let text = text.clone();
        Box::new(move |_: &ModelRequest| vec![ModelChunk::Text(text.clone())])
    })
}

/// A schema proposal creating a table named `name` with `columns` text columns.
pub fn create_proposal(name: &str, columns: usize) -> String {
    let operations: Vec<Value> = (0..columns)
        .map(
            |i| json!({"action": "add", "column": {"name": format!("Column {i}"), "type": "text"}}),
        )
        .collect();
    let proposal = json!({
        "mode": "create", "table_name": name, "table_description": "made by a test",
        "operations": operations,
        "sample_rows": [{"Column 0": "a"}, {"Column 0": "b"}],
    });
    format!("Here it is.\n\nSCHEMA_PROPOSAL: {proposal}")
}
