//! The OpenAI-compatible client against a loopback server replaying recorded streams:
//! what it sends, and what a real agent turn makes of what comes back.

use crate::support::*;
use payload_agent::{ModelErrorKind, ModelMessage};
use payload_builtin::SchemaProposal;
use payload_core::{ErrorKind, retry::RetryPolicy};
use payload_providers::OpenAi;
use serde_json::json;
use std::time::{Duration, Instant};

fn client(server: &Server) -> OpenAi {
    OpenAi::with_config(test_config(
        format!("{}/v1", server.url),
        "gpt-4o-mini",
        "sk-test",
    ))
}

#[tokio::test]
async fn a_marker_split_across_deltas_becomes_the_turns_payload() {
    let server = Server::start(vec![stream("openai/schema_proposal.sse")]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_schema_proposal_turn(&events);

    let [request] = server.received().try_into().unwrap();
    assert_eq!(request.line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
    let body = &request.body;
    assert_eq!(body["model"], "gpt-4o-mini");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": SYSTEM})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Drop column two"})
    );
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "echo");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["text"])
    );
    assert!(body.get("response_format").is_none());
    let attempts = model.attempts();
    assert_eq!(attempts.len(), 1);
    assert_eq!((attempts[0].status, &attempts[0].error), (Some(200), &None));
}

#[tokio::test]
async fn reasoning_content_and_reasoning_deltas_are_reasoning_never_the_payload() {
    // DeepSeek (and llama.cpp, SGLang) name it `reasoning_content`; vLLM and OpenRouter
    // `reasoning`; a server without a reasoning parser leaves `<think>` in the content.
    for recorded in [
        "openai/deepseek_reasoning.sse",
        "openai/vllm_reasoning.sse",
        "openai/inline_think.sse",
    ] {
        let server = Server::start(vec![stream(recorded)]);
        let events = turn(&mut client(&server)).await;
        assert_reasoning_turn(&events);
    }
}

#[tokio::test]
async fn a_tool_call_split_across_deltas_runs_and_the_model_is_called_again() {
    let server = Server::start(vec![
        stream("openai/tool_call.sse"),
        stream("openai/after_tool.sse"),
    ]);
    let mut model = client(&server).no_api_key();
    let events = turn(&mut model).await;
    assert_echo_tool_turn(&events, "call_Ab12");
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[0].header("authorization"),
        None,
        "no key, no header"
    );
    let messages = &received[1].body["messages"];
    assert_eq!(
        messages[2],
        json!({
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [{
                "id": "call_Ab12",
                "type": "function",
                "function": {"name": "echo", "arguments": "{\"text\":\"hi\"}"},
            }],
        })
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_Ab12", "content": "echo: hi"})
    );
}

#[tokio::test]
async fn a_stream_cut_by_max_tokens_leaves_the_payload_truncated() {
    let server = Server::start(vec![stream("openai/max_tokens.sse")]);
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
            r#"{"error": {"message": "Rate limit reached", "type": "requests"}}"#.to_string(),
        ),
        stream("openai/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let started = Instant::now();
    let events = turn(&mut model).await;
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "waited as asked"
    );
    assert!(completed(&events).custom_payload.is_some());
    assert!(errors(&events).is_empty());
    let attempts = model.attempts();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].status, Some(429));
    let error = attempts[0].error.as_ref().unwrap();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
    assert_eq!(error.message, "Rate limit reached");
    assert_eq!(error.retry_after, Some(Duration::from_millis(200)));
    assert_eq!(attempts[1].status, Some(200));
}

