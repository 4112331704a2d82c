//! The Anthropic client against a loopback server replaying recorded streams: what it
//! sends, and what a real agent turn makes of what comes back.

use crate::support::*;
use payload_agent::{ModelErrorKind, ModelMessage};
use payload_builtin::SchemaProposal;
use payload_core::{ErrorKind, retry::RetryPolicy};
use payload_providers::Anthropic;
use serde_json::json;
use std::time::{Duration, Instant};

fn client(server: &Server) -> Anthropic {
    Anthropic::with_config(test_config(&server.url, "claude-sonnet-4-5", "sk-ant-test"))
}

#[tokio::test]
async fn a_marker_split_across_deltas_becomes_the_turns_payload() {
    let server = Server::start(vec![stream("anthropic/schema_proposal.sse")]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_schema_proposal_turn(&events);

    let [request] = server.received().try_into().unwrap();
    assert_eq!(request.line, "POST /v1/messages HTTP/1.1");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    let body = &request.body;
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["stream"], true);
    assert_eq!(body["system"], SYSTEM);
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "Drop column two"}])
    );
    assert_eq!(body["tools"][0]["name"], "echo");
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["text"])
    );
    assert!(body.get("tool_choice").is_none());
}

#[tokio::test]
async fn thinking_blocks_are_reasoning_never_the_payload() {
    // A thinking block (with its signature), a redacted one, then the text answer.
    let server = Server::start(vec![stream("anthropic/thinking.sse")]);
    let events = turn(&mut client(&server)).await;
    assert_reasoning_turn(&events);
}

#[tokio::test]
async fn a_tool_call_split_across_deltas_runs_and_the_model_is_called_again() {
    let server = Server::start(vec![
        stream("anthropic/tool_call.sse"),
        stream("anthropic/after_tool.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_echo_tool_turn(&events, "toolu_01A09q90");
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[1].body["messages"],
        json!([
            {"role": "user", "content": "Drop column two"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_01A09q90", "name": "echo", "input": {"text": "hi"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A09q90", "content": "echo: hi"},
            ]},
        ])
    );
}

#[tokio::test]
async fn thinking_blocks_go_back_unchanged_with_the_tool_results() {
    // Anthropic refuses tool results whose answer's signed thinking blocks are not sent
    // back before its tool calls, byte for byte.
    let server = Server::start(vec![
        stream("anthropic/thinking_tool_call.sse"),
        stream("anthropic/after_tool.sse"),
    ]);
    let mut model = client(&server).thinking_budget(2048);
    let events = turn(&mut model).await;
    assert_echo_tool_turn(&events, "toolu_01A09q90");
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[1].body["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "The user wants column two dropped. I should echo first.", "signature": "EqQBCgIYAhIM1gbcDa9G"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_01A09q90", "name": "echo", "input": {"text": "hi"}},
        ]})
    );
    // What the model thought is still only reasoning: never the message.
    assert!(!completed(&events).message.contains("echo first"));
}

#[test]
fn another_providers_replayed_blocks_are_not_sent() {
    let request = payload_agent::ModelRequest::new(vec![
        ModelMessage::user("hi"),
        ModelMessage::Assistant {
            text: "Hello.".to_string(),
            tool_calls: Vec::new(),
            replay: vec![payload_agent::ReplayBlock {
                provider: "other".to_string(),
                block: json!({"type": "thinking", "thinking": "x", "signature": "s"}),
            }],
        },
    ]);
    let body = Anthropic::new("m").body(&request);
    assert_eq!(
        body["messages"][1],
        json!({"role": "assistant", "content": "Hello."})
    );
}

#[test]
fn consecutive_tool_results_share_one_user_message() {
    let call = |id: &str| payload_agent::ToolCall {
        id: id.to_string(),
        name: "echo".to_string(),
        input: json!({"text": id}),
    };
    let result = |id: &str| ModelMessage::Tool {
        id: id.to_string(),
        name: "echo".to_string(),
        text: format!("echo: {id}"),
    };
    let request = payload_agent::ModelRequest::new(vec![
        ModelMessage::user("twice"),
        ModelMessage::Assistant {
            text: String::new(),
            tool_calls: vec![call("a"), call("b")],
            replay: Vec::new(),
        },
        result("a"),
        result("b"),
    ]);
    let body = Anthropic::new("m").body(&request);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[1]["content"].as_array().unwrap().len(),
        2,
        "no empty text block"
    );
    let results: Vec<&str> = messages[2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["a", "b"]);
}

