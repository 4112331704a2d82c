use super::*;
use crate::model::StructuredOutput;
use crate::tools::{Tool, TypedTool, tool_schema};
use payload_core::{LlmPayload, ParseOptions, stream::sse::ServerSentEvent};
use serde_json::json;

fn shout(input: &Value, ctx: &ToolContext) -> ToolResult {
    ctx.progress("shouting");
    let text = input["text"].as_str().unwrap_or_default().to_uppercase();
    ToolResult::text(text.clone()).with_payload("shout", json!({"text": text}))
}

static SHOUT: Tool = Tool::new(
    "shout",
    "Upper-cases text",
    || json!({"type": "object"}),
    shout,
);

fn names(events: &[AgentEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.event_name()).collect()
}

fn run<M: Model + Unpin>(agent: &Agent, model: M, messages: Vec<ModelMessage>) -> Vec<AgentEvent> {
    agent.turn(model, messages, json!({})).blocking().collect()
}

fn completed(events: &[AgentEvent]) -> &ParsedResponse {
    match events.last() {
        Some(AgentEvent::Stream(StreamEvent::Complete(parsed))) => parsed,
        other => panic!("the turn did not end with complete: {other:?}"),
    }
}

#[test]
fn a_turn_calls_the_tool_feeds_it_back_and_completes() {
    let agent = Agent::new("chat", ParseOptions::new())
        .tools([&SHOUT])
        .system("Be loud.");
    let model = |request: &ModelRequest| -> Vec<ModelChunk> {
        assert_eq!(request.system, "Be loud.");
        if request.iteration == 1 {
            assert_eq!(request.tools[0].name, "shout");
            vec![
                ModelChunk::Text("Let me shout.".into()),
                ModelChunk::ToolCall {
                    id: "c1".into(),
                    name: "shout".into(),
                    input: json!({"text": "hi"}),
                },
                ModelChunk::Finish(FinishReason::ToolCalls),
            ]
        } else {
            let last = request.messages.last().unwrap();
            assert_eq!(
                last,
                &ModelMessage::Tool {
                    id: "c1".into(),
                    name: "shout".into(),
                    text: "HI".into()
                }
            );
            vec![ModelChunk::Text("Done: HI.".into())]
        }
    };
    let events = run(&agent, model, vec![ModelMessage::user("shout hi")]);
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
            "complete"
        ]
    );
    let AgentEvent::ToolComplete {
        marker, payload, ..
    } = &events[4]
    else {
        unreachable!()
    };
    assert_eq!(marker, "[[tool:0]]");
    assert_eq!(payload.as_ref().unwrap().kind, "shout");
    let parsed = completed(&events);
    assert_eq!(parsed.message, "Let me shout.\n\nDone: HI.");
    assert_eq!(parsed.custom_payload.as_ref().unwrap().kind, "shout");
}

#[test]
fn tool_calls_in_pieces_are_joined_before_the_tool_runs() {
    let agent = Agent::new("chat", ParseOptions::new()).tools([&SHOUT]);
    let model = |request: &ModelRequest| -> Vec<ModelChunk> {
        if request.iteration > 1 {
            return vec![ModelChunk::Text("ok".into())];
        }
        let piece =
            |id: Option<&str>, name: Option<&str>, arguments: &str| ModelChunk::ToolCallDelta {
                index: 0,
                id: id.map(str::to_string),
                name: name.map(str::to_string),
                arguments: arguments.to_string(),
            };
        vec![
            piece(Some("c9"), Some("shout"), ""),
            piece(None, None, "{\"te"),
            piece(None, None, "xt\": \"split\"}"),
            ModelChunk::Finish(FinishReason::ToolCalls),
        ]
    };
    let events = run(&agent, model, vec![]);
    let started = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolStart { id, input, .. } => Some((id.clone(), input.clone())),
            _ => None,
        })
        .expect("the tool ran");
    assert_eq!(started, ("c9".to_string(), json!({"text": "split"})));
    assert_eq!(
        completed(&events).custom_payload.as_ref().unwrap().kind,
        "shout"
    );
}

