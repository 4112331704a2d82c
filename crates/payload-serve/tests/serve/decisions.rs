//! A decision applies exactly the proposal its card (or interrupt) names, over both
//! routes: a conversation that starts from the client's history numbers its turns past
//! it, once; two first runs on one new AG-UI thread are two conversations, each with
//! its own thread; and a thread id a client picked opens nothing.

use crate::agui::{input, resume, run, thread};
use crate::app::*;
use serde_json::{Value, json};
use std::time::Duration;

/// A chat turn: the conversation, the turn (`x-turn`) and the `complete` event.
async fn chat(running: &Running, body: &Value) -> (String, usize, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}/api/chat", running.url))
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let header = |name: &str| response.headers()[name].to_str().unwrap().to_string();
    let (conversation, turn) = (header("x-conversation-id"), header("x-turn"));
    let text = response.text().await.unwrap();
    let complete = text
        .split("\n\n")
        .find(|block| block.starts_with("event: complete"))
        .and_then(|block| block.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|data| serde_json::from_str(data).unwrap())
        .unwrap_or_else(|| panic!("no complete event in {text}"));
    (conversation, turn.parse().unwrap(), complete)
}

#[tokio::test]
async fn a_conversation_continued_from_the_clients_history_applies_each_cards_own_proposal() {
    let running = start_echo(Duration::ZERO).await;
    // The page was open when the server restarted: it sends the id the server forgot
    // and the conversation as it shows it.
    let (conversation, first, _) = chat(
        &running,
        &json!({
            "message": "A", "context": {"current_page": "shop"},
            "conversation_id": "forgotten",
            "conversation_history": [
                {"role": "user", "content": "earlier"},
                {"role": "assistant", "content": "an earlier answer"},
            ],
        }),
    )
    .await;
    let mut cards = vec![(first, "A".to_string())];
    for message in ["B", "C", "D"] {
        let (same, turn, complete) = chat(
            &running,
            &json!({"message": message, "context": {"current_page": "shop"},
                "conversation_id": conversation}),
        )
        .await;
        assert_eq!(same, conversation);
        assert_eq!(complete["custom_payload"]["data"]["store"], message);
        cards.push((turn, message.to_string()));
    }
    let turns: std::collections::BTreeSet<usize> = cards.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        turns.len(),
        cards.len(),
        "each turn its own number: {cards:?}"
    );
    // Every proposal is stored, and Accept on a card saves that card's list; the
    // newest first, as a user reaches for the card in view.
    assert_eq!(
        running.service.db().payloads(&conversation).unwrap().len(),
        4
    );
    for (turn, store) in cards.iter().rev() {
        let (status, text) = post(
            &running,
            &format!("/api/payloads/{conversation}/{turn}/accept"),
            &json!({}),
        )
        .await;
        assert_eq!(status, 200, "{text}");
        let decided: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(&decided["applied"]["store"], store, "turn {turn}");
    }
    assert_eq!(stores(&running), ["D", "C", "B", "A"]);
}

