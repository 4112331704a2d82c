//! What the provider tests share: the workspace's loopback server (payload-loopback)
//! replaying recorded streams byte for byte, the page and tool the agent turns run
//! with, and helpers to read a turn's events.

#![allow(dead_code)]

use payload_agent::{AgentEvent, Tool, ToolContext, ToolResult};
use payload_builtin::SchemaProposal;
use payload_core::stream::StreamEvent;
use payload_core::{LlmPayload, ParsedResponse, stream::sse::ServerSentEvent};
use payload_providers::{ClientConfig, NetworkRetry};
use payload_registry::Page;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

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

pub use payload_loopback::{Reply, Server};

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

/// The configuration every provider's test client starts from: `model` at `base_url`
/// with `key`, retries fast enough for tests, 5 s for the first token and 300 ms idle.
pub fn test_config(base_url: impl Into<String>, model: &str, key: &str) -> ClientConfig {
    let mut config = ClientConfig::new(base_url, model);
    config.api_key = Some(key.to_string().into());
    config.retry = quick_retry(3);
    config.first_token_timeout = Duration::from_secs(5);
    config.idle_timeout = Duration::from_millis(300);
    config
}

/// The turn called the `echo` tool once, as `call_id` with `{"text": "hi"}`, and its
/// message is the text before the call and after the tool's answer.
pub fn assert_echo_tool_turn(events: &[AgentEvent], call_id: &str) {
    let start = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolStart { id, tool, input } => Some((id.as_str(), tool.as_str(), input)),
            _ => None,
        })
        .expect("the tool ran");
    assert_eq!(start, (call_id, "echo", &json!({"text": "hi"})));
    assert_eq!(
        completed(events).message,
        "Let me check.\n\nThe tool said hi back."
    );
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
            AgentEvent::Stream(StreamEvent::TextDelta { text, .. }) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The `complete` event's parse (the turn must end with it).
pub fn completed(events: &[AgentEvent]) -> &ParsedResponse {
    match events.last() {
        Some(AgentEvent::Stream(StreamEvent::Complete(parsed))) => parsed,
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
            AgentEvent::Stream(StreamEvent::ReasoningDelta { text, .. }) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, expected);
    assert!(errors(events).is_empty(), "{:?}", errors(events));
}

/// A type every provider can be asked for natively (its strict schema exists), with an
/// optional member a strict answer writes as `null`.
#[derive(
    Debug,
    PartialEq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    payload_core::LlmPayload,
)]
#[payload(name = "note", marker = "NOTE")]
pub struct Note {
    /// The title.
    pub title: String,
    /// A remark, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

/// The note every `json_answer.sse` / `tool_answer.sse` recording carries.
pub fn groceries() -> Note {
    Note {
        title: "Groceries".into(),
        remark: None,
    }
}

/// Asks `model` for a [`Note`] in `mode`, at most `attempts` times.
pub async fn extract_note<M: payload_agent::Model>(
    model: &mut M,
    mode: payload_agent::OutputMode,
    attempts: usize,
) -> (
    Option<Note>,
    payload_core::retry::RetryOutcome<payload_agent::ModelError>,
) {
    let mut request =
        payload_agent::ModelRequest::new(vec![payload_agent::ModelMessage::user("Note groceries")]);
    request.system = "Write a note.".into();
    let options = payload_providers::ExtractOptions::new(
        payload_core::retry::RetryPolicy::attempts(attempts),
    )
    .mode(mode);
    let extraction = payload_providers::extract_in::<Note>(model, request, options).await;
    (extraction.value, extraction.outcome)
}

/// The `refusal` events' messages.
pub fn refusals(events: &[AgentEvent]) -> Vec<&str> {
    outcomes(events).into_iter().map(|(_, m)| m).collect()
}

/// The `refusal` events' reasons and messages.
pub fn outcomes(events: &[AgentEvent]) -> Vec<(payload_agent::RefusalReason, &str)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Refusal { message, reason } => Some((*reason, message.as_str())),
            _ => None,
        })
        .collect()
}

/// What a provider's recorded content-filter stop (`NAME/content_filter.sse`, Gemini's
/// `safety.sse`: a SCHEMA_PROPOSAL cut by the filter) must give, through a turn and
/// through whole-response extraction: one `refusal` event with the filter's reason
/// (never an empty answer, never a re-ask of the cut block), and a `Filtered` error.
pub async fn assert_content_filter_outcome<M>(
    fixture: &str,
    client: impl Fn(&Server) -> M,
    said: &str,
) where
    M: payload_agent::Model + Unpin,
{
    let server = Server::start(vec![stream(fixture)]);
    let events = turn(client(&server)).await;
    assert_eq!(
        outcomes(&events),
        [(payload_agent::RefusalReason::ContentFilter, said)],
        "{:?}",
        names(&events)
    );
    assert_eq!(names(&events).last(), Some(&"complete"));
    assert!(completed(&events).custom_payload.is_none());
    assert_eq!(
        server.received().len(),
        1,
        "a filter's stop is not re-asked"
    );

    let server = Server::start(vec![stream(fixture)]);
    let (note, outcome) =
        extract_note(&mut client(&server), payload_agent::OutputMode::Prompted, 3).await;
    assert!(note.is_none());
    let error = outcome
        .model_error
        .expect("the filter's stop ends the extraction");
    assert_eq!(
        (error.kind, error.message.as_str()),
        (payload_agent::ModelErrorKind::Filtered, said)
    );
    assert!(outcome.result.is_none(), "nothing was read as an answer");
    assert_eq!(
        server.received().len(),
        1,
        "a filter's stop is not re-asked"
    );
}
