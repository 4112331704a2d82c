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
        let (request, _) = crate::loopback_tests::read_request(&mut socket);
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

/// What a [`serve_slowly`] server does after the request: send the stream's head, wait
/// `delay`, then send `body`, then `piece` every 100 ms until the client goes away.
struct Slow {
    delay: std::time::Duration,
    body: &'static str,
    piece: Option<&'static str>,
}

/// A server that answers every connection as `slow` says and counts the requests (a
/// re-sent request is a second one).
fn serve_slowly(slow: Slow) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::Ordering;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = count.clone();
    let slow = std::sync::Arc::new(slow);
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let (slow, counted) = (slow.clone(), counted.clone());
            std::thread::spawn(move || {
                let mut buffer = [0u8; 65536];
                let mut request = Vec::new();
                while !String::from_utf8_lossy(&request).contains("\"messages\"")
                    || !request.ends_with(b"}")
                {
                    match socket.read(&mut buffer) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                let _ = socket.write_all(head.as_bytes());
                std::thread::sleep(slow.delay);
                let _ = socket.write_all(slow.body.as_bytes());
                if let Some(piece) = slow.piece {
                    for _ in 0..300 {
                        if socket.write_all(piece.as_bytes()).is_err() {
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(100));
                    }
                }
            });
        }
    });
    (url, count)
}

/// `payload chat` on the test page against `url` with `extra` flags: the exit code, the
/// SSE printed, and how long it took.
fn chat(url: &str, extra: &[&str]) -> (std::process::ExitCode, String, std::time::Duration) {
    let mut args = vec![
        "payload",
        "chat",
        "--page",
        "chat",
        "--provider",
        "openai",
        "--base-url",
        url,
        "--model",
        "local-model",
        "--message",
        "Hi",
    ];
    args.extend_from_slice(extra);
    let mut out = Vec::new();
    let started = std::time::Instant::now();
    let code = crate::run(args, &registry(), &mut out).unwrap();
    (code, String::from_utf8(out).unwrap(), started.elapsed())
}

#[test]
fn a_slow_first_token_is_waited_for_up_to_the_flag_and_never_sent_again() {
    use std::sync::atomic::Ordering;
    let slow = |delay_ms| Slow {
        delay: std::time::Duration::from_millis(delay_ms),
        body: STREAM,
        piece: None,
    };
    // Waited for: the answer comes after 1.5 s, within the 10 s asked for.
    let (url, requests) = serve_slowly(slow(1500));
    let (code, sse, _) = chat(&url, &["--first-token-timeout", "10"]);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{sse}");
    assert!(sse.contains("\"text\":\"Hello.\""), "{sse}");
    assert_eq!(requests.load(Ordering::SeqCst), 1);
    // Given up on after the flag's 0.5 s, with one request sent.
    let (url, requests) = serve_slowly(slow(3000));
    let (code, sse, took) = chat(&url, &["--first-token-timeout", "0.5"]);
    assert_eq!(code, std::process::ExitCode::from(1));
    assert!(
        sse.contains("the response headers came, then nothing: no content for 500 ms"),
        "{sse}"
    );
    assert!(took < std::time::Duration::from_millis(2500), "{took:?}");
    assert_eq!(requests.load(Ordering::SeqCst), 1, "never sent again");
}

#[test]
fn keep_alives_end_the_turn_at_the_idle_timeout_and_an_endless_answer_at_the_deadline() {
    let content = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi \"},\"finish_reason\":null}]}\n\n";
    let (url, _) = serve_slowly(Slow {
        delay: std::time::Duration::ZERO,
        body: content,
        piece: Some("data: {\"choices\":[]}\n\n"),
    });
    let (code, sse, took) = chat(&url, &["--idle-timeout", "0.5"]);
    assert_eq!(code, std::process::ExitCode::from(1));
    assert!(
        sse.contains(
            "no content for 500 ms while the provider kept the connection alive with empty events"
        ),
        "{sse}"
    );
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");

    let (url, _) = serve_slowly(Slow {
        delay: std::time::Duration::ZERO,
        body: "",
        piece: Some(content),
    });
    let (code, sse, took) = chat(&url, &["--deadline", "1"]);
    assert_eq!(code, std::process::ExitCode::from(1));
    assert!(sse.contains("overall deadline of 1000 ms"), "{sse}");
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}

#[test]
fn timeouts_are_checked_before_anything_is_sent() {
    let mut out = Vec::new();
    for (flags, says) in [
        (
            &["--first-token-timeout", "400", "--deadline", "300"][..],
            "raise --deadline",
        ),
        (&["--first-token-timeout", "400"][..], "raise --deadline"),
        (&["--idle-timeout", "0"][..], "out of range"),
        (&["--deadline", "soon"][..], "not a number of seconds"),
    ] {
        let mut args = vec![
            "payload",
            "chat",
            "--page",
            "chat",
            "--provider",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--message",
            "x",
        ];
        args.extend_from_slice(flags);
        let refused = crate::run(args, &registry(), &mut out);
        assert!(
            matches!(&refused, Err(crate::CliError::Usage(m)) if m.contains(says)),
            "{flags:?}: {refused:?}"
        );
    }
}

#[test]
fn context_and_history_go_into_the_system_prompt_as_payload_prompt_puts_them() {
    let dir = std::env::temp_dir().join(format!("payload-chat-context-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let context = dir.join("context.json");
    std::fs::write(&context, r#"{"table": "Reading list 42", "rows": 3}"#).unwrap();
    let history = dir.join("history.json");
    std::fs::write(
        &history,
        r#"[{"turn": 1, "payload": {"type": "schema_proposal", "data": {"table_name": "Books"}}, "status": "accepted"}]"#,
    )
    .unwrap();
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{STREAM}"
    );
    let (url, request) = serve_once(reply);
    let url = format!("{url}/v1");
    let (code, sse, _) = chat(
        &url,
        &[
            "--context",
            context.to_str().unwrap(),
            "--history",
            history.to_str().unwrap(),
        ],
    );
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{sse}");
    let request = request.recv().unwrap();
    let body: serde_json::Value =
        serde_json::from_str(request.split_once("\r\n\r\n").unwrap().1).unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    let expected = crate::prompt_text(
        &registry(),
        "chat",
        Some(&context),
        Some(&history),
        crate::DEFAULT_MAX_INPUT_BYTES,
    )
    .unwrap();
    assert_eq!(system, expected);
    assert!(system.contains("Reading list 42"), "{system}");
    assert!(system.contains("Books"), "{system}");
    let _ = std::fs::remove_dir_all(&dir);
}
