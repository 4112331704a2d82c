//! A long conversation's request stays within the app's history budget: at turn 1,500
//! the oldest turns are left out, whole, and with them their decided payloads, while
//! the page's context and a proposal still awaiting a decision, however old, are sent.

use crate::app::*;
use payload_agent::{HistoryBudget, Model, ModelChunk, ModelMessage, ModelRequest};
use payload_registry::Registry;
use payload_serve::{App, ServeOptions, Service};
use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;

/// The shop app with `budget`, its model keeping the last request it was sent.
async fn serve(budget: HistoryBudget) -> (Running, Arc<Mutex<Option<ModelRequest>>>) {
    let seen: Arc<Mutex<Option<ModelRequest>>> = Arc::default();
    let keep = seen.clone();
    let service: Service = App::new(Registry::global())
        .title("Shop")
        .pages(&["shop"])
        .model(move |_: &payload_serve::TurnInfo| {
            let keep = keep.clone();
            Box::new(move |request: &ModelRequest| {
                *keep.lock().unwrap() = Some(request.clone());
                vec![ModelChunk::Text("Noted.".into())]
            }) as Box<dyn Model>
        })
        .options(ServeOptions {
            history_budget: budget,
            ..ServeOptions::default()
        })
        .build()
        .expect("the app builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(service.clone().serve(listener));
    (Running { url, service }, seen)
}

/// A list payload naming `store`.
fn list(store: &str) -> payload_core::CustomPayload {
    payload_core::CustomPayload::new(
        "shopping_list",
        json!({"store": store, "items": [{"name": "milk", "count": 1, "aisle": "dairy"}]}),
    )
}

/// The text of a request's messages, in bytes.
fn size(messages: &[ModelMessage]) -> usize {
    messages
        .iter()
        .map(|m| match m {
            ModelMessage::User { text } | ModelMessage::Assistant { text, .. } => text.len(),
            ModelMessage::Tool { text, .. } => text.len(),
        })
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_1500_sends_the_recent_turns_the_context_and_the_pending_proposal() {
    let budget = HistoryBudget::default();
    let (running, seen) = serve(budget).await;
    let id = "long-conversation";
    let db = running.service.db();
    db.ensure_conversation(id).await.unwrap();
    let turns = 1_500;
    for turn in 0..turns {
        let question = format!("Question {turn}: {}", "what else do I need? ".repeat(10));
        let answer = format!("Answer {turn}: {}", "you could add some fruit. ".repeat(8));
        db.add_message(id, turn, "user", &question, None)
            .await
            .unwrap();
        db.add_message(id, turn, "assistant", &answer, None)
            .await
            .unwrap();
    }
    // Turn 3 proposed a list the user never decided; turns 4 and 1,490 proposed lists the
    // user dismissed.
    db.add_payload(id, 3, 0, &list("Pending Grocer"), &json!(null))
        .await
        .unwrap();
    db.add_payload(id, 4, 0, &list("Old Dismissed Market"), &json!(null))
        .await
        .unwrap();
    db.add_payload(id, 1_490, 0, &list("Recent Dismissed Market"), &json!(null))
        .await
        .unwrap();
    db.sqlite()
        .expect("the tests run on SQLite")
        .conn()
        .execute(
            "UPDATE payloads SET status = 'dismissed' WHERE turn IN (4, 1490)",
            [],
        )
        .unwrap();

    let (status, body) = post(
        &running,
        "/api/chat",
        &json!({
            "message": "And now?",
            "conversation_id": id,
            "context": {"current_page": "shop", "basket": "CONTEXT-MARK-7F3A"}
        }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let request = seen.lock().unwrap().clone().expect("the model was asked");

    // The history, the new message aside, is within the budget…
    let (new, earlier) = request.messages.split_last().unwrap();
    assert_eq!(*new, ModelMessage::user("And now?"));
    assert!(
        size(earlier) <= budget.chars,
        "{} bytes of history",
        size(earlier)
    );
    // …and it is the most recent turns, whole, oldest first, ending with the last.
    let ModelMessage::User { text: first } = &earlier[0] else {
        panic!("the history starts with {:?}", earlier[0]);
    };
    let from: usize = first["Question ".len()..first.find(':').unwrap()]
        .parse()
        .unwrap();
    assert!(from > 1_000, "the history starts at turn {from}");
    assert_eq!(earlier.len(), 2 * (turns - from));
    assert!(matches!(&earlier[earlier.len() - 1],
        ModelMessage::Assistant { text, .. } if text.starts_with("Answer 1499:")));

    // The system prompt keeps the page's context and the proposal still awaiting a
    // decision; a decided payload goes with its turn, and stays while its turn does.
    let system = &request.system;
    assert!(system.contains("CONTEXT-MARK-7F3A"), "{system}");
    assert!(system.contains("Pending Grocer"), "{system}");
    assert!(!system.contains("Old Dismissed Market"), "{system}");
    assert!(system.contains("Recent Dismissed Market"), "{system}");
    // The whole request is bounded too: the budget, the prompt, and little else.
    let whole = size(&request.messages) + system.len();
    eprintln!(
        "history {} bytes, system {} bytes",
        size(earlier),
        system.len()
    );
    assert!(whole < budget.chars + 64_000, "{whole} bytes in all");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_smaller_budget_sends_fewer_turns() {
    let (running, seen) = serve(HistoryBudget::tokens(250)).await;
    let id = "short-budget";
    let db = running.service.db();
    db.ensure_conversation(id).await.unwrap();
    for turn in 0..20 {
        db.add_message(id, turn, "user", &"q".repeat(100), None)
            .await
            .unwrap();
        db.add_message(id, turn, "assistant", &"a".repeat(100), None)
            .await
            .unwrap();
    }
    let (status, body) = post(
        &running,
        "/api/chat",
        &json!({"message": "next", "conversation_id": id, "context": {"current_page": "shop"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let request = seen.lock().unwrap().clone().unwrap();
    // 1,000 bytes: five turns of 200.
    assert_eq!(request.messages.len(), 2 * 5 + 1);
}
