//! The AI SDK's UI message stream checked by the protocol's own package, run with
//! Node: every chunk the server sends validates against the `ai` package's
//! `uiMessageChunkSchema`; its `DefaultChatTransport` and `readUIMessageStream`
//! rebuild the message with the text, the reasoning and the shopping list as a data
//! part, waiting for its approval; the approval sent back as `useChat` sends it
//! decides it once.
//!
//! The package and the script are `tests/ai-sdk` ([`crate::ai_sdk_support`]).

use crate::ai_sdk_support::{node, parts, turn};
use crate::app::*;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_packages_own_code_validates_every_chunk_and_rebuilds_the_message() {
    let Some((node, modules)) = node() else {
        return;
    };
    let running = start(LIST_ANSWER).await;
    let url = format!("{}/api/ui-message-stream", running.url);
    // The package's code runs on Node; the server runs on the test's workers.
    let seen = tokio::task::spawn_blocking(move || {
        turn(&node, &modules, &url, &["What do I need?", "approve"])
    })
    .await
    .unwrap();
    assert_eq!(seen["thrown"], Value::Null, "{seen}");
    assert_eq!(seen["header"], "v1", "{seen}");
    assert_eq!(seen["done"], true, "{seen}");
    assert_eq!(seen["failures"], json!([]), "{seen}");
    let sent: std::collections::BTreeSet<&str> = seen["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    for kind in [
        "start",
        "start-step",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "text-start",
        "text-delta",
        "text-end",
        "data-shopping_list",
        "tool-input-available",
        "tool-approval-request",
        "finish-step",
        "finish",
    ] {
        assert!(sent.contains(kind), "no {kind}: {seen}");
    }

    // The message `readUIMessageStream` built: the parts in the answer's order.
    let message = &seen["message"];
    assert_eq!(seen["errors"], json!([]), "{seen}");
    assert_eq!(seen["valid"], "1", "validateUIMessages takes it: {seen}");
    let texts: Vec<&str> = parts(message, "text")
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["Here is your list.", "\n\nEnjoy!"], "{message}");
    assert_eq!(
        parts(message, "reasoning")[0]["text"],
        "They need milk and bread."
    );
    // The list: one data part, updated in place to the whole value, between the texts.
    let cards = parts(message, "data-shopping_list");
    assert_eq!(cards.len(), 1, "{message}");
    assert_eq!(cards[0]["data"]["status"], "proposed");
    assert_eq!(cards[0]["data"]["data"]["store"], "Corner shop");
    assert_eq!(cards[0]["data"]["data"]["items"][1]["name"], "bread");
    let order: Vec<&str> = message["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    let card_at = order
        .iter()
        .position(|t| *t == "data-shopping_list")
        .unwrap();
    assert!(order[..card_at].contains(&"text") && order[card_at..].contains(&"text"));
    let tool = parts(message, "dynamic-tool");
    assert_eq!(tool[0]["state"], "approval-requested", "{message}");
    assert_eq!(seen["pending"], 1);

    // The approval, sent back as `useChat` sends it: accepted once, the card in place.
    assert_eq!(seen["decidedStatus"], 200, "{seen}");
    assert_eq!(seen["decidedDone"], true);
    assert_eq!(seen["decidedFailures"], json!([]), "{seen}");
    let decided = &seen["decided"];
    let cards = parts(decided, "data-shopping_list");
    assert_eq!(cards.len(), 1, "{decided}");
    assert_eq!(cards[0]["data"]["status"], "accepted");
    assert_eq!(cards[0]["data"]["applied"]["saved"], 2);
    let tool = parts(decided, "dynamic-tool");
    assert_eq!(tool[0]["state"], "output-available", "{decided}");
    assert_eq!(tool[0]["output"]["saved"], 2);
    // The same answer again is the error chunk, which the reader reports.
    assert_eq!(
        seen["again"]["errors"].as_array().map(Vec::len),
        Some(1),
        "{seen}"
    );
    assert_eq!(saved(&running), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_reaches_the_reader_as_the_messages_error() {
    let Some((node, modules)) = node() else {
        return;
    };
    let running = start_model(stopping(payload_agent::RefusalReason::Refusal)).await;
    let url = format!("{}/api/ui-message-stream", running.url);
    let seen = tokio::task::spawn_blocking(move || turn(&node, &modules, &url, &["Anything"]))
        .await
        .unwrap();
    assert_eq!(seen["thrown"], Value::Null, "{seen}");
    assert_eq!(seen["failures"], json!([]), "{seen}");
    assert_eq!(seen["errors"], json!(["I can't help with that."]), "{seen}");
    let chunks = seen["chunks"].as_array().unwrap();
    assert_eq!(chunks.last().unwrap()["type"], "finish");
    assert_eq!(
        chunks[chunks.len() - 4]["data"]["status"],
        "rejected",
        "{seen}"
    );
    assert_eq!(seen["pending"], 0);
}
