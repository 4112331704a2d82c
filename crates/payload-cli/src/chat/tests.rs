//! `payload chat` against the workspace's loopback server (payload-loopback) answering
//! with each provider's recorded stream, or refusing, or stalling.

use payload_loopback::{Reply, Server};
use payload_registry::{Page, Registry};

const STREAM: &str = concat!(
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\\n\\nSUGGESTED_VAL\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"UES: [{\\\"label\\\": \\\"Yes\\\", \\\"value\\\": \\\"Yes\\\"}]\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

fn registry() -> Registry {
    Registry::from_parts(
        vec![],
        vec![Page::new("chat").instructions("Be brief.")],
        vec![],
    )
}

#[test]
fn chat_runs_a_turn_against_the_server_and_prints_sse() {
    let server = Server::start(vec![Reply::Stream(STREAM.into())]);
    let url = format!("{}/v1", server.url);
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
        sse.contains("event: text_delta\ndata: {\"text\":\"Hello.\",\"part\":0}"),
        "{sse}"
    );
    let last = sse.trim_end().rsplit("\n\n").next().unwrap();
    assert!(last.starts_with("event: complete\n"), "{sse}");
    assert!(last.contains("\"label\":\"Yes\""), "{last}");

    let [request] = server.received().try_into().unwrap();
    assert_eq!(request.line, "POST /v1/chat/completions HTTP/1.1");
    let body = request.body;
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

/// A model whose template opened `<think>` in the prompt: with
/// `--reasoning-opened-by-prompt` its draft before `</think>` is reasoning, and only the
/// answer's chips are read; without the flag the draft's chips win.
#[test]
fn the_flag_reads_a_draft_before_the_prompts_think_as_reasoning() {
    const DRAFTED: &str = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Draft.\\nSUGGESTED_VALUES: [{\\\"label\\\": \\\"No\\\", \\\"value\\\": \\\"No\\\"}]\\n</think>\\n\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\\nSUGGESTED_VALUES: [{\\\"label\\\": \\\"Yes\\\", \\\"value\\\": \\\"Yes\\\"}]\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    for (flag, label) in [(true, "Yes"), (false, "No")] {
        let server = Server::start(vec![Reply::Stream(DRAFTED.into())]);
        let url = format!("{}/v1", server.url);
        let flags: &[&str] = if flag {
            &["--reasoning-opened-by-prompt"]
        } else {
            &[]
        };
        let (code, sse, _) = chat(&url, flags);
        assert_eq!(code, std::process::ExitCode::SUCCESS);
        let last = sse.trim_end().rsplit("\n\n").next().unwrap();
        assert!(last.starts_with("event: complete\n"), "{sse}");
        let chips = format!("\"suggested_values\":[{{\"label\":\"{label}\"");
        assert!(last.contains(&chips), "flag {flag}: {last}");
    }
}

#[test]
fn a_refused_request_prints_error_then_complete_and_exits_1() {
    let body = r#"{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}"#;
    let server = Server::start(vec![Reply::Status(401, vec![], body.to_string())]);
    let url = server.url.clone();
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
    assert_eq!(server.received()[0].line, "POST /v1/messages HTTP/1.1");
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

/// A server that answers every connection as `slow` says (a re-sent request is a
/// second one in its `received()`), and its URL.
fn serve_slowly(slow: Slow) -> (String, Server) {
    let reply = match slow.piece {
        None => Reply::Delayed(slow.delay, slow.body.into()),
        Some(piece) => Reply::Trickle {
            prefix: slow.body.into(),
            piece: piece.into(),
            every: std::time::Duration::from_millis(100),
        },
    };
    let server = Server::always(reply);
    (format!("{}/v1", server.url), server)
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
    assert_eq!(requests.received().len(), 1);
    // Given up on after the flag's 0.5 s, with one request sent.
    let (url, requests) = serve_slowly(slow(3000));
    let (code, sse, took) = chat(&url, &["--first-token-timeout", "0.5"]);
    assert_eq!(code, std::process::ExitCode::from(1));
    assert!(
        sse.contains("the response headers came, then nothing: no content for 500 ms"),
        "{sse}"
    );
    assert!(took < std::time::Duration::from_millis(2500), "{took:?}");
    assert_eq!(requests.received().len(), 1, "never sent again");
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
    let server = Server::start(vec![Reply::Stream(STREAM.into())]);
    let url = format!("{}/v1", server.url);
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
    let body = &server.received()[0].body;
    let system = body["messages"][0]["content"].as_str().unwrap();
    let expected = crate::prompt_text(
        &registry(),
        "chat",
        Some(&context),
        Some(&history),
        payload_core::limits::DEFAULT_MAX_INPUT_BYTES as u64,
    )
    .unwrap();
    assert_eq!(system, expected);
    assert!(system.contains("Reading list 42"), "{system}");
    assert!(system.contains("Books"), "{system}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each provider's streams, as its API sends them, for the whole-turn tests below.
mod wire {
    /// OpenAI Responses events.
    pub fn responses(events: &[serde_json::Value]) -> String {
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect()
    }

    pub fn responses_text(text: &str) -> String {
        responses(&[
            serde_json::json!({"type": "response.created", "response": {"status": "in_progress"}}),
            serde_json::json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
            serde_json::json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": text}),
            serde_json::json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 10, "output_tokens": 5}}}),
        ])
    }

    pub fn responses_call(name: &str, arguments: &str) -> String {
        responses(&[
            serde_json::json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": ""}}),
            serde_json::json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": arguments}),
            serde_json::json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 10, "output_tokens": 5}}}),
        ])
    }

    fn anthropic(events: &[serde_json::Value]) -> String {
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect()
    }

    pub fn anthropic_text(text: &str, stop: &str) -> String {
        anthropic(&[
            serde_json::json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}),
            serde_json::json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            serde_json::json!({"type": "content_block_stop", "index": 0}),
            serde_json::json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}}),
            serde_json::json!({"type": "message_stop"}),
        ])
    }

    pub fn anthropic_call(name: &str, arguments: &str) -> String {
        anthropic(&[
            serde_json::json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}),
            serde_json::json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}}),
            serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": arguments}}),
            serde_json::json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}),
            serde_json::json!({"type": "message_stop"}),
        ])
    }

    pub fn gemini(part: serde_json::Value) -> String {
        let chunk = serde_json::json!({
            "candidates": [{"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5},
        });
        format!("data: {chunk}\r\n\r\n")
    }

    pub fn openai_call(name: &str, arguments: &str) -> String {
        let call = serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}]}, "finish_reason": "stop"}]});
        let usage = serde_json::json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}});
        format!("data: {call}\n\ndata: {usage}\n\ndata: [DONE]\n\n")
    }

    pub fn openai_text(text: &str) -> String {
        let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
        let usage = serde_json::json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}});
        format!("data: {chunk}\n\ndata: {usage}\n\ndata: [DONE]\n\n")
    }
}

