//! The UI message stream translator alone: what one turn's events become, and a
//! property: whatever the turn sends, the chunks are one well-formed message.

use super::*;
use crate::test_events::{
    complete, error, progress, reasoning, refusal, start, status, text, tool_start,
};
use payload_agent::{AgentEvent, RefusalReason};
use payload_core::response::{Part, PartKind};
use payload_core::stream::StreamEvent;
use payload_core::{CustomPayload, ParsedResponse};
use serde_json::{Value, json};

fn translator() -> UiTranslator {
    UiTranslator::new("m".into(), json!({"conversationId": "c"}), 2, |kind| {
        kind == "recipe"
    })
}

/// The events with the parts a parser gives them (written with `part: 0` above): a
/// text or reasoning delta continues the part before it when that part is of its
/// kind, every block begins a part; and `complete` with its parts, each accepted
/// payload and block of chips at the position its block had (or after the others).
fn numbered(events: Vec<AgentEvent>) -> Vec<AgentEvent> {
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Text,
        Reasoning,
        Block,
    }
    let mut current: Option<(Kind, usize)> = None;
    let mut count = 0;
    let mut blocks: Vec<(String, usize)> = Vec::new();
    fn begin(kind: Kind, current: &mut Option<(Kind, usize)>, count: &mut usize) -> usize {
        let at = *count;
        *count += 1;
        *current = Some((kind, at));
        at
    }
    let mut out = Vec::new();
    for event in events {
        let AgentEvent::Stream(stream) = event else {
            out.push(event);
            continue;
        };
        out.push(AgentEvent::Stream(match stream {
            StreamEvent::TextDelta { text, .. } | StreamEvent::ReasoningDelta { text, .. }
                if text.is_empty() =>
            {
                StreamEvent::TextDelta { text, part: 0 }
            }
            StreamEvent::TextDelta { text, .. } => {
                let part = match current {
                    Some((Kind::Text, at)) => at,
                    _ => begin(Kind::Text, &mut current, &mut count),
                };
                StreamEvent::TextDelta { text, part }
            }
            StreamEvent::ReasoningDelta { text, .. } => {
                let part = match current {
                    Some((Kind::Reasoning, at)) => at,
                    _ => begin(Kind::Reasoning, &mut current, &mut count),
                };
                StreamEvent::ReasoningDelta { text, part }
            }
            StreamEvent::PayloadStart { kind, marker, .. } => {
                let part = begin(Kind::Block, &mut current, &mut count);
                blocks.push((kind.clone(), part));
                StreamEvent::PayloadStart { kind, marker, part }
            }
            StreamEvent::PayloadProgress {
                kind,
                partial,
                open,
                ..
            } => {
                let part = match current {
                    Some((Kind::Block, at)) => at,
                    _ => begin(Kind::Block, &mut current, &mut count),
                };
                StreamEvent::PayloadProgress {
                    kind,
                    partial,
                    open,
                    part,
                }
            }
            StreamEvent::Complete(mut parsed) => {
                let mut next = count;
                let mut at = |kind: &str| {
                    blocks
                        .iter()
                        .find(|(k, _)| k == kind)
                        .map(|(_, p)| *p)
                        .unwrap_or_else(|| {
                            next += 1;
                            next - 1
                        })
                };
                let mut placed = Vec::new();
                if let Some(payload) = &parsed.custom_payload {
                    placed.push((at(&payload.kind), PartKind::Payload(0)));
                }
                if parsed.suggested_values.is_some() {
                    placed.push((
                        at("suggested_values"),
                        PartKind::SuggestedValues { holds_items: true },
                    ));
                }
                let len = placed.iter().map(|(p, _)| p + 1).max().unwrap_or(0);
                parsed.parts = (0..len)
                    .map(|_| Part {
                        span: 0..0,
                        kind: PartKind::Text(0..0),
                    })
                    .collect();
                for (position, kind) in placed {
                    parsed.parts[position].kind = kind;
                }
                StreamEvent::Complete(parsed)
            }
            other => other,
        }));
    }
    out
}

