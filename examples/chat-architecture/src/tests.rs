//! A whole turn on the reports page: the model searches, then answers with text and
//! suggestions; the client gets the chat architecture's events in order, as SSE.

use crate::model::{ScriptedModel, Step};
use crate::pubmed::RESULTS_TYPE;
use payload_agent::{Agent, AgentEvent, ModelMessage};
use payload_core::ErrorKind;
use payload_core::stream::StreamEvent;
use payload_core::stream::sse::ServerSentEvent;
use payload_registry::Registry;
use serde_json::{Value, json};

const ANSWER: &str = "I found **3 articles** on statin myopathy. The 2019 review is the \
best place to start.\n\nSUGGESTED_VALUES: [{\"label\": \"Summarize\", \"value\": \
\"Summarize the 2019 review\"}, {\"label\": \"Only trials\", \"value\": \"Show only \
randomized trials\"}]";

fn turn(answers: Vec<Vec<Step>>, piece: usize) -> (Vec<AgentEvent>, ScriptedModel) {
    let registry = Registry::global();
    registry.check().expect("registrations are consistent");
    let agent = Agent::for_page(registry, "reports").unwrap();
    let mut model = ScriptedModel::new(answers, piece);
    let events = agent
        .turn(
            &mut model,
            vec![ModelMessage::user("Find papers on statin myopathy")],
            json!({"current_page": "reports", "report_id": 123}),
        )
        .blocking()
        .collect();
    (events, model)
}

fn search_then_answer(answer: &str) -> Vec<Vec<Step>> {
    vec![
        vec![
            Step::Text("Let me search PubMed.".into()),
            Step::Call("search_pubmed", json!({"query": "statin myopathy"})),
        ],
        vec![Step::Text(answer.into())],
    ]
}

fn names(events: &[AgentEvent]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = events.iter().map(|e| e.event_name()).collect();
    names.dedup();
    names
}

fn complete(events: &[AgentEvent]) -> &payload_core::ParsedResponse {
    match events.last() {
        Some(AgentEvent::Stream(StreamEvent::Complete(parsed))) => parsed,
        other => panic!("the turn must end with complete, not {other:?}"),
    }
}

#[test]
fn a_turn_searches_then_answers_with_suggestions() {
    let (events, model) = turn(search_then_answer(ANSWER), 4);
    assert_eq!(
        names(&events),
        [
            "status",
            "text_delta",
            "tool_start",
            "tool_progress",
            "tool_complete",
            "status",
            "text_delta",
            "payload_start",
            "payload_progress",
            "complete"
        ]
    );
    let parsed = complete(&events);
    assert_eq!(
        parsed.message,
        "Let me search PubMed.\n\nI found **3 articles** on statin myopathy. The 2019 review \
         is the best place to start."
    );
    let payload = parsed.custom_payload.as_ref().unwrap();
    assert_eq!(payload.kind, RESULTS_TYPE);
    assert_eq!(payload.data()["articles"].as_array().unwrap().len(), 3);
    assert_eq!(
        parsed.suggested_values.as_ref().unwrap()[1].label,
        "Only trials"
    );
    // The deltas are the message: the suggestions never showed as text.
    let shown: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Stream(StreamEvent::TextDelta { text, .. }) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(shown, parsed.message);
    // The second call saw the tool's text.
    let second = &model.requests[1];
    assert_eq!(second.tools[0].name, "search_pubmed");
    assert!(matches!(
        second.messages.last(),
        Some(ModelMessage::Tool { text, .. }) if text.starts_with("Found 3 articles")
    ));
    let marker = events.iter().find_map(|e| match e {
        AgentEvent::ToolComplete { marker, .. } => Some(marker.as_str()),
        _ => None,
    });
    assert_eq!(marker, Some("[[tool:0]]"));
}

#[test]
fn the_tool_payload_wins_over_the_model_s_own() {
    let answer = format!(
        "{ANSWER}\n\nSEARCH_REFINEMENT: {{\"query\": \"statins[tiab] AND myopathy[mh]\", \
         \"reason\": \"Narrower.\"}}"
    );
    let (events, _) = turn(search_then_answer(&answer), 3);
    let parsed = complete(&events);
    assert_eq!(parsed.custom_payload.as_ref().unwrap().kind, RESULTS_TYPE);
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].kind, "search_refinement");
    assert_eq!(
        parsed.rejected[0].errors[0].kind,
        ErrorKind::SupersededByTool
    );
    assert!(parsed.rejected[0].raw.starts_with("SEARCH_REFINEMENT:"));
}