mod note {
    use payload_core::LlmPayload;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A note.
    #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
    #[payload(marker = "NOTE")]
    pub struct Note {
        /// Its text.
        pub text: String,
    }
}

fn notes() -> Registry {
    let note = <note::Note as payload_core::LlmPayload>::TYPE;
    Registry::from_parts(
        vec![payload_registry::PayloadEntry::new(note, &[])],
        vec![Page::new("chat").instructions("Be brief.")],
        vec![],
    )
}

/// `payload chat` with `provider` against `server`, with `extra` flags: the exit code,
/// what it printed, and the one request the server read.
fn chat_with(
    provider: &str,
    server: &Server,
    extra: &[&str],
) -> (std::process::ExitCode, String, payload_loopback::Received) {
    let url = match provider {
        "openai" | "openai-responses" => format!("{}/v1", server.url),
        _ => server.url.clone(),
    };
    let mut args = vec![
        "payload",
        "chat",
        "--page",
        "chat",
        "--provider",
        provider,
        "--base-url",
        &url,
        "--model",
        "test-model",
        "--message",
        "Note milk",
    ];
    args.extend_from_slice(extra);
    let mut out = Vec::new();
    let code = crate::run(args, &notes(), &mut out).unwrap();
    let printed = String::from_utf8(out).unwrap();
    let [request] = server.received().try_into().unwrap();
    (code, printed, request)
}