fn run(t: &mut UiTranslator, events: Vec<AgentEvent>) -> Vec<Value> {
    let mut out: Vec<Chunk> = t.started();
    for event in numbered(events) {
        out.extend(t.translate(event));
    }
    out.iter().map(Chunk::to_json).collect()
}

fn kinds(chunks: &[Value]) -> Vec<&str> {
    chunks.iter().map(|c| c["type"].as_str().unwrap()).collect()
}

#[test]
fn a_payload_between_texts_is_a_data_part_updated_in_place_then_proposed_for_approval() {
    let chunks = run(
        &mut translator(),
        vec![
            reasoning("hm"),
            text("Here "),
            text("it is."),
            start("recipe"),
            progress("recipe", json!({"title": "So"})),
            progress("recipe", json!({"title": "So"})),
            progress("recipe", json!({"title": "Soup"})),
            text("Enjoy!"),
            complete(Some(("recipe", json!({"title": "Soup", "serves": 2})))),
            // Nothing follows `finish`.
            text("late"),
        ],
    );
    assert_eq!(
        kinds(&chunks),
        [
            "start",
            "start-step",
            "reasoning-start",
            "reasoning-delta",
            "reasoning-end",
            "text-start",
            "text-delta",
            "text-delta",
            "text-end",
            "data-recipe",
            "data-recipe",
            "data-recipe",
            "text-start",
            "text-delta",
            "text-end",
            "data-recipe",
            "tool-input-available",
            "tool-approval-request",
            "finish-step",
            "finish",
        ]
    );
    assert_eq!(chunks[0]["messageMetadata"]["conversationId"], "c");
    // Each part its own id, its position: reasoning 0, text 1, the card 2, text 3.
    assert_eq!(chunks[2]["id"], "reasoning-0");
    assert_eq!(chunks[5]["id"], "text-1");
    assert_eq!(chunks[12]["id"], "text-3");
    let cards: Vec<&Value> = chunks
        .iter()
        .filter(|c| c["type"] == "data-recipe")
        .collect();
    assert!(cards.iter().all(|c| c["id"] == "payload-part-2"));
    // Drafting, the partial (an unchanged partial is not sent again), then proposed.
    assert_eq!(
        cards[1]["data"],
        json!({"status": "drafting", "data": {"title": "So"}})
    );
    assert_eq!(cards[2]["data"]["data"], json!({"title": "Soup"}));
    assert_eq!(
        cards[3]["data"],
        json!({"status": "proposed", "data": {"title": "Soup", "serves": 2},
               "proposal": "payload-2"})
    );
    assert_eq!(chunks[16]["toolCallId"], "payload-2");
    assert_eq!(chunks[16]["toolName"], "recipe");
    assert_eq!(chunks[17]["approvalId"], "payload-2");
}

#[test]
fn a_type_the_app_only_shows_asks_no_approval_and_chips_come_whole_at_the_end() {
    let mut parsed = ParsedResponse::default();
    parsed.custom_payload = Some(CustomPayload::new("note", json!({"text": "x"})));
    parsed.suggested_values =
        serde_json::from_value(json!([{"label": "More", "value": "More"}])).unwrap();
    let chunks = run(
        &mut translator(),
        vec![
            start("note"),
            start("suggested_values"),
            progress("suggested_values", json!([{"label": "Mo"}])),
            AgentEvent::Stream(StreamEvent::Complete(parsed.into())),
        ],
    );
    assert_eq!(
        kinds(&chunks),
        [
            "start",
            "start-step",
            "data-note",
            "data-note",
            "data-suggested_values",
            "finish-step",
            "finish"
        ]
    );
    assert_eq!(chunks[3]["data"]["status"], "shown");
    assert_eq!(chunks[4]["id"], "payload-part-1");
    assert_eq!(chunks[4]["data"][0]["label"], "More");
}

