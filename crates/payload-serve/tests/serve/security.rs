//! The server's guarantees hold for any app, here the shop app: only this server's own
//! page changes anything, on every route that can (a chat turn, a decision, an AG-UI run
//! or resume), and a proposal decided by many clicks at once, over both decision routes,
//! is decided once.

use crate::agui::{input, resume};
use crate::app::*;
use crate::generic::chat_turn;
use serde_json::{Value, json};
use std::sync::Arc;

/// Headers a request carries and the status it must get.
type Case = (&'static [(&'static str, &'static str)], u16);

/// Requests another site's page (or a form) could make: each refused before any handler.
const FOREIGN: [Case; 8] = [
    (&[("origin", "http://evil.example")], 403),
    (&[("origin", "null")], 403),
    (&[("referer", "http://evil.example/page")], 403),
    (&[("origin", "http://127.0.0.1:1")], 403),
    (&[("sec-fetch-site", "cross-site")], 403),
    (&[("sec-fetch-site", "same-site")], 403),
    (&[("content-type", "text/plain")], 415),
    (
        &[("content-type", "application/x-www-form-urlencoded")],
        415,
    ),
];

/// The conversation and turn of an AG-UI interrupt (its card is `payload-{conversation}-{turn}`).
fn decided_at(interrupt: &Value) -> (String, String) {
    let card = interrupt["metadata"]["activityId"].as_str().unwrap();
    let (conversation, turn) = card
        .strip_prefix("payload-")
        .and_then(|rest| rest.rsplit_once('-'))
        .unwrap();
    (conversation.to_string(), turn.to_string())
}

/// An AG-UI run on a new thread that ends waiting for a decision: the thread the
/// server issued (its `RUN_STARTED`'s) and the interrupt.
async fn interrupted(running: &Running) -> (String, Value) {
    let (status, text) = send(running, "/api/agui", &[], &input("new", "run-1", "List?")).await;
    assert_eq!(status, 200, "{text}");
    let events = data_events(&text);
    let thread = events[0]["threadId"].as_str().unwrap().to_string();
    (
        thread,
        events.last().unwrap()["outcome"]["interrupts"][0].clone(),
    )
}

/// How many conversations the server keeps.
fn conversations(running: &Running) -> i64 {
    running
        .service
        .db()
        .sqlite()
        .expect("the tests run on SQLite")
        .conn()
        .query_row("SELECT COUNT(*) FROM conversations", [], |r| r.get(0))
        .unwrap()
}

#[tokio::test]
async fn only_this_servers_page_changes_anything() {
    let running = start(LIST_ANSWER).await;
    let chat = json!({"message": "milk?", "context": {"current_page": "shop"}});
    let (conversation, _) = chat_turn(&running, &chat).await;
    let accept = format!("/api/payloads/{conversation}/0/accept");
    let (thread, interrupt) = interrupted(&running).await;
    let before = conversations(&running);
    let decision = json!([{"interruptId": interrupt["id"], "status": "resolved",
        "payload": {"decision": "accept"}}]);
    let routes: [(&str, Value); 4] = [
        (&accept, json!({})),
        ("/api/agui", resume(&thread, "run-2", decision.clone())),
        ("/api/agui", input("thread-x", "run-1", "List?")),
        ("/api/chat", chat.clone()),
    ];
    for (path, body) in &routes {
        for (headers, status) in FOREIGN {
            let (got, text) = send(&running, path, headers, body).await;
            assert_eq!(got, status, "{path} {headers:?}: {text}");
            let error: Value = serde_json::from_str(&text).unwrap();
            assert!(error["error"].is_string(), "{error}");
        }
    }
    assert_eq!(saved(&running), 0, "nothing was decided");
    assert_eq!(conversations(&running), before, "no run started");

    // The page's own requests: its origin, JSON.
    let own: &[(&str, &str)] = &[("origin", &running.url), ("sec-fetch-site", "same-origin")];
    let (status, text) = send(&running, &accept, own, &json!({})).await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = send(
        &running,
        "/api/agui",
        own,
        &resume(&thread, "run-2", decision),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(data_events(&text)[1]["content"]["status"], "accepted");
    assert_eq!(saved(&running), 2);
}

/// How a concurrent decision came out: decided by this request, or refused.
fn won(status: u16, text: &str) -> bool {
    if status == 409 {
        return false;
    }
    assert_eq!(status, 200, "{text}");
    if !text.contains("RUN_STARTED") {
        return true;
    }
    // A resume run: it decided if its card says so, and was refused with RUN_ERROR.
    let events = data_events(text);
    let last = events.last().unwrap();
    if last["type"] == "RUN_ERROR" {
        return false;
    }
    let status = &events[1]["content"]["status"];
    assert!(status == "accepted" || status == "dismissed", "{events:?}");
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposal_clicked_many_times_at_once_is_decided_once() {
    let running = Arc::new(start(LIST_ANSWER).await);
    let mut accepted = 0;
    for round in 0..4 {
        let (thread, interrupt) = interrupted(&running).await;
        let (conversation, turn) = decided_at(&interrupt);
        // Accepts and dismisses through the decision route, and resumes through AG-UI,
        // all at once.
        let mut requests: Vec<(String, Value)> = Vec::new();
        for i in 0..8 {
            let verb = if i % 4 == 3 { "dismiss" } else { "accept" };
            requests.push((
                format!("/api/payloads/{conversation}/{turn}/{verb}"),
                json!({}),
            ));
            let decision = if i % 2 == 0 { "accept" } else { "dismiss" };
            requests.push((
                "/api/agui".to_string(),
                resume(
                    &thread,
                    &format!("run-{i}"),
                    json!([{"interruptId": interrupt["id"], "status": "resolved",
                        "payload": {"decision": decision}}]),
                ),
            ));
        }
        let tasks = requests.into_iter().map(|(path, body)| {
            let running = running.clone();
            tokio::spawn(async move { send(&running, &path, &[], &body).await })
        });
        let answers = futures::future::try_join_all(tasks).await.unwrap();
        let winners = answers.iter().filter(|(s, t)| won(*s, t)).count();
        assert_eq!(winners, 1, "round {round}: {answers:?}");
        let stored = running
            .service
            .db()
            .messages(&conversation)
            .await
            .unwrap()
            .len();
        assert!(stored >= 2, "the conversation is intact");
        let now = saved(&running);
        assert!(now == accepted || now == accepted + 1, "round {round}");
        accepted = now;
    }
}