#[test]
fn without_a_tool_the_model_s_payload_is_the_custom_payload() {
    let answer = "That query is broad.\n\n**SEARCH_REFINEMENT:**\n```json\n{\"query\": \
                  \"statins[tiab] AND myopathy[mh]\", \"reason\": \"Narrower.\"}\n```";
    let (events, _) = turn(vec![vec![Step::Text(answer.into())]], 5);
    let parsed = complete(&events);
    assert_eq!(parsed.message, "That query is broad.");
    let refinement: &crate::SearchRefinement = parsed.payload().unwrap();
    assert_eq!(refinement.reason, "Narrower.");
    let last_progress = events.iter().rev().find_map(|e| match e {
        AgentEvent::Stream(StreamEvent::PayloadProgress { partial, .. }) => Some(partial),
        _ => None,
    });
    assert_eq!(
        last_progress,
        Some(&json!({"query": "statins[tiab] AND myopathy[mh]", "reason": "Narrower."}))
    );
}

#[test]
fn the_card_is_filled_from_typed_partials_while_the_payload_streams() {
    let reason = "It keeps the statin trials, limits them to muscle disease as a MeSH \
                  heading, and leaves out the case reports and letters that make up most of \
                  the current results, so the list is short enough to read.";
    let answer = format!(
        "That query is broad.\n\nSEARCH_REFINEMENT: {{\"query\": \"statins[tiab] AND \
         myopathy[mh]\", \"reason\": \"{reason}\"}}"
    );
    let (events, _) = turn(vec![vec![Step::Text(answer)]], 3);
    // What a client renders: each member as soon as it begins, marked as still being
    // written until its closing quote.
    let cards: Vec<crate::SearchRefinementPartial> = events
        .iter()
        .filter_map(|e| e.partial::<crate::SearchRefinement>())
        .map(|partial| partial.value)
        .collect();
    let growing = cards
        .iter()
        .find_map(|card| card.reason.as_ref().filter(|r| !r.complete))
        .expect("the reason was seen while it was being written");
    assert!(reason.starts_with(&growing.value) && growing.value.len() < reason.len());
    let last = cards.last().unwrap();
    let query = last.query.as_ref().unwrap();
    assert!(query.complete && query.value == "statins[tiab] AND myopathy[mh]");
    let done = last.reason.as_ref().unwrap();
    assert!(done.complete && done.value == reason);
}

#[test]
fn the_turn_as_sse_text() {
    let (events, _) = turn(search_then_answer(ANSWER), 6);
    let sse: String = events.iter().map(ServerSentEvent::to_sse).collect();
    assert!(sse.starts_with("event: status\ndata: {\"message\":\"Thinking...\"}\n\n"));
    let blocks: Vec<&str> = sse.split_terminator("\n\n").collect();
    assert_eq!(blocks.len(), events.len());
    for block in &blocks {
        let lines: Vec<&str> = block.split('\n').collect();
        assert_eq!(
            lines.len(),
            2,
            "one event line and one data line: {block:?}"
        );
        assert!(lines[0].starts_with("event: "));
        let data: Value = serde_json::from_str(lines[1].strip_prefix("data: ").unwrap()).unwrap();
        if lines[0] == "event: tool_complete" {
            assert_eq!(data["marker"], "[[tool:0]]");
            assert_eq!(data["payload"]["type"], RESULTS_TYPE);
        }
        if lines[0] == "event: complete" {
            assert_eq!(data["custom_payload"]["type"], RESULTS_TYPE);
            assert_eq!(data["suggested_values"][0]["label"], "Summarize");
        }
    }
}

#[test]
fn the_page_prompt_context_and_tool_schema() {
    let page = Registry::global().page("reports").unwrap();
    assert_eq!(page.payloads[0].name, "search_refinement");
    let context = (page.page.context.unwrap())(&json!({"report_id": 123}));
    assert_eq!(context, "The user is viewing report 123.");
    let spec = crate::pubmed::SEARCH_PUBMED.spec();
    assert_eq!(spec.input_schema["required"], json!(["query"]));
}