#[test]
fn a_model_that_keeps_calling_tools_is_stopped() {
    let agent = Agent::new("chat", ParseOptions::new())
        .tools([&SHOUT])
        .max_iterations(2);
    let mut calls = 0;
    let model = move |_: &ModelRequest| {
        calls += 1;
        vec![ModelChunk::ToolCall {
            id: format!("c{calls}"),
            name: "shout".into(),
            input: json!({}),
        }]
    };
    let events = run(&agent, model, vec![]);
    let names = names(&events);
    assert_eq!(names.iter().filter(|n| **n == "tool_complete").count(), 1);
    assert_eq!(&names[names.len() - 2..], ["error", "complete"]);
}

#[test]
fn unknown_tools_and_model_errors_are_reported() {
    let agent = Agent::new("chat", ParseOptions::new());
    let model = |request: &ModelRequest| {
        if request.iteration == 1 {
            vec![ModelChunk::ToolCall {
                id: "x".into(),
                name: "nope".into(),
                input: json!({}),
            }]
        } else {
            vec![
                ModelChunk::Text("Partial".into()),
                ModelChunk::Error(ModelError::new(ModelErrorKind::Server, "overloaded")),
            ]
        }
    };
    let events = run(&agent, model, vec![]);
    let AgentEvent::ToolComplete { text, .. } = &events[2] else {
        panic!("{events:?}")
    };
    assert!(text.contains("no tool named 'nope'"));
    assert_eq!(
        names(&events)[names(&events).len() - 2..],
        ["error", "complete"]
    );
    assert_eq!(completed(&events).message, "Partial");
}

/// A model whose stream panics after its first chunk.
struct Panicking;

impl Model for Panicking {
    fn stream(&mut self, _: &ModelRequest) -> ModelStream {
        let mut sent = false;
        Box::pin(futures::stream::poll_fn(move |_| {
            if sent {
                panic!("boom");
            }
            sent = true;
            Poll::Ready(Some(ModelChunk::Text("Before the panic.".into())))
        }))
    }
}

#[test]
fn a_panicking_model_ends_the_turn_with_error_and_what_arrived() {
    let agent = Agent::new("chat", ParseOptions::new());
    let events = run(&agent, Panicking, vec![]);
    let AgentEvent::Error { message } = &events[events.len() - 2] else {
        panic!("{events:?}")
    };
    assert!(message.contains("panicked: boom"), "{message}");
    assert_eq!(completed(&events).message, "Before the panic.");
}

#[test]
fn a_model_that_panics_when_called_still_completes() {
    let agent = Agent::new("chat", ParseOptions::new());
    let model = |_: &ModelRequest| -> Vec<ModelChunk> { panic!("no answer") };
    let events = run(&agent, model, vec![]);
    assert_eq!(names(&events), ["status", "error", "complete"]);
}

/// A payload the re-ask tests reject when `count` is negative.
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema, LlmPayload)]
#[payload(name = "tally", marker = "TALLY")]
struct Tally {
    /// How many.
    count: u32,
}

fn tally_agent() -> Agent {
    let options = ParseOptions {
        payloads: vec![Tally::TYPE],
        ..ParseOptions::new()
    };
    Agent::new("chat", options)
}

#[test]
fn a_rejected_payload_is_sent_back_once_and_the_correction_completes_the_turn() {
    let agent = tally_agent();
    let mut requests: Vec<ModelRequest> = Vec::new();
    let model = |request: &ModelRequest| {
        requests.push(request.clone());
        let text = if request.iteration == 1 {
            "Counting.\nTALLY: {\"count\": -3}"
        } else {
            "Counted.\nTALLY: {\"count\": 3}"
        };
        vec![ModelChunk::Text(text.into())]
    };
    let events = run(&agent, model, vec![ModelMessage::user("count")]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Status { message } if message.contains("correct")))
    );
    let parsed = completed(&events);
    assert_eq!(parsed.message, "Counted.");
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    assert_eq!(parsed.payload::<Tally>().map(|t| t.count), Some(3));
    assert_eq!(requests.len(), 2);
    let ModelMessage::User { text } = requests[1].messages.last().unwrap() else {
        panic!("the re-ask is a user message")
    };
    assert!(text.contains("count"), "{text}");
}

