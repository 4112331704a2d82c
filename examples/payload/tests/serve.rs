//! `payload serve --provider openai --base-url ...` end to end: the binary serves the
//! app, and a chat turn goes to an OpenAI-compatible server on 127.0.0.1 (a recorded
//! stream replayed by the test) with the page's system prompt, its answer streamed back
//! to the browser's endpoint as the chat architecture's events.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The answer, in OpenAI's chunk format, with the marker split across deltas.
fn chunk(content: &str) -> String {
    let chunk = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1718000000,
        "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]
    });
    format!("data: {chunk}\n\n")
}

fn recorded_stream() -> String {
    let mut body = String::new();
    for piece in [
        "Which do you want to track?\n\nSUGGESTED_VA",
        "LUES: [{\"label\": \"Books\", \"value\": \"A reading list\"}, ",
        "{\"label\": \"Jobs\", \"value\": \"My job search\"}]",
    ] {
        body.push_str(&chunk(piece));
    }
    let stop = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1718000000,
        "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    body.push_str(&format!("data: {stop}\n\ndata: [DONE]\n\n"));
    body
}

/// Answers one request with the recorded stream; returns the request's JSON body.
async fn model_server(listener: TcpListener) -> Value {
    let (mut socket, _) = listener.accept().await.unwrap();
    let mut request = Vec::new();
    let mut buffer = [0u8; 8192];
    let body_at = loop {
        let n = socket.read(&mut buffer).await.unwrap();
        request.extend_from_slice(&buffer[..n]);
        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&request[..body_at]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().unwrap())
        .unwrap();
    while request.len() < body_at + length {
        let n = socket.read(&mut buffer).await.unwrap();
        request.extend_from_slice(&buffer[..n]);
    }
    let stream = recorded_stream();
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{stream}",
        stream.len()
    );
    socket.write_all(reply.as_bytes()).await.unwrap();
    socket.shutdown().await.unwrap();
    serde_json::from_slice(&request[body_at..body_at + length]).unwrap()
}

/// The `payload serve` process, killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn serve_talks_to_the_model_named_on_the_command_line() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let model = tokio::spawn(model_server(listener));
    let mut child = Command::new(env!("CARGO_BIN_EXE_payload"))
        .args([
            "serve",
            "--port",
            "0",
            "--provider",
            "openai",
            "--model",
            "gpt-4o-mini",
        ])
        .args(["--base-url", &base_url])
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _served = Served(child);
    // The start-up line names the app served, in its own words.
    assert!(
        line.starts_with(
            "table.that (pages: tables_list, table_view, table_edit): open http://127.0.0.1:"
        ),
        "{line:?}"
    );
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .trim_end_matches('/')
        .to_string();

    let response = reqwest::Client::new()
        .post(format!("{url}/api/chat"))
        .json(&json!({"message": "help me track something", "context": {"current_page": "tables_list"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let events = response.text().await.unwrap();
    let complete = events
        .split("\n\n")
        .find_map(|block| block.strip_prefix("event: complete\ndata: "))
        .unwrap_or_else(|| panic!("no complete event in {events}"));
    let complete: Value = serde_json::from_str(complete).unwrap();
    assert_eq!(complete["message"], "Which do you want to track?");
    assert_eq!(complete["suggested_values"][1]["label"], "Jobs");
    let shown: String = events
        .split("\n\n")
        .filter_map(|block| block.strip_prefix("event: text_delta\ndata: "))
        .map(|data| {
            serde_json::from_str::<Value>(data).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        shown.trim_end(),
        "Which do you want to track?",
        "no part of the block was shown"
    );

    let request = model.await.unwrap();
    assert_eq!(request["model"], "gpt-4o-mini");
    let system = request["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("SCHEMA_PROPOSAL"),
        "the page's prompt was sent: {system}"
    );
    assert_eq!(request["messages"][1]["content"], "help me track something");
}

/// table.that keeps each user table as a real SQLite table: `payload serve` refuses a
/// PostgreSQL location at once, saying why, and never starts serving; a location that
/// is no database at all is refused too.
#[test]
fn table_that_refuses_a_database_it_cannot_keep_its_tables_in() {
    for (location, says) in [
        ("postgres://app@127.0.0.1:1/tables", "SQLite"),
        ("sqlite:", "path is empty"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_payload"))
            .args(["serve", "--port", "0", "--database", location])
            .stdin(Stdio::null())
            .output()
            .expect("payload serve runs");
        assert!(!out.status.success(), "{location} was served");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(printed.contains(says), "{location}: {printed}");
        assert!(!printed.contains("http://"), "{location}: {printed}");
    }
}
