//! AG-UI in Rust: a run streams reasoning, text and the payload's card (a snapshot, then
//! JSON Patches of the partial that rebuild it), ends waiting for the decision, and
//! the next run's `resume` decides it with the app's handler, once.

use crate::app::*;
use serde_json::{Value, json};

/// A `RunAgentInput` asking `message` on the shop page.
pub fn input(thread: &str, run: &str, message: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": run,
        "messages": [{"id": "m1", "role": "user", "content": message}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {"context": {"current_page": "shop"}},
    })
}

/// A run answering `resume`.
pub fn resume(thread: &str, run: &str, entries: Value) -> Value {
    json!({
        "threadId": thread, "runId": run, "messages": [], "tools": [], "context": [],
        "resume": entries,
    })
}

/// The events of a run.
pub async fn run(running: &Running, body: &Value) -> Vec<Value> {
    let (status, text) = post(running, "/api/agui", body).await;
    assert_eq!(status, 200, "{text}");
    data_events(&text)
}

/// The thread a run is on: the one its `RUN_STARTED` names (the server's, for a
/// thread it did not issue), what the next run on the thread sends.
pub fn thread(events: &[Value]) -> String {
    events[0]["threadId"].as_str().unwrap().to_string()
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn a_run_streams_its_text_and_payload_and_waits_for_the_decision() {
    let running = start(LIST_ANSWER).await;
    let events = run(&running, &input("thread-1", "run-1", "What do I need?")).await;
    let types = types(&events);
    assert_eq!(types[0], "RUN_STARTED");
    let thread = self::thread(&events);
    assert_ne!(thread, "thread-1", "the server issues the thread");
    assert_eq!(*types.last().unwrap(), "RUN_FINISHED");
    for required in [
        "REASONING_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
    ] {
        assert!(types.contains(&required), "{required} in {types:?}");
    }
    // The text is the message: the block is not in it.
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Here is your list.\n\nEnjoy!");
    // The patches rebuild, from the first snapshot, every partial the stream showed,
    // and the last snapshot is the whole value, proposed.
    let mut card = Value::Null;
    for event in &events {
        match event["type"].as_str().unwrap() {
            "ACTIVITY_SNAPSHOT" => card = event["content"].clone(),
            "ACTIVITY_DELTA" => {
                let patch: json_patch::Patch =
                    serde_json::from_value(event["patch"].clone()).unwrap();
                json_patch::patch(&mut card, &patch).unwrap();
                assert_eq!(card["status"], "drafting");
            }
            _ => {}
        }
    }
    assert_eq!(card["status"], "proposed");
    assert_eq!(card["data"]["items"][1]["name"], "bread");
    let finished = events.last().unwrap();
    assert_eq!(finished["outcome"]["type"], "interrupt");
    let interrupt = &finished["outcome"]["interrupts"][0];
    assert_eq!(interrupt["reason"], "payload_decision");
    assert_eq!(interrupt["metadata"]["payloadType"], "shopping_list");
    assert_eq!(
        finished["result"]["custom_payload"]["type"],
        "shopping_list"
    );
    assert_eq!(saved(&running), 0);

    // The decision, as the next run's resume: the handler runs once.
    let id = interrupt["id"].as_str().unwrap();
    let entry = json!([{"interruptId": id, "status": "resolved",
        "payload": {"decision": "accept", "options": {"note": "weekly"}}}]);
    let events = run(&running, &resume(&thread, "run-2", entry.clone())).await;
    assert_eq!(
        self::types(&events),
        ["RUN_STARTED", "ACTIVITY_SNAPSHOT", "RUN_FINISHED"]
    );
    assert_eq!(events[1]["content"]["status"], "accepted");
    assert_eq!(events[1]["content"]["applied"]["saved"], 2);
    assert_eq!(events[2]["outcome"]["type"], "success");
    assert_eq!(saved(&running), 1);
    let again = run(&running, &resume(&thread, "run-3", entry)).await;
    assert_eq!(self::types(&again), ["RUN_STARTED", "RUN_ERROR"]);
    assert_eq!(saved(&running), 1);
}

#[tokio::test]
async fn a_cancelled_interrupt_dismisses_and_a_shown_type_finishes_the_run() {
    let running = start(LIST_ANSWER).await;
    let events = run(&running, &input("thread-2", "run-1", "List?")).await;
    let id = events.last().unwrap()["outcome"]["interrupts"][0]["id"].clone();
    let events = run(
        &running,
        &resume(
            &thread(&events),
            "run-2",
            json!([{"interruptId": id, "status": "cancelled"}]),
        ),
    )
    .await;
    assert_eq!(events[1]["content"]["status"], "dismissed");
    assert_eq!(saved(&running), 0);

    let running = start(NOTE_ANSWER).await;
    let events = run(&running, &input("thread-3", "run-1", "Note?")).await;
    let finished = events.last().unwrap();
    assert_eq!(finished["outcome"], json!({"type": "success"}));
    let card = events
        .iter()
        .rev()
        .find(|e| e["type"] == "ACTIVITY_SNAPSHOT")
        .unwrap();
    assert_eq!(card["content"]["status"], "shown");
}

#[tokio::test]
async fn a_thread_is_one_conversation_and_bad_runs_are_refused_before_they_start() {
    let running = start(NOTE_ANSWER).await;
    let first = run(&running, &input("thread-4", "run-1", "One")).await;
    let conversation = thread(&first);
    assert_ne!(
        conversation, "thread-4",
        "the server makes the conversation's id"
    );
    run(&running, &input(&conversation, "run-2", "Two")).await;
    let users = running
        .service
        .db()
        .messages(&conversation)
        .await
        .unwrap()
        .into_iter()
        .filter(|m| m.role == "user")
        .count();
    assert_eq!(users, 2);
    for (body, status) in [
        (
            resume(
                "unknown-thread",
                "r",
                json!([{"interruptId": "payload-0", "status": "resolved"}]),
            ),
            400,
        ),
        (
            json!({"threadId": "t", "runId": "r", "messages": [{"id": "a", "role": "assistant", "content": "hi"}]}),
            400,
        ),
        (json!({"threadId": "", "runId": "r", "messages": []}), 400),
    ] {
        let (got, text) = post(&running, "/api/agui", &body).await;
        assert_eq!(got, status, "{text}");
        assert!(serde_json::from_str::<Value>(&text).unwrap()["error"].is_string());
    }
}

/// A content filter's stop ends the run with `RUN_ERROR {code: "content_filter"}`, the
/// last event: the text before it was streamed, the card the filter cut is sent again
/// as `rejected`, no `RUN_FINISHED` follows.
#[tokio::test]
async fn a_filters_stop_ends_the_run_with_run_error_last() {
    let running = start_model(stopping(payload_agent::RefusalReason::ContentFilter)).await;
    let events = run(&running, &input("thread-f", "run-1", "milk?")).await;
    let types = types(&events);
    assert_eq!(
        types,
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "ACTIVITY_SNAPSHOT",
            "ACTIVITY_DELTA",
            "ACTIVITY_SNAPSHOT",
            "RUN_ERROR"
        ],
        "{events:?}"
    );
    assert_eq!(events[5]["content"]["status"], "rejected");
    let error = events.last().unwrap();
    assert_eq!(error["code"], "content_filter");
    assert_eq!(
        error["message"],
        "The provider's content filter stopped the answer."
    );
}