/// A model whose prompt opened `<think>` writes its draft, `</think>`, then its answer:
/// the draft is reasoning, never the payload, and nothing is re-asked.
#[test]
fn a_draft_before_the_prompts_think_closes_is_reasoning() {
    let agent = tally_agent().reasoning_opened_by_prompt();
    let mut calls = 0;
    let model = |_: &ModelRequest| {
        calls += 1;
        vec![
            ModelChunk::Text("Draft: TALLY: {\"count\": -1}\n</thi".into()),
            ModelChunk::Text("nk>\nCounted.\nTALLY: {\"count\": 3}".into()),
        ]
    };
    let events = run(&agent, model, vec![ModelMessage::user("count")]);
    assert_eq!(calls, 1);
    let parsed = completed(&events);
    assert_eq!(parsed.message, "Counted.");
    assert_eq!(parsed.payload::<Tally>().map(|t| t.count), Some(3));
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    assert_eq!(
        parsed.reasoning.as_deref(),
        Some("Draft: TALLY: {\"count\": -1}")
    );
}

/// Every call of a turn starts inside the reasoning its prompt opened, the calls after
/// a tool's answer too.
#[test]
fn each_call_of_a_turn_starts_inside_the_prompts_reasoning() {
    fn note(_: &Value, _: &ToolContext) -> ToolResult {
        ToolResult::text("noted")
    }
    static NOTE: Tool = Tool::new("note", "Notes", || json!({"type": "object"}), note);
    let agent = tally_agent().tools([&NOTE]).reasoning_opened_by_prompt();
    let model = |request: &ModelRequest| {
        if request.iteration == 1 {
            vec![
                ModelChunk::Text("I should note first.</think>\nNoting.".into()),
                ModelChunk::ToolCall {
                    id: "c1".into(),
                    name: "note".into(),
                    input: json!({"text": "hi"}),
                },
                ModelChunk::Finish(FinishReason::ToolCalls),
            ]
        } else {
            vec![ModelChunk::Text(
                "Draft: TALLY: {\"count\": -1}\n</think>\nDone.\nTALLY: {\"count\": 3}".into(),
            )]
        }
    };
    let events = run(&agent, model, vec![ModelMessage::user("count")]);
    let parsed = completed(&events);
    assert_eq!(parsed.payload::<Tally>().map(|t| t.count), Some(3));
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    assert_eq!(
        parsed.reasoning.as_deref(),
        Some("I should note first.\n\nDraft: TALLY: {\"count\": -1}")
    );
    assert!(!parsed.message.contains("Draft"), "{}", parsed.message);
}

#[test]
fn a_near_miss_marker_or_a_marker_with_no_value_is_asked_for_again() {
    for first in [
        "Counting.\nTally: {\"count\": 3}",
        "Counting.\nTALLY:\nI will count once you say so.",
    ] {
        let agent = tally_agent();
        let mut requests: Vec<ModelRequest> = Vec::new();
        let model = |request: &ModelRequest| {
            requests.push(request.clone());
            let text = if request.iteration == 1 {
                first
            } else {
                "Counted.\nTALLY: {\"count\": 3}"
            };
            vec![ModelChunk::Text(text.into())]
        };
        let events = run(&agent, model, vec![ModelMessage::user("count")]);
        let parsed = completed(&events);
        assert_eq!(requests.len(), 2, "{first:?}");
        assert_eq!(parsed.payload::<Tally>().map(|t| t.count), Some(3));
        let ModelMessage::User { text } = requests[1].messages.last().unwrap() else {
            panic!("the re-ask is a user message")
        };
        assert!(text.contains("TALLY"), "{text}");
    }
}

