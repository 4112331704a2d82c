//! An agent's turn events as AG-UI events (the mapping of `docs/agui.md`):
//! text and reasoning become messages opened on their first piece and closed before
//! anything that must not fall inside them, a payload becomes an activity whose content
//! is its card (a snapshot when it starts, JSON Patches of the typed partial while it
//! streams, a snapshot of the whole value when the turn completes), and the turn's end
//! becomes `RUN_FINISHED`: interrupted when the proposal waits for the user's decision.
//! A refusal or a content filter's stop ends the run with `RUN_ERROR`, its code
//! `refusal` or `content_filter`.

use crate::decision::proposal_id;
use crate::events::{Event, Interrupt, Outcome, PayloadActivity};
use payload_agent::AgentEvent;
use payload_core::stream::StreamEvent;
use payload_core::suggestions::{SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_NAME};
use serde_json::{Value, json};

/// The activity type of payload cards.
pub const PAYLOAD_ACTIVITY: &str = "payload";

/// The reason of a payload's interrupt.
pub const DECISION_REASON: &str = "payload_decision";

/// The id of the card of the payload of `turn` in `conversation`.
pub fn card_id(conversation: &str, turn: usize) -> String {
    format!("payload-{conversation}-{turn}")
}

/// Translates one run's turn events, in order.
pub struct Translator {
    thread_id: String,
    run_id: String,
    conversation: String,
    turn: usize,
    /// Which types the app decides (their proposals interrupt the run).
    decidable: Box<dyn Fn(&str) -> bool + Send>,
    /// How many messages were opened (each gets a fresh id).
    opened: usize,
    text: Option<String>,
    reasoning: Option<String>,
    /// The card's content as last sent, what the next patch is made against.
    card: Option<Value>,
    /// Whether the run's terminal event (`RUN_FINISHED` or `RUN_ERROR`) was sent:
    /// nothing follows it (the agent completes after an error; that is not sent).
    ended: bool,
}

impl Translator {
    /// A translator for turn `turn` of `conversation`, run as `run_id` on `thread_id`.
    pub fn new(
        thread_id: String,
        run_id: String,
        conversation: String,
        turn: usize,
        decidable: impl Fn(&str) -> bool + Send + 'static,
    ) -> Translator {
        Translator {
            thread_id,
            run_id,
            conversation,
            turn,
            decidable: Box::new(decidable),
            opened: 0,
            text: None,
            reasoning: None,
            card: None,
            ended: false,
        }
    }

    /// `RUN_STARTED`.
    pub fn started(&self) -> Event {
        Event::RunStarted {
            thread_id: self.thread_id.clone(),
            run_id: self.run_id.clone(),
        }
    }

    /// The AG-UI events of `event`: none once the run has ended.
    pub fn translate(&mut self, event: AgentEvent) -> Vec<Event> {
        if self.ended {
            return Vec::new();
        }
        let mut out = self.events(event);
        self.ended = out
            .iter()
            .any(|e| matches!(e, Event::RunFinished { .. } | Event::RunError { .. }));
        out.truncate(
            out.iter()
                .position(|e| matches!(e, Event::RunFinished { .. } | Event::RunError { .. }))
                .map_or(out.len(), |last| last + 1),
        );
        out
    }

    /// The AG-UI events of one of the core's stream events, for an app that parses its
    /// model's stream itself (`StreamParser`) with no agent: as [`Self::translate`].
    pub fn translate_stream(&mut self, event: StreamEvent) -> Vec<Event> {
        self.translate(AgentEvent::Stream(event))
    }

    /// The run's end when the turn's events stopped before it (the turn's task ended
    /// without completing): a `RUN_ERROR`, so every run ends with its terminal event.
    pub fn finish(&mut self) -> Option<Event> {
        if self.ended {
            return None;
        }
        self.ended = true;
        Some(Event::RunError {
            message: "the turn ended without an answer".into(),
            code: Some("turn_failed".into()),
        })
    }

