//! What the provider tests share: a loopback HTTP server that replays recorded streams
//! byte for byte and keeps the requests it received, the page and tool the agent turns
//! run with, and helpers to read a turn's events.

#![allow(dead_code)]

use payload_agent::{AgentEvent, Tool, ToolContext, ToolResult};
use payload_builtin::SchemaProposal;
use payload_core::{LlmPayload, ParsedResponse, stream::sse::ServerSentEvent};
use payload_providers::NetworkRetry;
use payload_registry::Page;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The page the turns run on: it offers SCHEMA_PROPOSAL and the `echo` tool.
pub const TABLES: Page = Page::new("provider_tables")
    .description("A table and a chat about it")
    .payloads(&[<SchemaProposal as LlmPayload>::TYPE])
    .tools(&["echo"]);

payload_registry::register_page!(TABLES);

fn echo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    })
}

fn echo(input: &Value, _: &ToolContext) -> ToolResult {
    ToolResult::text(format!(
        "echo: {}",
        input["text"].as_str().unwrap_or_default()
    ))
}

payload_agent::register_tool!(Tool::new("echo", "Echo the text back", echo_schema, echo));

/// The system prompt the tests send.
pub const SYSTEM: &str = "You help with a table.";

/// What the server answers one connection with.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with a recorded event stream, then the connection is closed.
    Stream(Vec<u8>),
    /// A status with headers and a body.
    Status(u16, Vec<(&'static str, String)>, String),
    /// 200 with the stream's head and `prefix`, then nothing, for ever.
    Hang(Vec<u8>),
    /// 200 with the stream's head and `prefix`, then `piece` every `every`, until the
    /// client goes away (or a minute has passed).
    Trickle {
        /// Sent once, with the head.
        prefix: Vec<u8>,
        /// Sent again and again.
        piece: Vec<u8>,
        /// The pause between two pieces.
        every: Duration,
    },
    /// 200 with the stream's head, then nothing for `wait`, then the stream (a server
    /// reading a long prompt before its first token).
    Delayed(Duration, Vec<u8>),
    /// The request is read and never answered: no status, no headers.
    Silent,
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// `POST /v1/...`.
    pub line: String,
    /// Its headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Its JSON body.
    pub body: Value,
}

impl Received {
    /// The value of header `name`, if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A loopback server on 127.0.0.1 answering connection n with the n-th reply.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    /// Starts the server on a free port.
    pub async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        tokio::spawn(async move {
            for reply in replies {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let log = log.clone();
                tokio::spawn(async move { serve(socket, reply, log).await });
            }
        });
        Server { url, received }
    }

    /// The requests received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

async fn serve(mut socket: TcpStream, reply: Reply, log: Arc<Mutex<Vec<Received>>>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    log.lock().unwrap().push(request);
    const STREAM_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    match reply {
        Reply::Stream(bytes) => {
            let _ = socket.write_all(STREAM_HEAD).await;
            let _ = socket.write_all(&bytes).await;
        }
        Reply::Status(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
        }
        Reply::Trickle {
            prefix,
            piece,
            every,
        } => {
            let _ = socket.write_all(STREAM_HEAD).await;
            let _ = socket.write_all(&prefix).await;
            let until = tokio::time::Instant::now() + Duration::from_secs(60);
            while tokio::time::Instant::now() < until {
                if socket.write_all(&piece).await.is_err() || socket.flush().await.is_err() {
                    break;
                }
                tokio::time::sleep(every).await;
            }
        }
        Reply::Delayed(wait, bytes) => {
            let _ = socket.write_all(STREAM_HEAD).await;
            let _ = socket.flush().await;
            tokio::time::sleep(wait).await;
            let _ = socket.write_all(&bytes).await;
        }
        Reply::Silent => tokio::time::sleep(Duration::from_secs(60)).await,
        Reply::Hang(prefix) => {
            let _ = socket.write_all(STREAM_HEAD).await;
            let _ = socket.write_all(&prefix).await;
            let _ = socket.flush().await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
    }
    let _ = socket.shutdown().await;
}

/// Reads one HTTP/1.1 request with a `content-length` body.
async fn read_request(socket: &mut TcpStream) -> Option<Received> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let line = lines.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buffer[head_end..head_end + length]).unwrap_or(Value::Null);
    Some(Received {
        line,
        headers,
        body,
    })
}