#[tokio::test]
async fn a_resume_applies_the_proposal_of_the_run_whose_card_is_shown() {
    let running = start_echo(Duration::ZERO).await;
    // The first run on a thread the server does not know carries earlier messages.
    let mut first = input("client-thread", "run-1", "A");
    first["messages"] = json!([
        {"id": "m0", "role": "user", "content": "earlier"},
        {"id": "m1", "role": "assistant", "content": "an earlier answer"},
        {"id": "m2", "role": "user", "content": "A"},
    ]);
    let events = run(&running, &first).await;
    let thread = thread(&events);
    let interrupt = events.last().unwrap()["outcome"]["interrupts"][0].clone();
    let cancelled = json!([{"interruptId": interrupt["id"], "status": "cancelled"}]);
    let events = run(&running, &resume(&thread, "run-2", cancelled)).await;
    assert_eq!(events[1]["content"]["status"], "dismissed");
    let events = run(&running, &input(&thread, "run-3", "B")).await;
    let card = events
        .iter()
        .rev()
        .find(|e| e["type"] == "ACTIVITY_SNAPSHOT")
        .unwrap();
    assert_eq!(card["content"]["data"]["store"], "B");
    let interrupt = events.last().unwrap()["outcome"]["interrupts"][0].clone();
    assert_eq!(interrupt["metadata"]["activityId"], card["messageId"]);
    let accept = json!([{"interruptId": interrupt["id"], "status": "resolved",
        "payload": {"decision": "accept"}}]);
    let events = run(&running, &resume(&thread, "run-4", accept)).await;
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED", "{events:?}");
    assert_eq!(events[1]["content"]["applied"]["store"], "B");
    assert_eq!(events[1]["messageId"], card["messageId"]);
    assert_eq!(stores(&running), ["B"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_first_runs_on_one_new_thread_are_two_conversations_each_deciding_its_own() {
    let running = start_echo(Duration::from_millis(15)).await;
    let (first_a, first_b) = (input("shared", "run-a", "A"), input("shared", "run-b", "B"));
    let (a, b) = tokio::join!(run(&running, &first_a), run(&running, &first_b));
    let (thread_a, thread_b) = (thread(&a), thread(&b));
    assert_ne!(thread_a, thread_b);
    for (events, thread, store) in [(&a, &thread_a, "A"), (&b, &thread_b, "B")] {
        let interrupt = events.last().unwrap()["outcome"]["interrupts"][0].clone();
        let accept = json!([{"interruptId": interrupt["id"], "status": "resolved",
            "payload": {"decision": "accept"}}]);
        let decided = run(&running, &resume(thread, "resume", accept)).await;
        assert_eq!(
            decided[1]["content"]["applied"]["store"], store,
            "{decided:?}"
        );
    }
    let mut saved = stores(&running);
    saved.sort();
    assert_eq!(saved, ["A", "B"]);
}

#[tokio::test]
async fn a_thread_id_the_client_picked_opens_nothing() {
    let running = start_echo(Duration::ZERO).await;
    let events = run(&running, &input("victim-thread", "run-1", "mine")).await;
    let issued = thread(&events);
    assert_eq!(issued.len(), 32, "128 random bits: {issued}");
    assert!(issued.bytes().all(|b| b.is_ascii_hexdigit()));
    let interrupt = events.last().unwrap()["outcome"]["interrupts"][0].clone();
    // Someone who knows (or guesses) the id the client picked: a run on it is a new
    // conversation of its own, and a resume on it is refused.
    let theirs = run(&running, &input("victim-thread", "run-2", "theirs")).await;
    assert_ne!(thread(&theirs), issued);
    let steal = json!([{"interruptId": interrupt["id"], "status": "resolved",
        "payload": {"decision": "accept"}}]);
    let (status, text) = post(
        &running,
        "/api/agui",
        &resume("victim-thread", "run-3", steal.clone()),
    )
    .await;
    assert_eq!(status, 400, "{text}");
    let (status, text) = get_text(&running, "/api/conversations/victim-thread").await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["messages"],
        json!([])
    );
    let users = running.service.db().messages(&issued).unwrap();
    assert_eq!(users.iter().filter(|m| m.role == "user").count(), 1);
    assert!(stores(&running).is_empty());
    // The thread the server issued is the client's: its resume decides.
    let decided = run(&running, &resume(&issued, "run-4", steal)).await;
    assert_eq!(decided[1]["content"]["applied"]["store"], "mine");
}

#[tokio::test]
async fn a_failed_model_ends_the_run_with_run_error_and_chips_are_not_a_card() {
    let running = start_echo(Duration::ZERO).await;
    let events = run(&running, &input("t", "run-1", "fail")).await;
    assert_eq!(events.last().unwrap()["type"], "RUN_ERROR", "{events:?}");
    let errors = events.iter().filter(|e| e["type"] == "RUN_ERROR").count();
    assert_eq!(errors, 1);
    assert!(!events.iter().any(|e| e["type"] == "RUN_FINISHED"));

    let events = run(&running, &input("t", "run-2", "A")).await;
    for event in &events {
        if event["type"] == "ACTIVITY_SNAPSHOT" {
            assert_eq!(event["content"]["type"], "shopping_list", "{event}");
        }
    }
    let finished = events.last().unwrap();
    assert_eq!(
        finished["result"]["suggested_values"][0]["label"],
        "Add bread"
    );
    assert_eq!(finished["outcome"]["type"], "interrupt");
}

/// GETs `path`: the status and the body's text.
async fn get_text(running: &Running, path: &str) -> (u16, String) {
    let response = reqwest::get(format!("{}{path}", running.url))
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn an_answer_the_database_refuses_is_an_error_never_a_card() {
    // A database that refuses every proposal (as a full disk or a constraint would).
    let app = payload_serve::App::new(payload_registry::Registry::global())
        .pages(&["shop"])
        .schema(
            "CREATE TRIGGER IF NOT EXISTS refuse_proposals BEFORE INSERT ON payloads
             BEGIN SELECT RAISE(ABORT, 'no room'); END",
        )
        .model(echo_model(Duration::ZERO));
    let service = app.build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(service.clone().serve(listener));
    let running = Running { url, service };
    let text = reqwest::Client::new()
        .post(format!("{}/api/chat", running.url))
        .json(&json!({"message": "A", "context": {"current_page": "shop"}}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("event: error"), "{text}");
    assert!(!text.contains("event: complete"), "{text}");
    let events = run(&running, &input("t", "run-1", "A")).await;
    assert_eq!(events.last().unwrap()["type"], "RUN_ERROR", "{events:?}");
    assert!(!events.iter().any(|e| e["content"]["status"] == "proposed"));
}

/// A decision names the payload it decides by its `index` among the turn's payloads
/// (query `?index=N`, 0 by default): index 0 is the answer's first payload; an index
/// the turn holds no proposal at is 404 and changes nothing (the first payload stays
/// proposed and is still decided once); a malformed index is refused.
#[tokio::test]
async fn a_decision_names_its_payload_by_index_and_applies_only_that_one() {
    let running = start_echo(Duration::ZERO).await;
    let (conversation, turn, complete) = chat(
        &running,
        &json!({"message": "A", "context": {"current_page": "shop"}}),
    )
    .await;
    assert_eq!(complete["custom_payload"]["data"]["store"], "A");
    let path = |query: &str| format!("/api/payloads/{conversation}/{turn}/accept{query}");
    let (status, text) = post(&running, &path("?index=1"), &json!({})).await;
    assert_eq!(status, 404, "{text}");
    assert!(text.contains("index 1"), "{text}");
    let (status, text) = post(&running, &path("?index=first"), &json!({})).await;
    assert_eq!(status, 400, "{text}");
    assert!(stores(&running).is_empty(), "nothing applied");
    let (status, text) = post(&running, &path("?index=0"), &json!({})).await;
    assert_eq!(status, 200, "{text}");
    let decided: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(decided["applied"]["store"], "A");
    let (status, _) = post(&running, &path(""), &json!({})).await;
    assert_eq!(status, 409, "decided once");
    assert_eq!(stores(&running), ["A"]);
}
