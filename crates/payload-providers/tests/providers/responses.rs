//! The OpenAI Responses client against a loopback server replaying the API's documented
//! event sequences: what it sends, and what a real agent turn makes of what comes back.

use crate::support::*;
use payload_agent::{ModelErrorKind, OutputMode};
use payload_core::ErrorKind;
use payload_providers::OpenAiResponses;
use serde_json::json;
use std::time::{Duration, Instant};

fn client(server: &Server) -> OpenAiResponses {
    OpenAiResponses::with_config(test_config(
        format!("{}/v1", server.url),
        "gpt-5-mini",
        "sk-test",
    ))
}

#[tokio::test]
async fn a_marker_split_across_text_deltas_becomes_the_turns_payload() {
    let server = Server::start(vec![stream("responses/schema_proposal.sse")]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_schema_proposal_turn(&events);
    let [request] = server.received().try_into().unwrap();
    assert_eq!(request.line, "POST /v1/responses HTTP/1.1");
    assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
    let body = &request.body;
    assert_eq!(body["model"], "gpt-5-mini");
    assert_eq!(
        (&body["stream"], &body["store"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(body["instructions"], SYSTEM);
    assert_eq!(
        body["input"],
        json!([{"type": "message", "role": "user", "content": "Drop column two"}])
    );
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["name"], "echo");
    assert!(body.get("text").is_none() && body.get("tool_choice").is_none());
    assert!(
        body.get("include").is_none(),
        "no reasoning, nothing to include"
    );
}

#[tokio::test]
async fn reasoning_summaries_are_reasoning_never_the_payload() {
    let server = Server::start(vec![stream("responses/reasoning.sse")]);
    let mut model = client(&server).reasoning_effort("low");
    let events = turn(&mut model).await;
    assert_reasoning_turn(&events);
    assert_eq!(
        server.received()[0].body["reasoning"],
        json!({"effort": "low", "summary": "auto"})
    );
}

#[tokio::test]
async fn a_function_call_in_pieces_runs_and_its_output_goes_back() {
    let server = Server::start(vec![
        stream("responses/tool_call.sse"),
        stream("responses/after_tool.sse"),
    ]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(
        names(&events),
        [
            "status",
            "text_delta",
            "tool_start",
            "tool_complete",
            "status",
            "text_delta",
            "complete"
        ]
    );
    assert_eq!(
        completed(&events).message,
        "Let me check.\n\nIt echoed col_2."
    );
    let second = &server.received()[1].body;
    assert_eq!(
        second["input"],
        json!([
            {"type": "message", "role": "user", "content": "Drop column two"},
            {"type": "message", "role": "assistant", "content": "Let me check."},
            {"type": "function_call", "call_id": "call_7", "name": "echo", "arguments": "{\"text\":\"col_2\"}"},
            {"type": "function_call_output", "call_id": "call_7", "output": "echo: col_2"},
        ])
    );
}

#[tokio::test]
async fn reasoning_items_go_back_encrypted_before_the_answer_they_led_to() {
    // Nothing is stored (`store: false`), so a reasoning model's next request after its
    // tool calls carries its reasoning items as they came, encrypted.
    let server = Server::start(vec![
        stream("responses/reasoning_tool_call.sse"),
        stream("responses/after_tool.sse"),
    ]);
    let mut model = client(&server).reasoning_effort("low");
    let events = turn(&mut model).await;
    assert_eq!(
        completed(&events).message,
        "Let me check.\n\nIt echoed col_2."
    );
    let received = server.received();
    assert_eq!(
        received[0].body["include"],
        json!(["reasoning.encrypted_content"])
    );
    assert_eq!(
        received[1].body["input"],
        json!([
            {"type": "message", "role": "user", "content": "Drop column two"},
            {"id": "rs_9", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Echo it first."}], "encrypted_content": "gAAAAABpF9xQ"},
            {"type": "message", "role": "assistant", "content": "Let me check."},
            {"type": "function_call", "call_id": "call_7", "name": "echo", "arguments": "{\"text\":\"col_2\"}"},
            {"type": "function_call_output", "call_id": "call_7", "output": "echo: col_2"},
        ])
    );
}

#[tokio::test]
async fn a_content_filter_stop_is_an_outcome_never_an_empty_answer_or_a_reask() {
    assert_content_filter_outcome(
        "responses/content_filter.sse",
        client,
        "The provider's content filter stopped the answer.",
    )
    .await;
}

#[tokio::test]
async fn a_refusal_is_a_refusal_event_never_text() {
    let server = Server::start(vec![stream("responses/refusal.sse")]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(names(&events), ["status", "refusal", "complete"]);
    assert_eq!(refusals(&events), ["I'm sorry, I can't help with that."]);
    assert_eq!(completed(&events).message, "");
    assert_eq!(server.received().len(), 1, "a refusal is not re-asked");
}

#[tokio::test]
async fn an_incomplete_response_at_max_output_tokens_leaves_the_payload_truncated() {
    let server = Server::start(vec![stream("responses/max_tokens.sse")]);
    let mut model = client(&server).max_tokens(16);
    let events = turn(&mut model).await;
    assert!(completed(&events).custom_payload.is_none());
    assert!(rejected_kinds(&events).contains(&ErrorKind::Truncated));
    assert_eq!(server.received().len(), 1, "a cut answer is not re-asked");
    assert_eq!(server.received()[0].body["max_output_tokens"], 16);
}

#[tokio::test]
async fn an_error_event_mid_stream_and_a_failed_response_are_errors() {
    let server = Server::start(vec![stream("responses/error_event.sse")]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(
        names(&events),
        ["status", "text_delta", "error", "complete"]
    );
    assert_eq!(
        errors(&events),
        ["The server had an error while processing your request."]
    );
    assert_eq!(completed(&events).message, "I'll drop");

    // A failure before any content, for a rate limit, is retried.
    let server = Server::start(vec![
        stream("responses/failed.sse"),
        stream("responses/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert!(errors(&events).is_empty(), "{:?}", errors(&events));
    let first = model.attempts()[0].error.clone().unwrap();
    assert_eq!(first.kind, ModelErrorKind::RateLimited);
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after() {
    let server = Server::start(vec![
        Reply::Status(
            429,
            vec![("retry-after", "0.2".to_string())],
            r#"{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}"#.to_string(),
        ),
        stream("responses/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let started = Instant::now();
    let events = turn(&mut model).await;
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert!(completed(&events).custom_payload.is_some());
    assert_eq!(model.attempts().len(), 2);
}

#[tokio::test]
async fn whole_response_native_sends_a_strict_text_format_and_reads_the_text() {
    let server = Server::start(vec![stream("responses/json_answer.sse")]);
    let (note, outcome) = extract_note(&mut client(&server), OutputMode::Auto, 1).await;
    assert_eq!(note, Some(groceries()), "{outcome:?}");
    let body = &server.received()[0].body;
    let format = &body["text"]["format"];
    assert_eq!(
        (&format["type"], &format["name"]),
        (&json!("json_schema"), &json!("note"))
    );
    assert_eq!(format["strict"], true);
    assert_eq!(format["schema"]["additionalProperties"], false);
    assert!(body.get("tools").is_none());
}

#[tokio::test]
async fn whole_response_tool_mode_forces_the_output_function_and_reads_its_arguments() {
    let server = Server::start(vec![stream("responses/tool_answer.sse")]);
    let (note, outcome) = extract_note(&mut client(&server), OutputMode::Tool, 1).await;
    assert_eq!(note, Some(groceries()), "{outcome:?}");
    let body = &server.received()[0].body;
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "name": "note"})
    );
    assert_eq!(body["tools"][0]["name"], "note");
    assert_eq!(body["tools"][0]["strict"], true);
    assert!(body.get("text").is_none());
}

#[tokio::test]
async fn whole_response_prompted_mode_asks_for_json_only() {
    let server = Server::start(vec![stream("responses/json_answer.sse")]);
    let (note, _) = extract_note(&mut client(&server), OutputMode::Prompted, 1).await;
    assert_eq!(note, Some(groceries()));
    let body = &server.received()[0].body;
    assert_eq!(body["text"], json!({"format": {"type": "json_object"}}));
}

#[tokio::test]
async fn a_lark_grammar_is_a_custom_tool_whose_input_is_the_answer() {
    let lark = "start: TEXT\nTEXT: /(.|\\n)+/";
    let server = Server::start(vec![stream("responses/grammar_answer.sse")]);
    let mut model = client(&server).grammar(lark);
    let events = turn(&mut model).await;
    assert_schema_proposal_turn(&events);
    let body = &server.received()[0].body;
    let tool = &body["tools"][1];
    assert_eq!(
        (&tool["type"], &tool["name"]),
        (&json!("custom"), &json!("answer"))
    );
    assert_eq!(
        tool["format"],
        json!({"type": "grammar", "syntax": "lark", "definition": lark})
    );
    // The page's echo tool stays callable: any tool, not only the answer.
    assert_eq!(body["tool_choice"], "required");
}