#[test]
fn every_provider_runs_a_marker_turn_on_the_page() {
    for (provider, stream, path) in [
        ("openai", wire::openai_text("Hi."), "/v1/chat/completions"),
        (
            "openai-responses",
            wire::responses_text("Hi."),
            "/v1/responses",
        ),
        (
            "anthropic",
            wire::anthropic_text("Hi.", "end_turn"),
            "/v1/messages",
        ),
        (
            "gemini",
            wire::gemini(serde_json::json!({"text": "Hi."})),
            "/v1beta/models/test-model:streamGenerateContent?alt=sse",
        ),
    ] {
        let server = Server::start(vec![Reply::Stream(stream.into_bytes())]);
        let (code, sse, request) = chat_with(provider, &server, &["--mode", "marker"]);
        assert_eq!(code, std::process::ExitCode::SUCCESS, "{provider}: {sse}");
        assert_eq!(request.line, format!("POST {path} HTTP/1.1"), "{provider}");
        let last = sse.trim_end().rsplit("\n\n").next().unwrap();
        assert!(last.starts_with("event: complete\n"), "{provider}: {sse}");
        assert!(last.contains("\"message\":\"Hi.\""), "{provider}: {last}");
    }
}

#[test]
fn every_provider_and_mode_reads_a_whole_response_type() {
    let json = r#"{"text": "milk"}"#;
    let text = |provider: &str| match provider {
        "openai" => wire::openai_text(json),
        "openai-responses" => wire::responses_text(json),
        "anthropic" => wire::anthropic_text(json, "end_turn"),
        _ => wire::gemini(serde_json::json!({"text": json})),
    };
    let call = |provider: &str| match provider {
        "openai" => wire::openai_call("note", json),
        "openai-responses" => wire::responses_call("note", json),
        "anthropic" => wire::anthropic_call("note", json),
        _ => wire::gemini(
            serde_json::json!({"functionCall": {"name": "note", "args": {"text": "milk"}}}),
        ),
    };
    // What each request must say of its mode: a JSON pointer into the body and its value.
    let cases: Vec<(&str, &str, String, &str, serde_json::Value)> = vec![
        (
            "openai",
            "native",
            text("openai"),
            "/response_format/type",
            "json_schema".into(),
        ),
        (
            "openai",
            "prompted",
            text("openai"),
            "/response_format/type",
            "json_object".into(),
        ),
        (
            "openai-responses",
            "auto",
            text("openai-responses"),
            "/text/format/type",
            "json_schema".into(),
        ),
        (
            "openai-responses",
            "native",
            text("openai-responses"),
            "/text/format/strict",
            true.into(),
        ),
        (
            "openai-responses",
            "tool",
            call("openai-responses"),
            "/tool_choice/name",
            "note".into(),
        ),
        (
            "openai-responses",
            "prompted",
            text("openai-responses"),
            "/text/format/type",
            "json_object".into(),
        ),
        (
            "anthropic",
            "native",
            text("anthropic"),
            "/output_config/format/type",
            "json_schema".into(),
        ),
        (
            "anthropic",
            "tool",
            call("anthropic"),
            "/tool_choice/name",
            "note".into(),
        ),
        (
            "anthropic",
            "prompted",
            text("anthropic"),
            "/messages/0/role",
            "user".into(),
        ),
        (
            "gemini",
            "native",
            text("gemini"),
            "/generationConfig/responseMimeType",
            "application/json".into(),
        ),
        (
            "gemini",
            "tool",
            call("gemini"),
            "/toolConfig/functionCallingConfig/mode",
            "ANY".into(),
        ),
        (
            "gemini",
            "prompted",
            text("gemini"),
            "/generationConfig/responseMimeType",
            "application/json".into(),
        ),
    ];
    for (provider, mode, stream, pointer, expected) in cases {
        let server = Server::start(vec![Reply::Stream(stream.into_bytes())]);
        let (code, printed, request) =
            chat_with(provider, &server, &["--type", "note", "--mode", mode]);
        assert_eq!(
            code,
            std::process::ExitCode::SUCCESS,
            "{provider} {mode}: {printed}"
        );
        let printed: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(
            printed["result"]["data"],
            serde_json::json!({"text": "milk"}),
            "{provider} {mode}"
        );
        assert_eq!(printed["attempts"], 1);
        assert_eq!(
            printed["usage"],
            serde_json::json!({"input_tokens": 10, "output_tokens": 5}),
            "{provider} {mode}"
        );
        assert_eq!(
            request.body.pointer(pointer),
            Some(&expected),
            "{provider} {mode}: {}",
            request.body
        );
    }
}