/// A recorded stream under `tests/fixtures/`.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `fixture(name)` as a stream reply.
pub fn stream(name: &str) -> Reply {
    Reply::Stream(fixture(name))
}

/// Retries fast enough for tests.
pub fn quick_retry(max_attempts: usize) -> NetworkRetry {
    NetworkRetry {
        max_attempts,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_millis(300),
    }
}

/// The events' names, repeats folded.
pub fn names(events: &[AgentEvent]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = events.iter().map(|e| e.event_name()).collect();
    names.dedup();
    names
}

/// The text the client was shown, joined.
pub fn shown(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The `complete` event's parse (the turn must end with it).
pub fn completed(events: &[AgentEvent]) -> &ParsedResponse {
    match events.last() {
        Some(AgentEvent::Complete(parsed)) => parsed,
        other => panic!("the turn must end with complete, not {other:?}"),
    }
}

/// The messages of the `error` events.
pub fn errors(events: &[AgentEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Error { message } => Some(message.as_str()),
            _ => None,
        })
        .collect()
}

/// One turn on the test page, the user asking to drop a column.
pub async fn turn<M: payload_agent::Model + Unpin>(model: M) -> Vec<AgentEvent> {
    use futures::StreamExt;
    let agent =
        payload_agent::Agent::for_page(payload_registry::Registry::global(), "provider_tables")
            .unwrap()
            .system(SYSTEM);
    agent
        .turn(
            model,
            vec![payload_agent::ModelMessage::user("Drop column two")],
            json!({}),
        )
        .collect()
        .await
}

/// What both providers' `schema_proposal.sse` turn must give: the marker split across
/// deltas read as the turn's payload, with the message around it.
pub fn assert_schema_proposal_turn(events: &[AgentEvent]) {
    assert_eq!(
        names(events),
        [
            "status",
            "text_delta",
            "payload_start",
            "payload_progress",
            "complete"
        ]
    );
    let parsed = completed(events);
    assert_eq!(parsed.message, "I'll drop the unused column.");
    let payload = parsed.custom_payload.as_ref().expect("a payload");
    assert_eq!(payload.kind, "schema_proposal");
    assert_eq!(payload.data()["operations"][0]["column_id"], "col_2");
    assert!(errors(events).is_empty(), "{:?}", errors(events));
}

/// The kinds of every error of the turn's rejected blocks.
pub fn rejected_kinds(events: &[AgentEvent]) -> Vec<payload_core::ErrorKind> {
    completed(events)
        .rejected
        .iter()
        .flat_map(|r| &r.errors)
        .map(|e| e.kind)
        .collect()
}

/// What every `*reasoning*.sse` / `thinking.sse` turn must give: the draft in the
/// reasoning is never the payload, the reasoning arrives as `reasoning_delta`s before
/// the answer, and `complete` carries it.
pub fn assert_reasoning_turn(events: &[AgentEvent]) {
    assert_eq!(
        names(events),
        [
            "status",
            "reasoning_delta",
            "text_delta",
            "payload_start",
            "payload_progress",
            "complete"
        ]
    );
    let parsed = completed(events);
    assert_eq!(parsed.message, "I'll drop the unused column.");
    let payload = parsed.custom_payload.as_ref().expect("a payload");
    assert_eq!(payload.data()["operations"][0]["column_id"], "col_2");
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    let expected = "The user said column two. A first draft:\n\nSCHEMA_PROPOSAL: {\"mode\": \"update\", \"operations\": [{\"action\": \"remove\", \"column_id\": \"col_1\"}]}\n\nNo: col_1 is column one.";
    assert_eq!(parsed.reasoning.as_deref(), Some(expected));
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ReasoningDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, expected);
    assert!(errors(events).is_empty(), "{:?}", errors(events));
}