#[tokio::test]
async fn a_stream_cut_by_max_tokens_leaves_the_payload_truncated() {
    let server = Server::start(vec![stream("anthropic/max_tokens.sse")]);
    let mut model = client(&server).max_tokens(16);
    let events = turn(&mut model).await;
    let parsed = completed(&events);
    assert!(parsed.custom_payload.is_none());
    assert!(
        rejected_kinds(&events).contains(&ErrorKind::Truncated),
        "{:?}",
        parsed.rejected
    );
    assert_eq!(server.received().len(), 1, "a cut answer is not re-asked");
    assert_eq!(server.received()[0].body["max_tokens"], 16);
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after() {
    let server = Server::start(vec![
        Reply::Status(
            429,
            vec![("retry-after", "0.2".to_string())],
            r#"{"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"}}"#.to_string(),
        ),
        stream("anthropic/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let started = Instant::now();
    let events = turn(&mut model).await;
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "waited as asked"
    );
    assert!(completed(&events).custom_payload.is_some());
    let attempts = model.attempts();
    assert_eq!(attempts.len(), 2);
    let error = attempts[0].error.as_ref().unwrap();
    assert_eq!(
        (error.kind, error.status),
        (ModelErrorKind::RateLimited, Some(429))
    );
    assert!(error.message.contains("rate limit"));
}

#[tokio::test]
async fn a_500_and_an_overloaded_event_before_content_are_retried() {
    let server = Server::start(vec![
        Reply::Status(
            500,
            vec![],
            r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#
                .to_string(),
        ),
        stream("anthropic/overloaded_first.sse"),
        stream("anthropic/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert!(errors(&events).is_empty());
    assert!(completed(&events).custom_payload.is_some());
    let attempts = model.attempts();
    let kinds: Vec<_> = attempts
        .iter()
        .map(|a| a.error.as_ref().map(|e| e.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            Some(ModelErrorKind::Server),
            Some(ModelErrorKind::Server),
            None
        ]
    );
    assert_eq!(attempts[1].error.as_ref().unwrap().message, "Overloaded");
}

#[tokio::test]
async fn a_drop_before_content_is_retried_and_after_content_ends_the_turn() {
    let server = Server::start(vec![
        stream("anthropic/cut_before_content.sse"),
        stream("anthropic/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert!(errors(&events).is_empty());
    assert_eq!(completed(&events).message, "I'll drop the unused column.");
    assert_eq!(model.attempts().len(), 2);

    let server = Server::start(vec![
        stream("anthropic/cut_after_content.sse"),
        stream("anthropic/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_eq!(
        names(&events),
        ["status", "text_delta", "error", "complete"]
    );
    assert_eq!(completed(&events).message, "Partial answer so far");
    assert_eq!(server.received().len(), 1, "shown text is never retried");
}

#[tokio::test]
async fn an_error_event_after_content_ends_the_turn_with_an_error_event() {
    let server = Server::start(vec![stream("anthropic/error_event.sse")]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_eq!(
        names(&events),
        ["status", "text_delta", "error", "complete"]
    );
    assert_eq!(errors(&events), ["Overloaded"]);
    assert_eq!(completed(&events).message, "Working on");
}

#[tokio::test]
async fn a_server_that_stops_mid_stream_times_out_instead_of_hanging() {
    // The stream up to its second text delta: some text came, then nothing.
    let recorded = String::from_utf8(fixture("anthropic/cut_after_content.sse")).unwrap();
    let second = recorded.rfind("event: content_block_delta").unwrap();
    let server = Server::start(vec![Reply::Hang(recorded.as_bytes()[..second].to_vec())]);
    let mut model = client(&server);
    let started = Instant::now();
    let events = turn(&mut model).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        names(&events),
        ["status", "text_delta", "error", "complete"]
    );
    assert!(
        errors(&events)[0].contains("nothing for 300 ms after its last content (idle timeout)"),
        "{:?}",
        errors(&events)
    );
    assert_eq!(completed(&events).message, "Partial ans");
    let attempts = model.attempts();
    assert_eq!(attempts.len(), 1, "text was shown: no retry");
    let error = attempts[0].error.as_ref().unwrap();
    assert_eq!(error.kind, ModelErrorKind::Timeout);
}

#[tokio::test]
async fn whole_response_extraction_forces_the_output_tool_and_reads_its_input() {
    let server = Server::start(vec![stream("anthropic/json_answer.sse")]);
    let mut model = client(&server);
    let (value, outcome) = payload_providers::extract::<SchemaProposal>(
        &mut model,
        vec![ModelMessage::user("Remove column nine")],
        RetryPolicy::attempts(2),
    )
    .await;
    assert!(outcome.succeeded(), "{:?}", outcome.attempts);
    assert_eq!(outcome.attempts.len(), 1);
    assert!(outcome.attempts[0].response.contains("col_9"));
    assert_eq!(value.expect("a typed value").operations.len(), 1);
    let body = &server.received()[0].body;
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "schema_proposal"})
    );
    let tool = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "schema_proposal")
        .expect("the output tool");
    // The type's own schema (no native form), wrapped in `value` when its root is a
    // union, as tool mode sends it.
    let output =
        payload_providers::structured_output(&<SchemaProposal as payload_core::LlmPayload>::TYPE);
    assert!(!output.strict);
    assert_eq!(tool["input_schema"], output.schema);
}

#[tokio::test]
async fn whole_response_native_sends_output_config_and_reads_the_text() {
    let server = Server::start(vec![stream("anthropic/native_answer.sse")]);
    let (note, outcome) =
        extract_note(&mut client(&server), payload_agent::OutputMode::Auto, 1).await;
    assert_eq!(note, Some(groceries()), "{outcome:?}");
    let body = &server.received()[0].body;
    let format = &body["output_config"]["format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["schema"]["additionalProperties"], false);
    assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
}

#[tokio::test]
async fn whole_response_tool_mode_sends_a_strict_output_tool() {
    let server = Server::start(vec![stream("anthropic/json_answer.sse")]);
    let mut model = client(&server);
    let mut request =
        payload_agent::ModelRequest::new(vec![ModelMessage::user("Remove column nine")]);
    request.system = "Propose.".into();
    let options = payload_providers::ExtractOptions::new(RetryPolicy::attempts(1))
        .mode(payload_agent::OutputMode::Tool);
    let extraction =
        payload_providers::extract_in::<SchemaProposal>(&mut model, request, options).await;
    assert!(extraction.value.is_some());
    // A type with a strict schema gets a strict output tool.
    let note = Anthropic::new("claude-sonnet-4-5").body(&{
        let mut request = payload_agent::ModelRequest::new(vec![]);
        let mut output =
            payload_providers::structured_output(&<Note as payload_core::LlmPayload>::TYPE);
        output.mode = payload_agent::OutputMode::Tool;
        request.output = Some(output);
        request
    });
    assert_eq!(note["tools"][0]["strict"], true);
    assert_eq!(note["tool_choice"], json!({"type": "tool", "name": "note"}));
    // A model before structured outputs gets the tool in auto mode.
    let old = Anthropic::new("claude-3-5-haiku-latest").body(&{
        let mut request = payload_agent::ModelRequest::new(vec![]);
        request.output = Some(payload_providers::structured_output(
            &<Note as payload_core::LlmPayload>::TYPE,
        ));
        request
    });
    assert!(old.get("output_config").is_none());
    assert_eq!(old["tool_choice"]["name"], "note");
}

#[tokio::test]
async fn a_refusal_stop_is_a_refusal_event_and_extraction_stops_with_it() {
    let server = Server::start(vec![stream("anthropic/refusal.sse")]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(
        names(&events),
        ["status", "text_delta", "refusal", "complete"]
    );
    assert_eq!(server.received().len(), 1, "a refusal is not re-asked");

    let server = Server::start(vec![stream("anthropic/refusal.sse")]);
    let (note, outcome) =
        extract_note(&mut client(&server), payload_agent::OutputMode::Auto, 3).await;
    assert!(note.is_none());
    assert_eq!(
        outcome.model_error.as_ref().map(|e| e.kind),
        Some(ModelErrorKind::Refused)
    );
    assert_eq!(server.received().len(), 1, "a refusal is not re-asked");
}

#[test]
fn extended_thinking_is_sent_with_its_budget_and_without_forcing_a_tool() {
    let mut request = payload_agent::ModelRequest::new(vec![ModelMessage::user("hi")]);
    let mut output =
        payload_providers::structured_output(&<Note as payload_core::LlmPayload>::TYPE);
    output.mode = payload_agent::OutputMode::Tool;
    request.output = Some(output);
    let body = Anthropic::new("claude-sonnet-4-5")
        .max_tokens(1000)
        .temperature(0.2)
        .thinking_budget(2048)
        .body(&request);
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(body["max_tokens"], 3048, "the answer keeps its room");
    assert!(body.get("temperature").is_none());
    assert!(body.get("tool_choice").is_none());
}