#[test]
fn refusals_filters_and_failures_are_the_error_chunk_and_finish_is_last() {
    for (last, reason) in [
        (refusal("No.", RefusalReason::Refusal), "error"),
        (
            refusal("Filtered.", RefusalReason::ContentFilter),
            "content-filter",
        ),
        (error("failed"), "error"),
    ] {
        let chunks = run(
            &mut translator(),
            vec![
                text("Sure, "),
                start("recipe"),
                last,
                complete(Some(("recipe", json!({})))),
            ],
        );
        assert_eq!(
            kinds(&chunks),
            [
                "start",
                "start-step",
                "text-start",
                "text-delta",
                "text-end",
                "data-recipe",
                "data-recipe",
                "error",
                "finish-step",
                "finish"
            ]
        );
        assert_eq!(chunks[6]["data"]["status"], "rejected");
        assert_eq!(chunks[9]["finishReason"], reason);
    }
    let mut t = translator();
    t.translate_stream(StreamEvent::TextDelta {
        text: "Hi".into(),
        part: 0,
    });
    let end: Vec<String> = t.finish().iter().map(Chunk::kind).collect();
    assert_eq!(end, ["text-end", "error", "finish-step", "finish"]);
    assert!(t.finish().is_empty());
}

mod properties {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{HashMap, HashSet};

    fn step() -> impl Strategy<Value = AgentEvent> {
        let piece = "[a-z \n]{0,6}";
        prop_oneof![
            piece.prop_map(text),
            piece.prop_map(reasoning),
            prop_oneof![Just("recipe"), Just("note"), Just("suggested_values")].prop_map(start),
            prop::collection::vec("[a-z]{0,3}", 0..4)
                .prop_map(|items| progress("recipe", json!({ "items": items }))),
            Just(status()),
            (0..3usize).prop_map(tool_start),
        ]
    }

    fn end() -> impl Strategy<Value = AgentEvent> {
        prop_oneof![
            prop::option::of(prop_oneof![Just("recipe"), Just("note")])
                .prop_map(|kind| complete(kind.map(|k| (k, json!({ "items": ["x"] }))))),
            Just(error("failed")),
            Just(refusal("no", RefusalReason::ContentFilter)),
        ]
    }