#[test]
fn a_refusal_is_printed_as_one_and_exits_1() {
    let refusal = wire::responses(&[
        serde_json::json!({"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "I can't help with that."}),
        serde_json::json!({"type": "response.completed", "response": {"status": "completed"}}),
    ]);
    let server = Server::start(vec![Reply::Stream(refusal.clone().into_bytes())]);
    let (code, sse, _) = chat_with("openai-responses", &server, &[]);
    assert_eq!(code, std::process::ExitCode::from(1));
    assert!(
        sse.contains(
            "event: refusal\ndata: {\"message\":\"I can't help with that.\",\"reason\":\"refusal\"}"
        ),
        "{sse}"
    );
    let server = Server::start(vec![Reply::Stream(refusal.into_bytes())]);
    let (code, printed, _) = chat_with("openai-responses", &server, &["--type", "note"]);
    assert_eq!(code, std::process::ExitCode::from(1));
    let printed: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        printed["refusal"],
        serde_json::json!({"message": "I can't help with that.", "reason": "refusal"})
    );
}

/// OpenAI's `finish_reason: content_filter` after a block the filter cut: never an
/// empty success. The turn prints the `refusal` event and exits 1; `--type` prints the
/// outcome, never re-asked as "no JSON value found", and exits 1 (`chat_with` takes
/// exactly one request: a re-ask would fail it).
#[test]
fn a_content_filter_stop_is_printed_as_the_outcome_and_exits_1() {
    const FILTERED: &str = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"NOTE: {\\\"text\\\": \\\"mi\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"content_filter\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let said = "The provider's content filter stopped the answer.";
    let server = Server::start(vec![Reply::Stream(FILTERED.into())]);
    let (code, sse, _) = chat_with("openai", &server, &[]);
    assert_eq!(code, std::process::ExitCode::from(1), "{sse}");
    let event =
        format!("event: refusal\ndata: {{\"message\":\"{said}\",\"reason\":\"content_filter\"}}");
    assert!(sse.contains(&event), "{sse}");
    let server = Server::start(vec![Reply::Stream(FILTERED.into())]);
    let (code, printed, _) = chat_with("openai", &server, &["--type", "note"]);
    assert_eq!(code, std::process::ExitCode::from(1), "{printed}");
    let printed: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        printed["refusal"],
        serde_json::json!({"message": said, "reason": "content_filter"})
    );
    assert_eq!(
        printed["result"],
        serde_json::Value::Null,
        "nothing was read: {printed}"
    );
    assert!(printed.get("error").is_none(), "{printed}");
}

#[test]
fn a_mode_without_a_type_or_marker_with_one_is_a_usage_error() {
    let server = Server::start(vec![]);
    for extra in [
        &["--mode", "native"][..],
        &["--type", "note", "--mode", "marker"][..],
    ] {
        let mut args = vec![
            "payload",
            "chat",
            "--page",
            "chat",
            "--provider",
            "gemini",
            "--base-url",
            &server.url,
            "--model",
            "m",
            "--message",
            "x",
        ];
        args.extend_from_slice(extra);
        let refused = crate::run(args, &notes(), &mut Vec::new());
        assert!(
            matches!(refused, Err(crate::CliError::Usage(_))),
            "{extra:?}: {refused:?}"
        );
    }
}

#[test]
fn payload_schema_writes_each_providers_native_dialect() {
    let registry = notes();
    for dialect in ["anthropic-strict", "gemini"] {
        let mut out = Vec::new();
        let code = crate::run(
            ["payload", "schema", "note", "--dialect", dialect],
            &registry,
            &mut out,
        )
        .unwrap();
        assert_eq!(code, std::process::ExitCode::SUCCESS);
        let schema: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(schema["additionalProperties"], false, "{dialect}: {schema}");
        assert_eq!(schema["required"], serde_json::json!(["text"]));
    }
}
