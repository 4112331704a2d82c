//! The generic endpoints on an app that is not table.that: its manifest, a turn, a
//! decision run by its handler, a type it only shows, and errors in one shape.

use crate::app::*;
use serde_json::{Value, json};

async fn get(running: &Running, path: &str) -> (u16, Value) {
    let response = reqwest::get(format!("{}{path}", running.url))
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// One chat turn: its conversation id and its event stream's body.
pub async fn chat_turn(running: &Running, chat: &Value) -> (String, String) {
    let response = reqwest::Client::new()
        .post(format!("{}/api/chat", running.url))
        .json(chat)
        .send()
        .await
        .unwrap();
    let id = response.headers()["x-conversation-id"]
        .to_str()
        .unwrap()
        .to_string();
    (id, response.text().await.unwrap())
}

#[tokio::test]
async fn the_manifest_gives_each_page_its_starters_and_each_type_its_schema_and_decision() {
    let running = start(LIST_ANSWER).await;
    let (status, app) = get(&running, "/api/app").await;
    assert_eq!(status, 200);
    assert_eq!(app["title"], "Shop");
    assert_eq!(app["recorded"], false);
    assert_eq!(app["default_page"], "shop");
    let page = &app["pages"][0];
    assert_eq!(page["starters"], json!(["Plan my shopping for the week"]));
    let types: Vec<(&str, bool)> = page["payloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["type"].as_str().unwrap(),
                t["decidable"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(types, [("shopping_list", true), ("shop_note", false)]);
    let schema = &page["payloads"][0]["schema"];
    assert_eq!(
        schema["description"],
        "A shopping list for the user to keep."
    );
    assert!(schema.to_string().contains("Where it is in the shop."));
}

#[tokio::test]
async fn a_decision_runs_the_apps_handler_once_and_a_shown_type_cannot_be_decided() {
    let running = start(LIST_ANSWER).await;
    let chat = json!({"message": "milk?", "context": {"current_page": "shop"}});
    let (id, body) = chat_turn(&running, &chat).await;
    let complete = data_events(&body).pop().unwrap();
    assert_eq!(complete["custom_payload"]["type"], "shopping_list");
    let accept = format!("/api/payloads/{id}/0/accept");
    let (status, body) = post(&running, &accept, &json!({"note": "weekly"})).await;
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["status"], "accepted");
    assert_eq!(
        body["applied"],
        json!({"saved": 2, "options": {"note": "weekly"}})
    );
    let (again, body) = post(&running, &accept, &json!({})).await;
    assert_eq!(again, 409, "{body}");
    assert_eq!(saved(&running), 1);

    let running = start(NOTE_ANSWER).await;
    let (id, _) = chat_turn(&running, &chat).await;
    let (status, body) = post(
        &running,
        &format!("/api/payloads/{id}/0/dismiss"),
        &json!({}),
    )
    .await;
    assert_eq!(status, 409);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("only shown"),
        "{body}"
    );
}

#[tokio::test]
async fn every_error_is_json_with_an_error_member() {
    let running = start(LIST_ANSWER).await;
    let client = reqwest::Client::new();
    let cases: Vec<(reqwest::RequestBuilder, u16)> = vec![
        // Not the request's shape: axum's rejection, in our shape.
        (
            client
                .post(format!("{}/api/chat", running.url))
                .json(&json!({"message": 5})),
            422,
        ),
        // Not JSON at all.
        (
            client
                .post(format!("{}/api/chat", running.url))
                .header("content-type", "application/json")
                .body("{"),
            400,
        ),
        // A page the app does not serve.
        (
            client
                .post(format!("{}/api/chat", running.url))
                .json(&json!({"message": "hi", "context": {"current_page": "elsewhere"}})),
            400,
        ),
        // A decision body that is not an object.
        (
            client
                .post(format!("{}/api/payloads/x/0/accept", running.url))
                .json(&json!([1])),
            422,
        ),
        (client.get(format!("{}/no/such/page", running.url)), 404),
        (
            client.get(format!("{}/assets/nothing.js", running.url)),
            404,
        ),
        (client.get(format!("{}/api/chat", running.url)), 405),
        (
            client
                .post(format!("{}/api/agui", running.url))
                .json(&json!({"threadId": "t"})),
            422,
        ),
    ];
    for (request, expected) in cases {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("a JSON body");
        assert_eq!(status, expected, "{body}");
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{body}"
        );
    }
}