    /// The AG-UI events of `event`, the run's end not considered.
    fn events(&mut self, event: AgentEvent) -> Vec<Event> {
        let mut out = Vec::new();
        match event {
            // Status lines ("Thinking…") are the chat page's; AG-UI has no such event.
            AgentEvent::Status { .. } | AgentEvent::ToolProgress { .. } => {}
            AgentEvent::Stream(StreamEvent::TextDelta { text, .. }) if !text.is_empty() => {
                self.close_reasoning(&mut out);
                let message_id = self.open_text(&mut out);
                out.push(Event::TextMessageContent {
                    message_id,
                    delta: text,
                });
            }
            AgentEvent::Stream(StreamEvent::TextDelta { .. }) => {}
            AgentEvent::Stream(StreamEvent::ReasoningDelta { text, .. }) if !text.is_empty() => {
                let message_id = self.open_reasoning(&mut out);
                out.push(Event::ReasoningMessageContent {
                    message_id,
                    delta: text,
                });
            }
            AgentEvent::Stream(StreamEvent::ReasoningDelta { .. }) => {}
            // The card's outcome arrives with the run's result.
            AgentEvent::Stream(StreamEvent::PayloadEnd { .. }) => {}
            // Suggestion chips are chips, not a payload: they arrive whole in
            // `RUN_FINISHED`'s result, and never take the payload card's place.
            AgentEvent::Stream(
                StreamEvent::PayloadStart { kind, .. } | StreamEvent::PayloadProgress { kind, .. },
            ) if is_chips(&kind) => {}
            AgentEvent::Stream(StreamEvent::PayloadStart { kind, .. }) => {
                let content = card(&kind, "drafting", json!({}), None);
                self.card = Some(content.clone());
                out.push(Event::ActivitySnapshot {
                    message_id: card_id(&self.conversation, self.turn),
                    activity_type: PAYLOAD_ACTIVITY,
                    content,
                    replace: true,
                });
            }
            // The card's activity deltas carry each element already, as the preview
            // that holds it arrives.
            AgentEvent::Stream(StreamEvent::PayloadElement { .. }) => {}
            AgentEvent::Stream(StreamEvent::PayloadProgress { kind, partial, .. }) => {
                let next = card(&kind, "drafting", partial, None);
                match &self.card {
                    Some(before) => {
                        let patch = json_patch::diff(before, &next);
                        if !patch.0.is_empty() {
                            out.push(Event::ActivityDelta {
                                message_id: card_id(&self.conversation, self.turn),
                                activity_type: PAYLOAD_ACTIVITY,
                                patch,
                            });
                        }
                    }
                    None => out.push(Event::ActivitySnapshot {
                        message_id: card_id(&self.conversation, self.turn),
                        activity_type: PAYLOAD_ACTIVITY,
                        content: next.clone(),
                        replace: true,
                    }),
                }
                self.card = Some(next);
            }
            AgentEvent::ToolStart {
                id, tool, input, ..
            } => {
                self.close_reasoning(&mut out);
                out.push(Event::ToolCallStart {
                    tool_call_id: id.clone(),
                    tool_call_name: tool,
                    parent_message_id: self.text.clone(),
                });
                out.push(Event::ToolCallArgs {
                    tool_call_id: id.clone(),
                    delta: input.to_string(),
                });
                out.push(Event::ToolCallEnd { tool_call_id: id });
            }
            AgentEvent::ToolComplete { id, text, .. } => {
                out.push(Event::ToolCallResult {
                    message_id: format!("tool-result-{id}"),
                    tool_call_id: id,
                    content: text,
                    role: "tool",
                });
            }
            AgentEvent::Stream(StreamEvent::Complete(parsed)) => {
                self.close_reasoning(&mut out);
                self.close_text(&mut out);
                let result = serde_json::to_value(&parsed).unwrap_or(Value::Null);
                let mut interrupts = Vec::new();
                if let Some(payload) = &parsed.custom_payload {
                    let decidable = (self.decidable)(&payload.kind);
                    let status = if decidable { "proposed" } else { "shown" };
                    out.push(Event::ActivitySnapshot {
                        message_id: card_id(&self.conversation, self.turn),
                        activity_type: PAYLOAD_ACTIVITY,
                        content: card(&payload.kind, status, payload.data().clone(), None),
                        replace: true,
                    });
                    if decidable {
                        interrupts.push(self.interrupt(&payload.kind));
                    }
                } else {
                    // A payload began but none was accepted: the card says so.
                    self.reject_card(&mut out);
                }
                let outcome = if interrupts.is_empty() {
                    Outcome::Success
                } else {
                    Outcome::Interrupt { interrupts }
                };
                out.push(Event::RunFinished {
                    thread_id: self.thread_id.clone(),
                    run_id: self.run_id.clone(),
                    result: Some(result),
                    outcome,
                });
            }
            AgentEvent::Error { message } => {
                // RUN_ERROR ends the run: nothing may follow it, open messages included.
                out.push(Event::RunError {
                    message,
                    code: Some("turn_failed".into()),
                });
            }
            AgentEvent::Refusal { message, reason } => {
                // A refusal or a content filter's stop is the run's outcome: the run
                // ends with it, its code the reason, and the turn's `complete` after it
                // (the text before the refusal) is not sent (docs/agui.md).
                self.reject_card(&mut out);
                out.push(Event::RunError {
                    message,
                    code: Some(reason.as_str().into()),
                });
            }
            // An event a later agent adds has no AG-UI form yet: the run goes on
            // without it, and `complete` still carries the whole response.
            _ => {}
        }
        out
    }

