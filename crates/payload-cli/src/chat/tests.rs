//! `payload chat` against a loopback server (a thread on 127.0.0.1) that answers with a
//! recorded OpenAI-compatible stream, or refuses.

use payload_registry::{Page, Registry};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

const STREAM: &str = concat!(
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\\n\\nSUGGESTED_VAL\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"UES: [{\\\"label\\\": \\\"Yes\\\", \\\"value\\\": \\\"Yes\\\"}]\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

/// Serves one request with `reply` (head and body); sends back the request it read.
fn serve_once(reply: String) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (sent, received) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut buffer = [0u8; 8192];
        // Read the head, then as much body as its content-length says.
        loop {
            let n = socket.read(&mut buffer).unwrap();
            request.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&request).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let length: usize = text[..end]
                    .lines()
                    .find_map(|l| {
                        let l = l.to_ascii_lowercase();
                        l.strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if request.len() >= end + 4 + length {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        socket.write_all(reply.as_bytes()).unwrap();
        sent.send(String::from_utf8_lossy(&request).to_string())
            .unwrap();
    });
    (url, received)
}

fn registry() -> Registry {
    Registry::from_parts(
        vec![],
        vec![Page::new("chat").instructions("Be brief.")],
        vec![],
    )
}

#[test]
fn chat_runs_a_turn_against_the_server_and_prints_sse() {
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{STREAM}"
    );
    let (url, request) = serve_once(reply);
    let url = format!("{url}/v1");
    let mut out = Vec::new();
    let args = [
        "payload",
        "chat",
        "--page",
        "chat",
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        "local-model",
        "--message",
        "Hi",
        "--max-tokens",
        "50",
    ];
    let code = crate::run(args, &registry(), &mut out).unwrap();
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let sse = String::from_utf8(out).unwrap();
    assert!(sse.starts_with("event: status\n"), "{sse}");
    assert!(
        sse.contains("event: text_delta\ndata: {\"text\":\"Hello.\"}"),
        "{sse}"
    );
    let last = sse.trim_end().rsplit("\n\n").next().unwrap();
    assert!(last.starts_with("event: complete\n"), "{sse}");
    assert!(last.contains("\"label\":\"Yes\""), "{last}");

    let request = request.recv().unwrap();
    assert!(request.starts_with("POST /v1/chat/completions HTTP/1.1"));
    let body: serde_json::Value =
        serde_json::from_str(request.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["model"], "local-model");
    assert_eq!(body["max_tokens"], 50);
    // The page's system prompt, as payload-prompt builds it, goes first.
    let system = body["messages"][0]["content"].as_str().unwrap();
    let expected = payload_prompt::PromptBuilder::for_page(&registry(), "chat")
        .unwrap()
        .build();
    assert_eq!(system, expected);
    assert!(system.contains("Be brief."));
    assert_eq!(
        body["messages"][1],
        serde_json::json!({"role": "user", "content": "Hi"})
    );
}

#[test]
fn a_refused_request_prints_error_then_complete_and_exits_1() {
    let body = r#"{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}"#;
    let reply = format!(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let (url, request) = serve_once(reply);
    let mut out = Vec::new();
    let args = [
        "payload",
        "chat",
        "--page",
        "chat",
        "--provider",
        "anthropic",
        "--base-url",
        &url,
        "--model",
        "claude",
        "--message",
        "Hi",
    ];
    let code = crate::run(args, &registry(), &mut out).unwrap();
    assert_eq!(code, std::process::ExitCode::from(1));
    let sse = String::from_utf8(out).unwrap();
    assert!(
        sse.contains("event: error\ndata: {\"message\":\"invalid x-api-key (HTTP 401)\"}"),
        "{sse}"
    );
    let last = sse.trim_end().rsplit("\n\n").next().unwrap();
    assert!(last.starts_with("event: complete\n"), "{sse}");
    assert!(
        request
            .recv()
            .unwrap()
            .starts_with("POST /v1/messages HTTP/1.1")
    );
}

#[test]
fn an_unknown_page_or_provider_is_a_typed_error() {
    let mut out = Vec::new();
    let unknown = crate::run(
        [
            "payload",
            "chat",
            "--page",
            "nope",
            "--provider",
            "openai",
            "--model",
            "m",
            "--message",
            "x",
        ],
        &registry(),
        &mut out,
    );
    assert!(
        matches!(unknown, Err(crate::CliError::UnknownPage(_))),
        "{unknown:?}"
    );
    let provider = crate::run(
        [
            "payload",
            "chat",
            "--page",
            "chat",
            "--provider",
            "bard",
            "--model",
            "m",
            "--message",
            "x",
        ],
        &registry(),
        &mut out,
    );
    assert!(
        matches!(provider, Err(crate::CliError::Usage(_))),
        "{provider:?}"
    );
}