/// A content filter's stop is the turn's outcome on `/api/chat`: the `refusal` event
/// (reason and words) before `complete`, the list the filter cut neither accepted nor
/// re-asked, and the stored turn keeps the outcome so the page shows it again.
#[tokio::test]
async fn a_filters_stop_is_sent_and_stored_as_the_turns_refusal() {
    let running = start_model(stopping(payload_agent::RefusalReason::ContentFilter)).await;
    let chat = json!({"message": "milk?", "context": {"current_page": "shop"}});
    let (id, body) = chat_turn(&running, &chat).await;
    let events = data_events(&body);
    let refusal = json!({
        "message": "The provider's content filter stopped the answer.",
        "reason": "content_filter",
    });
    let at = events
        .iter()
        .position(|e| *e == refusal)
        .expect("a refusal event");
    assert_eq!(
        at,
        events.len() - 2,
        "the refusal comes just before complete: {body}"
    );
    let complete = events.last().unwrap();
    assert_eq!(complete["custom_payload"], Value::Null, "{complete}");
    assert!(!body.contains("correct it"), "not re-asked: {body}");
    let (status, stored) = get(&running, &format!("/api/conversations/{id}")).await;
    assert_eq!(status, 200);
    let answer = stored["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("the answer is stored");
    assert_eq!(answer["response"]["refusal"], refusal, "{stored}");
}

/// An answer from a model whose chat template opened `<think>` in the prompt: a draft
/// with a note, `</think>`, then the answer with the list.
const DRAFTED: &str = concat!(
    "The note first? SHOP_NOTE: {\"text\": \"draft\"}\n</think>\n",
    "Here is your list.\n\nSHOPPING_LIST: {\"store\": \"Corner shop\", \"items\": [{\"name\": \"milk\", \"count\": 2, \"aisle\": \"dairy\"}]}"
);

/// A served app told that the prompt opens the reasoning
/// (`ServeOptions::reasoning_opened_by_prompt`, `payload serve
/// --reasoning-opened-by-prompt`) reads the draft before `</think>` as reasoning: the
/// page gets the answer's list and none of the draft; without it the draft's note wins
/// and the draft is shown.
#[tokio::test]
async fn an_app_told_the_prompt_opens_the_reasoning_shows_no_draft() {
    for prompted in [true, false] {
        let service = payload_serve::App::new(payload_registry::Registry::global())
            .pages(&["shop"])
            .model(scripted(DRAFTED))
            .options(payload_serve::ServeOptions {
                reasoning_opened_by_prompt: prompted,
                ..Default::default()
            })
            .build()
            .expect("the app builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(service.clone().serve(listener));
        let running = Running { url, service };
        let chat = json!({"message": "milk?", "context": {"current_page": "shop"}});
        let (_, body) = chat_turn(&running, &chat).await;
        let complete = data_events(&body).pop().unwrap();
        // What the page shows: the text deltas (reasoning deltas go to its reasoning).
        let shown: String = body
            .split("\n\n")
            .filter(|block| block.starts_with("event: text_delta\n"))
            .flat_map(data_events)
            .filter_map(|event| event["text"].as_str().map(str::to_owned))
            .collect();
        if prompted {
            assert_eq!(
                complete["custom_payload"]["type"], "shopping_list",
                "{body}"
            );
            assert_eq!(complete["message"], "Here is your list.", "{body}");
            assert!(
                !shown.contains("draft") && !shown.contains("note"),
                "{body}"
            );
        } else {
            assert_eq!(complete["custom_payload"]["type"], "shop_note", "{body}");
            assert!(shown.contains("The note first?"), "{body}");
        }
    }
}