    /// The card of a payload that began, sent again as `rejected`: none was accepted.
    fn reject_card(&self, out: &mut Vec<Event>) {
        if let Some(kind) = self.card.as_ref().and_then(|c| c.get("type")) {
            let kind = kind.as_str().unwrap_or_default().to_string();
            out.push(Event::ActivitySnapshot {
                message_id: card_id(&self.conversation, self.turn),
                activity_type: PAYLOAD_ACTIVITY,
                content: card(&kind, "rejected", json!({}), None),
                replace: true,
            });
        }
    }

    /// What the run waits for: the decision on the proposal of this turn.
    fn interrupt(&self, kind: &str) -> Interrupt {
        Interrupt {
            id: proposal_id(self.turn, 0),
            reason: DECISION_REASON.into(),
            message: format!("Accept or dismiss the proposed {kind}"),
            response_schema: decision_schema(),
            metadata: json!({
                "payloadType": kind,
                "turn": self.turn,
                "activityId": card_id(&self.conversation, self.turn),
            }),
        }
    }

    fn open_text(&mut self, out: &mut Vec<Event>) -> String {
        if let Some(id) = &self.text {
            return id.clone();
        }
        let id = self.fresh_id("message");
        out.push(Event::TextMessageStart {
            message_id: id.clone(),
            role: "assistant",
        });
        self.text = Some(id.clone());
        id
    }

    fn close_text(&mut self, out: &mut Vec<Event>) {
        if let Some(message_id) = self.text.take() {
            out.push(Event::TextMessageEnd { message_id });
        }
    }

    fn open_reasoning(&mut self, out: &mut Vec<Event>) -> String {
        if let Some(id) = &self.reasoning {
            return id.clone();
        }
        let id = self.fresh_id("reasoning");
        out.push(Event::ReasoningStart {
            message_id: id.clone(),
        });
        out.push(Event::ReasoningMessageStart {
            message_id: id.clone(),
            role: "reasoning",
        });
        self.reasoning = Some(id.clone());
        id
    }

    fn close_reasoning(&mut self, out: &mut Vec<Event>) {
        if let Some(message_id) = self.reasoning.take() {
            out.push(Event::ReasoningMessageEnd {
                message_id: message_id.clone(),
            });
            out.push(Event::ReasoningEnd { message_id });
        }
    }

    fn fresh_id(&mut self, what: &str) -> String {
        self.opened += 1;
        format!("{what}-{}-{}-{}", self.run_id, self.turn, self.opened)
    }
}

/// Whether a block of this type is suggestion chips, not a payload.
fn is_chips(kind: &str) -> bool {
    kind == SUGGESTED_VALUES_NAME || kind == SUGGESTED_ACTIONS_NAME
}