    /// The steps as a stream sends them: a block's progress only while it is the
    /// block being written (right after its start or its progress), under its type.
    fn as_streamed(steps: Vec<AgentEvent>) -> Vec<AgentEvent> {
        let mut writing: Option<String> = None;
        let mut out = Vec::new();
        for step in steps {
            match step {
                AgentEvent::Stream(StreamEvent::PayloadStart { ref kind, .. }) => {
                    writing = Some(kind.clone());
                    out.push(step);
                }
                AgentEvent::Stream(StreamEvent::PayloadProgress { partial, .. }) => {
                    if let Some(kind) = &writing {
                        out.push(progress(kind, partial));
                    }
                }
                AgentEvent::Status { .. } => out.push(step),
                other => {
                    writing = None;
                    out.push(other);
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// One `start` first and one `finish` last; a text or reasoning part opened
        /// once, before its deltas, closed before anything but a tool call and before
        /// the end; its
        /// id never reused; the deltas are the turn's text and reasoning, in order; a
        /// data part's id always names the same type; the card a client holds after each
        /// progress event is that event's partial; an approval names a call sent before
        /// it.
        #[test]
        fn every_turn_is_one_well_formed_message(
            steps in prop::collection::vec(step(), 0..24),
            last in end(),
            stopped in any::<bool>(),
        ) {
            let mut t = translator();
            let mut chunks: Vec<Value> = t.started().iter().map(Chunk::to_json).collect();
            let (mut text, mut reasoning) = (String::new(), String::new());
            let mut cards: HashMap<String, Value> = HashMap::new();
            let mut last_card: Option<String> = None;
            let ending = (!stopped).then_some(last.clone());
            let steps = numbered(as_streamed(steps).into_iter().chain(ending).collect());
            for step in &steps {
                match step {
                    AgentEvent::Stream(StreamEvent::TextDelta { text: t, .. }) => text.push_str(t),
                    AgentEvent::Stream(StreamEvent::ReasoningDelta { text: t, .. }) => reasoning.push_str(t),
                    _ => {}
                }
                let out = t.translate(step.clone());
                for chunk in &out {
                    let json = chunk.to_json();
                    if json["type"].as_str().unwrap().starts_with("data-") {
                        let id = json["id"].as_str().unwrap().to_string();
                        cards.insert(id.clone(), json["data"].clone());
                        last_card = Some(id);
                    }
                    chunks.push(json);
                }
                if let AgentEvent::Stream(StreamEvent::PayloadProgress { partial, kind, .. }) = step
                    && kind != "suggested_values"
                {
                    // The block being drafted is the card last sent.
                    if let Some(id) = &last_card {
                        prop_assert_eq!(&cards[id]["data"], partial);
                        prop_assert_eq!(&cards[id]["status"], "drafting");
                    }
                }
            }
            // The turn's task stopped without its end: `finish` still ends the message.
            chunks.extend(t.finish().iter().map(Chunk::to_json));
            prop_assert!(t.finish().is_empty());

            let kinds: Vec<&str> = chunks.iter().map(|c| c["type"].as_str().unwrap()).collect();
            prop_assert_eq!(kinds[0], "start");
            prop_assert_eq!(kinds.iter().filter(|k| **k == "start").count(), 1);
            prop_assert_eq!(kinds.iter().filter(|k| **k == "finish").count(), 1);
            prop_assert_eq!(*kinds.last().unwrap(), "finish");
            let (mut open, mut used): (Option<(String, String)>, HashSet<String>) = (None, HashSet::new());
            let (mut seen_text, mut seen_reasoning) = (String::new(), String::new());
            let mut data_types: HashMap<String, String> = HashMap::new();
            let mut calls = HashSet::new();
            for chunk in &chunks {
                let kind = chunk["type"].as_str().unwrap();
                let id = chunk["id"].as_str().map(str::to_string);
                match kind {
                    "text-start" | "reasoning-start" => {
                        prop_assert!(open.is_none(), "{} inside an open part", kind);
                        let id = id.unwrap();
                        prop_assert!(used.insert(id.clone()), "{} reused", id);
                        open = Some((kind.replace("-start", ""), id));
                    }
                    "text-delta" | "reasoning-delta" => {
                        let part = kind.replace("-delta", "");
                        prop_assert_eq!(open.as_ref(), Some(&(part.clone(), id.unwrap())));
                        let delta = chunk["delta"].as_str().unwrap();
                        prop_assert!(!delta.is_empty());
                        if part == "text" { seen_text.push_str(delta) } else { seen_reasoning.push_str(delta) }
                    }
                    "text-end" | "reasoning-end" => {
                        prop_assert_eq!(open.take(), Some((kind.replace("-end", ""), id.unwrap())));
                    }
                    _ => {
                        // A tool call may come while a part is open; nothing else may.
                        if !kind.starts_with("tool-") {
                            prop_assert!(open.is_none(), "{} inside an open part", kind);
                        }
                        if let Some(name) = kind.strip_prefix("data-") {
                            let id = id.unwrap();
                            let before = data_types.insert(id.clone(), name.to_string());
                            prop_assert!(before.is_none_or(|b| b == name), "{} changed type", id);
                        }
                        if kind == "tool-input-available" {
                            calls.insert(chunk["toolCallId"].clone());
                        }
                        if kind == "tool-approval-request" {
                            prop_assert!(calls.contains(&chunk["toolCallId"]));
                        }
                    }
                }
            }
            prop_assert_eq!(seen_text, text);
            prop_assert_eq!(seen_reasoning, reasoning);
        }
    }
}
