//! The Gemini client against a loopback server replaying the API's documented
//! `streamGenerateContent?alt=sse` chunks (CRLF-delimited, no end marker): what it
//! sends, and what a real agent turn makes of what comes back.

use crate::support::*;
use payload_agent::{ModelErrorKind, OutputMode};
use payload_core::ErrorKind;
use payload_providers::Gemini;
use serde_json::json;
use std::time::{Duration, Instant};

fn client(server: &Server) -> Gemini {
    Gemini::with_config(test_config(&server.url, "gemini-2.5-flash", "gm-test-key"))
}

#[tokio::test]
async fn a_marker_split_across_chunks_becomes_the_turns_payload() {
    let server = Server::start(vec![stream("gemini/schema_proposal.sse")]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_schema_proposal_turn(&events);
    let [request] = server.received().try_into().unwrap();
    assert_eq!(
        request.line,
        "POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse HTTP/1.1"
    );
    assert_eq!(request.header("x-goog-api-key"), Some("gm-test-key"));
    assert_eq!(request.header("authorization"), None);
    let body = &request.body;
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": SYSTEM}]})
    );
    assert_eq!(
        body["contents"],
        json!([{"role": "user", "parts": [{"text": "Drop column two"}]}])
    );
    let echo = &body["tools"][0]["functionDeclarations"][0];
    assert_eq!(echo["name"], "echo");
    assert_eq!(echo["parametersJsonSchema"]["required"], json!(["text"]));
    assert_eq!(body["generationConfig"], json!({}));
    let usage = model.attempts();
    assert_eq!(usage.len(), 1);
}

#[tokio::test]
async fn thought_parts_are_reasoning_never_the_payload() {
    let server = Server::start(vec![stream("gemini/reasoning.sse")]);
    let mut model = client(&server).thinking_budget(1024);
    let events = turn(&mut model).await;
    assert_reasoning_turn(&events);
    assert_eq!(
        server.received()[0].body["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingBudget": 1024})
    );
}

#[tokio::test]
async fn a_function_call_runs_and_goes_back_with_its_thought_signature() {
    let server = Server::start(vec![
        stream("gemini/tool_call.sse"),
        stream("gemini/after_tool.sse"),
    ]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(
        completed(&events).message,
        "Let me check.\n\nIt echoed col_2."
    );
    assert!(names(&events).contains(&"tool_complete"));
    let second = &server.received()[1].body;
    assert_eq!(
        second["contents"],
        json!([
            {"role": "user", "parts": [{"text": "Drop column two"}]},
            {"role": "model", "parts": [
                {"text": "Let me check."},
                {"functionCall": {"name": "echo", "args": {"text": "col_2"}}, "thoughtSignature": "CiQBVKhc7vB"},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "echo", "response": {"result": "echo: col_2"}}},
            ]},
        ])
    );
}

#[tokio::test]
async fn a_content_filter_stop_is_an_outcome_never_an_empty_answer_or_a_reask() {
    assert_content_filter_outcome(
        "gemini/safety.sse",
        client,
        "The provider's content filter stopped the answer (SAFETY).",
    )
    .await;
}

#[tokio::test]
async fn a_blocked_prompt_is_the_content_filter_outcome() {
    let server = Server::start(vec![stream("gemini/blocked.sse")]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(names(&events), ["status", "refusal", "complete"]);
    assert_eq!(
        outcomes(&events),
        [(
            payload_agent::RefusalReason::ContentFilter,
            "The provider blocked the prompt (PROHIBITED_CONTENT)."
        )]
    );
}

#[tokio::test]
async fn max_tokens_leaves_the_payload_truncated() {
    let server = Server::start(vec![stream("gemini/max_tokens.sse")]);
    let mut model = client(&server).max_tokens(16);
    let events = turn(&mut model).await;
    assert!(rejected_kinds(&events).contains(&ErrorKind::Truncated));
    assert_eq!(
        server.received()[0].body["generationConfig"]["maxOutputTokens"],
        16
    );
}

#[tokio::test]
async fn an_error_mid_stream_ends_the_turn_and_a_429_waits_for_retry_after() {
    let server = Server::start(vec![stream("gemini/error_event.sse")]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(
        names(&events),
        ["status", "text_delta", "error", "complete"]
    );
    assert_eq!(
        errors(&events),
        ["The model is overloaded. Please try again later."]
    );

    let server = Server::start(vec![
        Reply::Status(
            429,
            vec![("retry-after", "0.2".to_string())],
            r#"{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}"#.to_string(),
        ),
        stream("gemini/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let started = Instant::now();
    let events = turn(&mut model).await;
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert!(completed(&events).custom_payload.is_some());
    let first = model.attempts()[0].error.clone().unwrap();
    assert_eq!(first.kind, ModelErrorKind::RateLimited);
    assert!(first.message.contains("Resource has been exhausted"));
}

#[tokio::test]
async fn whole_response_native_sends_response_json_schema() {
    let server = Server::start(vec![stream("gemini/json_answer.sse")]);
    let (note, outcome) = extract_note(&mut client(&server), OutputMode::Native, 1).await;
    assert_eq!(note, Some(groceries()), "{outcome:?}");
    let config = &server.received()[0].body["generationConfig"];
    assert_eq!(config["responseMimeType"], "application/json");
    assert_eq!(config["responseJsonSchema"]["additionalProperties"], false);
}

#[tokio::test]
async fn whole_response_tool_mode_forces_the_output_function() {
    let server = Server::start(vec![stream("gemini/tool_answer.sse")]);
    let (note, outcome) = extract_note(&mut client(&server), OutputMode::Tool, 1).await;
    assert_eq!(note, Some(groceries()), "{outcome:?}");
    let body = &server.received()[0].body;
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["note"]}})
    );
    assert_eq!(body["tools"][0]["functionDeclarations"][0]["name"], "note");
}

#[tokio::test]
async fn whole_response_prompted_mode_asks_for_json_without_a_schema() {
    let server = Server::start(vec![stream("gemini/json_answer.sse")]);
    let (note, _) = extract_note(&mut client(&server), OutputMode::Prompted, 1).await;
    assert_eq!(note, Some(groceries()));
    let config = &server.received()[0].body["generationConfig"];
    assert_eq!(config, &json!({"responseMimeType": "application/json"}));
}

#[test]
fn gemini_2_with_tools_on_the_page_gets_the_output_function_not_a_json_format() {
    let mut request = payload_agent::ModelRequest::new(vec![]);
    request.tools = vec![payload_agent::ToolSpec {
        name: "echo".into(),
        description: "Echo".into(),
        input_schema: json!({"type": "object"}),
    }];
    request.output = Some(payload_providers::structured_output(
        &<Note as payload_core::LlmPayload>::TYPE,
    ));
    let old = Gemini::new("gemini-2.5-pro").body(&request);
    assert!(old["generationConfig"].get("responseJsonSchema").is_none());
    assert_eq!(old["toolConfig"]["functionCallingConfig"]["mode"], "ANY");
    assert!(
        old["toolConfig"]["functionCallingConfig"]
            .get("allowedFunctionNames")
            .is_none()
    );
    let new = Gemini::new("gemini-3-pro-preview").body(&request);
    assert!(new["generationConfig"].get("responseJsonSchema").is_some());
    assert!(new.get("toolConfig").is_none());
}