/// A payload card's content.
pub fn card(kind: &str, status: &'static str, data: Value, applied: Option<Value>) -> Value {
    serde_json::to_value(PayloadActivity {
        kind: kind.to_string(),
        status,
        data,
        applied,
    })
    .unwrap_or(Value::Null)
}

/// What a resume entry's `payload` may say.
pub fn decision_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "decision": {"enum": ["accept", "dismiss"]},
            "options": {"type": "object"}
        },
        "required": ["decision"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::{
        complete, complete_saying, error, progress, reasoning, refusal, start, text,
    };
    use payload_agent::RefusalReason;

    fn translator() -> Translator {
        Translator::new("t".into(), "r".into(), "c".into(), 2, |kind| kind == "note")
    }

    /// What `t` sends for `events`, in order (`RUN_STARTED` is the caller's).
    fn translate_all(
        t: &mut Translator,
        events: impl IntoIterator<Item = AgentEvent>,
    ) -> Vec<Event> {
        events.into_iter().flat_map(|e| t.translate(e)).collect()
    }

    /// Each event's `type`.
    fn names(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| {
                serde_json::to_value(e).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn messages_open_once_close_before_the_end_and_a_decidable_proposal_interrupts() {
        let mut t = translator();
        let mut all = vec![t.started()];
        all.extend(translate_all(
            &mut t,
            [
                reasoning("hm"),
                text("Here"),
                start("note"),
                progress("note", json!({"text": "mi"})),
                progress("note", json!({"text": "milk"})),
                text(" it is"),
                complete_saying("Here it is", Some(("note", json!({"text": "milk"})))),
            ],
        ));
        assert_eq!(
            names(&all),
            [
                "RUN_STARTED",
                "REASONING_START",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_END",
                "REASONING_END",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "ACTIVITY_SNAPSHOT",
                "ACTIVITY_DELTA",
                "ACTIVITY_DELTA",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "ACTIVITY_SNAPSHOT",
                "RUN_FINISHED",
            ]
        );
        let finished = serde_json::to_value(all.last().unwrap()).unwrap();
        assert_eq!(finished["outcome"]["type"], "interrupt");
        assert_eq!(finished["outcome"]["interrupts"][0]["id"], "payload-2");
        assert_eq!(crate::parse_proposal_id("payload-2"), Some((2, 0)));
        // The patches rebuild the partial the stream showed.
        let mut content = serde_json::to_value(&all[8]).unwrap()["content"].clone();
        for event in &all[9..11] {
            let Event::ActivityDelta { patch, .. } = event else {
                panic!()
            };
            json_patch::patch(&mut content, patch).unwrap();
        }
        assert_eq!(content["data"], json!({"text": "milk"}));
        assert_eq!(content["status"], "drafting");
    }

    #[test]
    fn a_type_the_app_does_not_decide_finishes_the_run_and_an_error_ends_it() {
        let events = translator().translate(complete(Some(("other", json!({})))));
        let finished = serde_json::to_value(events.last().unwrap()).unwrap();
        assert_eq!(finished["outcome"], json!({"type": "success"}));
        let error = translator().translate(error("no"));
        assert_eq!(names(&error), ["RUN_ERROR"]);
    }

    #[test]
    fn a_refusal_or_a_filters_stop_ends_the_run_with_its_reason_as_the_code() {
        for (reason, code) in [
            (RefusalReason::Refusal, "refusal"),
            (RefusalReason::ContentFilter, "content_filter"),
        ] {
            let mut t = translator();
            let mut all = vec![t.started()];
            all.extend(translate_all(
                &mut t,
                [
                    text("Sure, "),
                    refusal("No.", reason),
                    complete_saying("Sure,", None),
                ],
            ));
            assert_eq!(
                names(&all),
                [
                    "RUN_STARTED",
                    "TEXT_MESSAGE_START",
                    "TEXT_MESSAGE_CONTENT",
                    "RUN_ERROR"
                ]
            );
            let error = serde_json::to_value(all.last().unwrap()).unwrap();
            assert_eq!(error["message"], "No.");
            assert_eq!(error["code"], code);
        }
    }

    #[test]
    fn nothing_follows_run_error_not_even_the_turns_completion() {
        // The agent completes with what arrived after reporting the failure.
        let all = translate_all(
            &mut translator(),
            [
                text("Here"),
                error("the model failed"),
                complete_saying("Here", Some(("note", json!({"text": "milk"})))),
            ],
        );
        assert_eq!(
            names(&all),
            ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "RUN_ERROR"]
        );
    }

    #[test]
    fn a_turn_that_stops_before_its_end_is_a_run_error_and_an_ended_run_gets_nothing_more() {
        let mut t = translator();
        t.translate(text("Hi"));
        assert!(matches!(t.finish(), Some(Event::RunError { .. })));
        assert_eq!(t.finish(), None);
        let mut t = translator();
        t.translate(complete(None));
        assert_eq!(t.finish(), None);
    }

    #[test]
    fn chips_never_take_the_payload_cards_place() {
        let all = translate_all(
            &mut translator(),
            [
                start("note"),
                progress("note", json!({"text": "milk"})),
                start("suggested_values"),
                progress("suggested_values", json!([{"label": "More"}])),
                start("suggested_actions"),
            ],
        );
        let cards: Vec<&Value> = all
            .iter()
            .filter_map(|e| match e {
                Event::ActivitySnapshot { content, .. } => Some(content),
                _ => None,
            })
            .collect();
        assert_eq!(cards.len(), 1);
        assert_eq!(cards[0]["type"], "note");
        // A turn whose only blocks were chips shows no card, rejected or other.
        let all = translate_all(
            &mut translator(),
            [start("suggested_values"), complete(None)],
        );
        assert_eq!(names(&all), ["RUN_FINISHED"]);
    }

    mod properties {
        //! Whatever the turn sends, the events are a well-formed AG-UI run: one terminal
        //! event, last; messages opened before their content and closed before the run
        //! finishes; the text and reasoning deltas are the turn's, in order; applying
        //! the patches to the first snapshot gives, step by step, every partial the
        //! stream showed; tool calls balanced; no optional field sent as `null`.

        use super::super::*;
        use crate::test_events::{
            complete, error, progress, reasoning, refusal, start, status, text, tool_start,
        };
        use payload_agent::RefusalReason;
        use proptest::prelude::*;

        /// One event of the turn, before its end.
        fn step() -> impl Strategy<Value = AgentEvent> {
            let piece = "[a-z \n]{0,6}";
            prop_oneof![
                piece.prop_map(text),
                piece.prop_map(reasoning),
                Just(status()),
                Just(start("note")),
                prop::collection::vec("[a-z]{0,3}", 0..4).prop_map(|items| {
                    progress("note", json!({ "items": items, "count": items.len() }))
                }),
                (0..3usize).prop_map(tool_start),
            ]
        }

        /// The turn's end.
        fn end() -> impl Strategy<Value = AgentEvent> {
            prop_oneof![
                prop::option::of(prop_oneof![Just("note"), Just("other")])
                    .prop_map(|kind| complete(kind.map(|k| (k, json!({ "items": ["x"] }))))),
                Just(error("failed")),
                prop_oneof![
                    Just(RefusalReason::Refusal),
                    Just(RefusalReason::ContentFilter)
                ]
                .prop_map(|reason| refusal("no", reason)),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            #[test]
            fn every_turn_is_a_well_formed_run(steps in prop::collection::vec(step(), 0..24), last in end(), completes_after_error in any::<bool>()) {
                let mut t = Translator::new("t".into(), "r".into(), "c".into(), 0, |k| k == "note");
                let mut out = vec![serde_json::to_value(t.started()).unwrap()];
                let (mut text, mut reasoning) = (String::new(), String::new());
                let mut client_card = Value::Null;
                // The agent sends `complete` after a refusal too, and after an error it
                // completes with what arrived, as it does when the model fails: the run
                // has ended, so none of that is sent.
                let after = match last {
                    AgentEvent::Refusal { .. } => Some(complete(None)),
                    AgentEvent::Error { .. } if completes_after_error => Some(complete(Some(("note", json!({ "items": ["x"] }))))),
                    _ => None,
                };
                for step in steps.iter().chain([&last]).chain(after.as_ref()) {
                    match step {
                        AgentEvent::Stream(StreamEvent::TextDelta { text: piece, .. }) => text.push_str(piece),
                        AgentEvent::Stream(StreamEvent::ReasoningDelta { text: piece, .. }) => reasoning.push_str(piece),
                        _ => {}
                    }
                    // A tool's result follows its start, as the agent sends them.
                    let mut events = t.translate(step.clone());
                    if let AgentEvent::ToolStart { id, tool, .. } = step {
                        events.extend(t.translate(AgentEvent::ToolComplete {
                            id: id.clone(), tool: tool.clone(), index: 0,
                            marker: "[[tool:0]]".into(), text: "done".into(), payload: None,
                        }));
                    }
                    for event in &events {
                        match event {
                            Event::ActivitySnapshot { content, .. } => client_card = content.clone(),
                            Event::ActivityDelta { patch, .. } => json_patch::patch(&mut client_card, patch).unwrap(),
                            _ => {}
                        }
                    }
                    // The card as a client holds it is the partial the stream showed.
                    if let AgentEvent::Stream(StreamEvent::PayloadProgress { partial, .. }) = step {
                        prop_assert_eq!(&client_card["data"], partial);
                        prop_assert_eq!(&client_card["status"], "drafting");
                    }
                    out.extend(events.iter().map(|e| serde_json::to_value(e).unwrap()));
                }
                let kinds: Vec<&str> = out.iter().map(|e| e["type"].as_str().unwrap()).collect();
                let terminal = kinds.iter().filter(|k| **k == "RUN_FINISHED" || **k == "RUN_ERROR").count();
                prop_assert_eq!(terminal, 1);
                prop_assert!(matches!(*kinds.last().unwrap(), "RUN_FINISHED" | "RUN_ERROR"));
                let (mut open_text, mut open_reasoning, mut open_tools) = (None, None, Vec::new());
                let (mut seen_text, mut seen_reasoning) = (String::new(), String::new());
                for event in &out {
                    let id = event.get("messageId").cloned();
                    match event["type"].as_str().unwrap() {
                        "TEXT_MESSAGE_START" => { prop_assert!(open_text.is_none()); open_text = id; }
                        "TEXT_MESSAGE_CONTENT" => {
                            prop_assert_eq!(&open_text, &id);
                            prop_assert!(!event["delta"].as_str().unwrap().is_empty());
                            seen_text.push_str(event["delta"].as_str().unwrap());
                        }
                        "TEXT_MESSAGE_END" => { prop_assert_eq!(&open_text, &id); open_text = None; }
                        "REASONING_START" => { prop_assert!(open_reasoning.is_none()); open_reasoning = id; }
                        "REASONING_MESSAGE_CONTENT" => {
                            prop_assert_eq!(&open_reasoning, &id);
                            seen_reasoning.push_str(event["delta"].as_str().unwrap());
                        }
                        "REASONING_END" => { prop_assert_eq!(&open_reasoning, &id); open_reasoning = None; }
                        "TOOL_CALL_START" => open_tools.push(event["toolCallId"].clone()),
                        "TOOL_CALL_END" => prop_assert_eq!(open_tools.pop(), Some(event["toolCallId"].clone())),
                        "ACTIVITY_DELTA" => prop_assert!(!event["patch"].as_array().unwrap().is_empty()),
                        "RUN_FINISHED" => {
                            prop_assert!(open_text.is_none() && open_reasoning.is_none());
                        }
                        _ => {}
                    }
                    for key in ["parentMessageId", "code", "result", "timestamp"] {
                        prop_assert!(!event.get(key).is_some_and(Value::is_null), "{} is null", key);
                    }
                }
                prop_assert!(open_tools.is_empty());
                if kinds.last() == Some(&"RUN_FINISHED") {
                    prop_assert_eq!(seen_text, text);
                    prop_assert_eq!(seen_reasoning, reasoning);
                }
            }
        }
    }
}
