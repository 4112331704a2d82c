//! The recipe assistant answering the AI SDK's `useChat`: the `ai` package's own
//! `DefaultChatTransport` and `readUIMessageStream` (run with Node) rebuild the answer
//! with the recipe as a `data-recipe_proposal` part waiting for its approval, every
//! chunk valid against the package's `uiMessageChunkSchema`; the approval, sent back as
//! `useChat` sends it, saves the recipe in the cookbook once.
//!
//! The package and the script are the chat server's (`crates/payload-serve/tests/ai-sdk`):
//! without Node or the package the test says so and passes, unless
//! `PAYLOAD_REQUIRE_NODE` is set.

#[path = "../../../crates/payload-serve/tests/ai-sdk/support.rs"]
mod support;

use payload_registry::Registry;
use recipes as _;
use serde_json::{Value, json};
use support::{node, parts, turn};
use tokio::net::TcpListener;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn use_chat_rebuilds_the_recipe_as_a_data_part_and_its_approval_saves_it() {
    let Some((node, modules)) = node() else {
        return;
    };
    let service = recipes_web::app(Registry::global())
        .build()
        .expect("the app builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(service.serve(listener));
    let endpoint = format!("{url}/api/ui-message-stream");
    let seen = tokio::task::spawn_blocking(move || {
        turn(
            &node,
            &modules,
            &endpoint,
            &[
                "I have eggs and a tin of tomatoes: what can I cook?",
                "approve",
                "cookbook",
            ],
        )
    })
    .await
    .unwrap();
    assert_eq!(seen["thrown"], Value::Null, "{seen}");
    assert_eq!(seen["header"], "v1", "{seen}");
    assert_eq!(seen["failures"], json!([]), "{seen}");
    assert_eq!(seen["errors"], json!([]), "{seen}");
    let message = &seen["message"];
    let recipes = parts(message, "data-recipe_proposal");
    assert_eq!(recipes.len(), 1, "one part, updated in place: {message}");
    assert_eq!(recipes[0]["data"]["status"], "proposed", "{message}");
    assert!(
        recipes[0]["data"]["data"]["title"].is_string(),
        "the whole recipe: {message}"
    );
    assert!(!parts(message, "text").is_empty(), "{message}");
    assert_eq!(seen["pending"], 1, "{seen}");

    assert_eq!(seen["decidedFailures"], json!([]), "{seen}");
    let decided = &seen["decided"];
    let recipes = parts(decided, "data-recipe_proposal");
    assert_eq!(recipes.len(), 1, "{decided}");
    assert_eq!(recipes[0]["data"]["status"], "accepted", "{decided}");
    // Saved once: the cookbook lists it, and the same approval again is refused.
    let cookbook: Value = reqwest::get(format!("{url}/api/recipes"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        cookbook["recipes"].as_array().map(Vec::len),
        Some(1),
        "{cookbook}"
    );
    assert_eq!(
        cookbook["recipes"][0]["title"], recipes[0]["data"]["data"]["title"],
        "{cookbook}"
    );
    assert_eq!(
        seen["again"]["errors"].as_array().map(Vec::len),
        Some(1),
        "{seen}"
    );
}