#[tokio::test]
async fn a_500_is_retried_and_a_400_is_not() {
    let server = Server::start(vec![
        Reply::Status(500, vec![], "upstream failed".to_string()),
        stream("openai/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert!(completed(&events).custom_payload.is_some());
    let statuses: Vec<_> = model.attempts().iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(500), Some(200)]);

    let server = Server::start(vec![Reply::Status(
        400,
        vec![],
        r#"{"error": {"message": "Unknown model: gpt-nope", "type": "invalid_request_error"}}"#
            .to_string(),
    )]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_eq!(errors(&events), ["Unknown model: gpt-nope (HTTP 400)"]);
    assert_eq!(model.attempts().len(), 1);
    assert_eq!(completed(&events).message, "");
}

#[tokio::test]
async fn a_drop_before_content_is_retried_and_after_content_ends_the_turn() {
    let server = Server::start(vec![
        stream("openai/cut_before_content.sse"),
        stream("openai/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert!(errors(&events).is_empty());
    assert_eq!(completed(&events).message, "I'll drop the unused column.");
    let attempts = model.attempts();
    assert_eq!(
        attempts[0].error.as_ref().unwrap().kind,
        ModelErrorKind::Connection
    );
    assert!(!attempts[0].content);

    let server = Server::start(vec![
        stream("openai/cut_after_content.sse"),
        stream("openai/schema_proposal.sse"),
    ]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_eq!(
        names(&events),
        ["status", "text_delta", "error", "complete"]
    );
    assert_eq!(completed(&events).message, "Partial answer so far");
    assert_eq!(server.received().len(), 1, "shown text is never retried");
    assert!(model.attempts()[0].content);
}

#[tokio::test]
async fn an_error_object_in_the_stream_ends_the_turn_with_an_error_event() {
    let server = Server::start(vec![stream("openai/error_event.sse")]);
    let mut model = client(&server);
    let events = turn(&mut model).await;
    assert_eq!(
        names(&events),
        ["status", "text_delta", "error", "complete"]
    );
    assert!(errors(&events)[0].starts_with("The server had an error"));
    assert_eq!(completed(&events).message, "Working on");
}

#[tokio::test]
async fn a_hanging_server_times_out_and_is_not_sent_the_request_again() {
    let server = Server::start(vec![Reply::Hang(Vec::new()), Reply::Hang(Vec::new())]);
    let mut model = client(&server)
        .retry(quick_retry(2))
        .first_token_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let events = turn(&mut model).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(names(&events), ["status", "error", "complete"]);
    let attempts = model.attempts();
    assert_eq!(
        attempts.len(),
        1,
        "the server may still be working on it: no re-send"
    );
    assert_eq!(server.received().len(), 1);
    let error = attempts[0].error.as_ref().unwrap();
    assert_eq!(error.kind, ModelErrorKind::Timeout);
    assert!(
        error
            .message
            .contains("the response headers came, then nothing: no content for 300 ms"),
        "{error}"
    );
}

#[tokio::test]
async fn whole_response_extraction_asks_for_json_and_reads_the_type() {
    let server = Server::start(vec![stream("openai/json_answer.sse")]);
    let mut model = client(&server);
    let (value, outcome) = payload_providers::extract::<SchemaProposal>(
        &mut model,
        vec![ModelMessage::user("Remove column nine")],
        RetryPolicy::attempts(2),
    )
    .await;
    assert!(outcome.succeeded(), "{:?}", outcome.attempts);
    let value = value.expect("a typed value");
    assert_eq!(value.operations.len(), 1);
    let body = &server.received()[0].body;
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("JSON"),
        "JSON mode needs the word JSON in the prompt"
    );
}

#[test]
fn a_strict_output_is_sent_as_a_json_schema() {
    let mut request = payload_agent::ModelRequest::new(vec![ModelMessage::user("hi")]);
    let output = payload_providers::structured_output(&<Note as payload_core::LlmPayload>::TYPE);
    request.output = Some(output.clone());
    let body = OpenAi::new("m").body(&request);
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "note");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        output.native["openai-strict"]
    );
}

#[tokio::test]
async fn a_grammar_is_sent_where_the_server_reads_it_and_only_in_marker_mode() {
    use payload_providers::Constraint;
    let cases = [
        (
            Constraint::Lark("start: TEXT".into()),
            "/structured_outputs/grammar",
            json!("start: TEXT"),
        ),
        (
            Constraint::Gbnf("root ::= \"x\"".into()),
            "/grammar",
            json!("root ::= \"x\""),
        ),
        (
            Constraint::StructuralTag(
                json!({"type": "structural_tag", "structures": [], "triggers": []}),
            ),
            "/response_format/type",
            json!("structural_tag"),
        ),
    ];
    for (constraint, pointer, expected) in cases {
        let server = Server::start(vec![stream("openai/schema_proposal.sse")]);
        let model = client(&server).constrain(constraint);
        turn(model).await;
        let [request] = server.received().try_into().unwrap();
        assert_eq!(
            request.body.pointer(pointer),
            Some(&expected),
            "{}",
            request.body
        );
    }
    // Whole-response mode keeps its own response_format.
    let model = OpenAi::new("m").constrain(Constraint::Gbnf("root ::= \"x\"".into()));
    let mut request = payload_agent::ModelRequest::new(vec![ModelMessage::user("hi")]);
    request.output = Some(payload_providers::structured_output(
        &<SchemaProposal as payload_core::LlmPayload>::TYPE,
    ));
    assert!(model.body(&request).get("grammar").is_none());
}

#[tokio::test]
async fn whole_response_tool_mode_forces_the_output_function_and_reads_its_arguments() {
    let server = Server::start(vec![stream("openai/tool_answer.sse")]);
    let (note, outcome) =
        extract_note(&mut client(&server), payload_agent::OutputMode::Tool, 1).await;
    assert_eq!(note, Some(groceries()), "{outcome:?}");
    let body = &server.received()[0].body;
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "note"}})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "note");
    assert_eq!(body["tools"][0]["function"]["strict"], true);
    assert!(body.get("response_format").is_none());
}

#[tokio::test]
async fn a_content_filter_stop_is_an_outcome_never_an_empty_answer_or_a_reask() {
    assert_content_filter_outcome(
        "openai/content_filter.sse",
        client,
        "The provider's content filter stopped the answer.",
    )
    .await;
}

#[tokio::test]
async fn a_refusal_field_is_a_refusal_event() {
    let refusal = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I'm sorry, I can't \"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"help with that.\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let server = Server::start(vec![Reply::Stream(refusal.into())]);
    let events = turn(&mut client(&server)).await;
    assert_eq!(names(&events), ["status", "refusal", "complete"]);
    assert_eq!(refusals(&events), ["I'm sorry, I can't help with that."]);
}