#[test]
fn re_asking_stops_after_the_limit_and_keeps_the_rejection() {
    let agent = tally_agent();
    let mut calls = 0;
    let model = |_: &ModelRequest| {
        calls += 1;
        vec![ModelChunk::Text("TALLY: {\"count\": -1}".into())]
    };
    let events = run(&agent, model, vec![]);
    assert_eq!(calls, 2);
    assert_eq!(completed(&events).rejected.len(), 1);

    let mut calls = 0;
    let model = |_: &ModelRequest| {
        calls += 1;
        vec![ModelChunk::Text("TALLY: {\"count\": -1}".into())]
    };
    let events = run(&agent.clone().reasks(0), model, vec![]);
    assert_eq!(calls, 1);
    assert_eq!(completed(&events).rejected.len(), 1);
}

#[test]
fn an_answer_cut_by_the_token_limit_is_truncated_and_not_re_asked() {
    let agent = tally_agent();
    let mut calls = 0;
    let model = |_: &ModelRequest| {
        calls += 1;
        vec![
            ModelChunk::Text("Here:\nTALLY: {\"count\": 1".into()),
            ModelChunk::Finish(FinishReason::Length),
        ]
    };
    let events = run(&agent, model, vec![]);
    assert_eq!(calls, 1);
    let parsed = completed(&events);
    let kinds: Vec<_> = parsed
        .rejected
        .iter()
        .flat_map(|r| &r.errors)
        .map(|e| e.kind())
        .collect();
    assert!(
        kinds.contains(&payload_core::ErrorKind::Truncated),
        "{:?}",
        parsed.rejected
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greeting {
    /// Who to greet.
    name: String,
    /// How many times, at least 1.
    #[schemars(range(min = 1))]
    times: u8,
}

struct Greet;

impl TypedTool for Greet {
    type Input = Greeting;
    const NAME: &'static str = "greet";
    const DESCRIPTION: &'static str = "Greets someone";
    fn run(input: Greeting, _: &ToolContext) -> ToolResult {
        ToolResult::text(vec![format!("Hello, {}!", input.name); input.times.into()].join(" "))
    }
}

static GREET: Tool = Tool::of::<Greet>();

#[test]
fn typed_tools_get_decoded_input_and_bad_input_never_reaches_them() {
    let ctx = ToolContext::new("chat", json!({}));
    assert_eq!(
        GREET.call(&json!({"name": "Ada", "times": 2}), &ctx).text,
        "Hello, Ada! Hello, Ada!"
    );
    let refused = GREET.call(&json!({"name": 7, "times": 0}), &ctx).text;
    assert!(
        refused.starts_with("Error: the input of 'greet'"),
        "{refused}"
    );
    assert!(
        refused.contains("/name") && refused.contains("/times"),
        "{refused}"
    );
    assert_eq!(GREET.spec().input_schema, tool_schema::<Greeting>());
    let not_json = GREET.call(&json!("{\"name\": "), &ctx).text;
    assert!(not_json.starts_with("Error:"), "{not_json}");
}

#[test]
fn whole_response_output_is_in_every_request() {
    let output = StructuredOutput::new("tally", "A count", json!({"type": "object"}));
    let agent = Agent::new("chat", ParseOptions::new()).output(output.clone());
    let model = move |request: &ModelRequest| {
        assert_eq!(request.output.as_ref(), Some(&output));
        vec![ModelChunk::Text("{}".into())]
    };
    assert_eq!(
        names(&run(&agent, model, vec![])),
        ["status", "text_delta", "complete"]
    );
}

#[test]
fn a_turn_is_a_futures_stream() {
    use futures::StreamExt;
    let agent = Agent::new("chat", ParseOptions::new());
    let model = |_: &ModelRequest| vec![ModelChunk::Text("Hello.".into())];
    let turn = agent.turn(model, vec![], json!({}));
    let events: Vec<AgentEvent> = futures::executor::block_on(turn.collect());
    assert_eq!(names(&events), ["status", "text_delta", "complete"]);
}

/// The reasoning deltas of a turn, concatenated.
fn reasoning_deltas(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Stream(StreamEvent::ReasoningDelta { text, .. }) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn reasoning_chunks_are_shown_apart_and_never_parsed() {
    let agent = Agent::new("chat", ParseOptions::new());
    let model = |_: &ModelRequest| {
        vec![
            ModelChunk::Reasoning("The user wants chips. ".into()),
            ModelChunk::Reasoning(
                "SUGGESTED_VALUES: [{\"label\": \"Draft\", \"value\": \"Draft\"}]".into(),
            ),
            ModelChunk::Text("Pick one.\n\nSUGGESTED_VALUES: [{\"label\": \"Yes\", ".into()),
            ModelChunk::Text("\"value\": \"Yes\"}]".into()),
        ]
    };
    let events = run(&agent, model, vec![ModelMessage::user("hi")]);
    let parsed = completed(&events);
    let chips = parsed.suggested_values.as_ref().unwrap();
    assert_eq!(chips.len(), 1);
    assert_eq!(chips[0].label, "Yes");
    assert_eq!(parsed.message, "Pick one.");
    let expected =
        "The user wants chips. SUGGESTED_VALUES: [{\"label\": \"Draft\", \"value\": \"Draft\"}]";
    assert_eq!(parsed.reasoning.as_deref(), Some(expected));
    assert_eq!(reasoning_deltas(&events), expected);
    let first_reasoning = names(&events).iter().position(|n| *n == "reasoning_delta");
    let first_text = names(&events).iter().position(|n| *n == "text_delta");
    assert!(first_reasoning.is_some() && first_reasoning < first_text);
}

#[test]
fn inline_think_sections_are_surfaced_like_the_reasoning_channel() {
    let agent = Agent::new("chat", ParseOptions::new()).tools([&SHOUT]);
    let model = |request: &ModelRequest| -> Vec<ModelChunk> {
        if request.iteration == 1 {
            vec![
                ModelChunk::Reasoning("I should shout.".into()),
                ModelChunk::ToolCall {
                    id: "c1".into(),
                    name: "shout".into(),
                    input: json!({"text": "hi"}),
                },
            ]
        } else {
            vec![
                ModelChunk::Text("<thi".into()),
                ModelChunk::Text("nk>\nIt returned HI.\n</think>\n\nDone: HI.".into()),
            ]
        }
    };
    let events = run(&agent, model, vec![ModelMessage::user("shout hi")]);
    let parsed = completed(&events);
    assert_eq!(parsed.message, "Done: HI.");
    let expected = "I should shout.\n\nIt returned HI.";
    assert_eq!(parsed.reasoning.as_deref(), Some(expected));
    assert_eq!(reasoning_deltas(&events), expected);
    let shown: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Stream(StreamEvent::TextDelta { text, .. }) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(shown, "Done: HI.");
}

#[test]
fn a_refusal_is_an_outcome_never_text_and_is_not_reasked() {
    let agent = Agent::new("chat", ParseOptions::new()).tools([&SHOUT]);
    let mut calls = 0;
    let model = |_: &ModelRequest| {
        calls += 1;
        vec![
            ModelChunk::Refusal("I can't help ".into()),
            ModelChunk::Refusal("with that.".into()),
            ModelChunk::Finish(FinishReason::Refusal),
        ]
    };
    let events = run(&agent, model, vec![ModelMessage::user("hi")]);
    assert_eq!(calls, 1);
    assert_eq!(names(&events), ["status", "refusal", "complete"]);
    assert_eq!(
        events[1],
        AgentEvent::Refusal {
            message: "I can't help with that.".into(),
            reason: RefusalReason::Refusal,
        }
    );
    assert_eq!(completed(&events).message, "");
    assert_eq!(
        events[1].to_sse(),
        "event: refusal\ndata: {\"message\":\"I can't help with that.\",\"reason\":\"refusal\"}\n\n"
    );
}

#[test]
fn a_content_filter_stop_is_an_outcome_never_an_empty_answer_and_is_not_reasked() {
    // Nothing came but the stop (OpenAI's `finish_reason: content_filter`, Gemini's
    // `SAFETY` with no text): a `refusal` event with the filter's reason and a sentence.
    let agent = tally_agent().tools([&SHOUT]);
    let mut calls = 0;
    let model = |_: &ModelRequest| {
        calls += 1;
        vec![ModelChunk::Finish(FinishReason::ContentFilter)]
    };
    let events = run(&agent, model, vec![ModelMessage::user("count")]);
    assert_eq!(calls, 1);
    assert_eq!(names(&events), ["status", "refusal", "complete"]);
    assert_eq!(
        events[1].to_sse(),
        "event: refusal\ndata: {\"message\":\"The provider's content filter stopped the answer.\",\"reason\":\"content_filter\"}\n\n"
    );

    // The filter cut a payload half-written and a tool call: the cut block is not a
    // format error to re-ask, and the tool does not run. The provider's words win.
    let mut calls = 0;
    let model = |_: &ModelRequest| {
        calls += 1;
        vec![
            ModelChunk::Text("Counting.\nTALLY: {\"count\": 1".into()),
            ModelChunk::ToolCall {
                id: "c1".into(),
                name: "shout".into(),
                input: json!({"text": "hi"}),
            },
            ModelChunk::Refusal("blocked (SAFETY)".into()),
            ModelChunk::Finish(FinishReason::ContentFilter),
        ]
    };
    let mut turn = agent.turn(model, vec![ModelMessage::user("count")], json!({}));
    let events: Vec<AgentEvent> = futures::executor::block_on_stream(&mut turn).collect();
    assert_eq!(turn.refusal(), Some("blocked (SAFETY)"));
    drop(turn);
    assert_eq!(calls, 1, "a filter's stop is not re-asked");
    assert!(
        !names(&events).contains(&"tool_start"),
        "{:?}",
        names(&events)
    );
    assert!(events.contains(&AgentEvent::Refusal {
        message: "blocked (SAFETY)".into(),
        reason: RefusalReason::ContentFilter,
    }));
    assert!(completed(&events).payload::<Tally>().is_none());
}

#[test]
fn a_refusal_stop_without_words_is_still_a_refusal_and_its_tool_calls_do_not_run() {
    let agent = Agent::new("chat", ParseOptions::new()).tools([&SHOUT]);
    let model = |_: &ModelRequest| {
        vec![
            ModelChunk::Text("Sure, ".into()),
            ModelChunk::ToolCall {
                id: "c1".into(),
                name: "shout".into(),
                input: json!({"text": "hi"}),
            },
            ModelChunk::Finish(FinishReason::Refusal),
        ]
    };
    let mut turn = agent.turn(model, vec![ModelMessage::user("hi")], json!({}));
    let events: Vec<AgentEvent> = futures::executor::block_on_stream(&mut turn).collect();
    assert_eq!(
        names(&events),
        ["status", "text_delta", "refusal", "complete"]
    );
    assert_eq!(turn.refusal(), Some("The model refused to answer."));
    assert_eq!(completed(&events).message, "Sure,");
}

#[test]
fn wherever_the_filter_cuts_the_answer_the_turn_ends_in_one_refusal_and_one_call() {
    let answer =
        "Counting.\nTally: {\"count\": 3}\nTALLY: {\"count\": -1}\nTALLY: {\"count\": 3}\n";
    let agent = tally_agent();
    for (cut, _) in answer.char_indices().chain([(answer.len(), ' ')]) {
        for reason in [FinishReason::ContentFilter, FinishReason::Refusal] {
            let mut calls = 0;
            let model = |_: &ModelRequest| {
                calls += 1;
                vec![
                    ModelChunk::Text(answer[..cut].to_string()),
                    ModelChunk::Finish(reason.clone()),
                ]
            };
            let events = run(&agent, model, vec![ModelMessage::user("count")]);
            assert_eq!(calls, 1, "cut at {cut}, {reason:?}: re-asked");
            let refusals: Vec<_> = events
                .iter()
                .filter(|e| matches!(e, AgentEvent::Refusal { .. }))
                .collect();
            assert_eq!(refusals.len(), 1, "cut at {cut}, {reason:?}");
            completed(&events);
        }
    }
}

/// The agent of a page whose count is `count`.
fn tally_agent_counting(count: payload_core::PayloadCount) -> Agent {
    let options = ParseOptions {
        payloads: vec![Tally::TYPE],
        ..ParseOptions::new()
    }
    .payload_count(count);
    Agent::new("chat", options)
}

/// The re-ask message the model was sent on its second call.
fn reask_text(requests: &[ModelRequest]) -> &str {
    let ModelMessage::User { text } = requests[1].messages.last().unwrap() else {
        panic!("the re-ask is a user message")
    };
    text
}

/// A block past the page's count (`extra_payload`) is re-asked: the model offered more
/// than the page takes, and the prose that introduced the surplus would point at
/// nothing. The re-ask names only the refused block and asks for the accepted ones
/// again unchanged; the corrected answer, within the count, completes the turn.
#[test]
fn a_block_past_the_count_is_re_asked_keeping_the_accepted_ones() {
    let agent = tally_agent_counting(payload_core::PayloadCount::at_most(2));
    let mut requests: Vec<ModelRequest> = Vec::new();
    let model = |request: &ModelRequest| {
        requests.push(request.clone());
        let text = if request.iteration == 1 {
            "One:\nTALLY: {\"count\": 1}\nTwo:\nTALLY: {\"count\": 2}\nThree:\nTALLY: {\"count\": 3}"
        } else {
            "One:\nTALLY: {\"count\": 1}\nTwo:\nTALLY: {\"count\": 2}"
        };
        vec![ModelChunk::Text(text.into())]
    };
    let events = run(&agent, model, vec![ModelMessage::user("count")]);
    let parsed = completed(&events);
    assert_eq!(requests.len(), 2);
    assert!(parsed.rejected.is_empty(), "{:#?}", parsed.rejected);
    let counts: Vec<&Value> = parsed.payloads().map(|p| &p.data()["count"]).collect();
    assert_eq!(counts, [&json!(1), &json!(2)]);
    let text = reask_text(&requests);
    assert!(text.contains("1. "), "{text}");
    assert!(
        !text.contains("2. "),
        "only the refused block is listed: {text}"
    );
    assert!(
        text.contains("The other payloads in your answer were accepted (TALLY, TALLY)"),
        "{text}"
    );
    assert!(events.iter().any(|e| matches!(e,
        AgentEvent::Status { message } if message.contains("more payloads than the page allows"))));
}

/// Among several payloads, an invalid one is re-asked alone: the message lists its
/// errors only and names the accepted ones to keep; with no re-ask left the answer
/// keeps its valid payloads and lists the refused one.
#[test]
fn an_invalid_payload_among_several_is_re_asked_alone() {
    let agent = tally_agent_counting(payload_core::PayloadCount::at_most(3));
    let mut requests: Vec<ModelRequest> = Vec::new();
    let first = "A:\nTALLY: {\"count\": 1}\nB:\nTALLY: {\"count\": -2}\nC:\nTALLY: {\"count\": 3}";
    let model = |request: &ModelRequest| {
        requests.push(request.clone());
        let text = if request.iteration == 1 {
            first
        } else {
            "A:\nTALLY: {\"count\": 1}\nB:\nTALLY: {\"count\": 2}\nC:\nTALLY: {\"count\": 3}"
        };
        vec![ModelChunk::Text(text.into())]
    };
    let events = run(&agent, model, vec![ModelMessage::user("count")]);
    assert_eq!(completed(&events).payloads().count(), 3);
    let text = reask_text(&requests);
    assert!(
        text.contains("The other payloads in your answer were accepted (TALLY, TALLY)"),
        "{text}"
    );
    assert!(!text.contains("2. "), "{text}");

    let model = |_: &ModelRequest| vec![ModelChunk::Text(first.into())];
    let events = run(&agent.clone().reasks(0), model, vec![]);
    let parsed = completed(&events);
    assert_eq!(parsed.payloads().count(), 2);
    assert_eq!(parsed.rejected.len(), 1);
}
