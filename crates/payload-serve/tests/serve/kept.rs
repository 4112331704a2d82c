//! A payload is sent and stored as its type keeps it: members the type does not have
//! are in neither the `complete` event nor the stored conversation, so what the page
//! shows is what an accept handler decodes.

use crate::app::*;
use crate::generic::chat_turn;
use serde_json::{Value, json};

/// A list with a `__proto__` member and an item with a member `Item` lacks.
const UNDECLARED: &str = "Your list.\n\nSHOPPING_LIST: {\"__proto__\": {\"polluted\": true}, \"store\": \"Corner shop\", \"items\": [{\"name\": \"milk\", \"count\": 2, \"aisle\": \"dairy\", \"price\": 3}]}";

/// The list as `ShoppingList` keeps it.
fn kept() -> Value {
    json!({"store": "Corner shop", "items": [{"name": "milk", "count": 2, "aisle": "dairy"}]})
}

#[tokio::test]
async fn the_event_and_the_stored_conversation_hold_the_payload_as_its_type_keeps_it() {
    let running = start(UNDECLARED).await;
    let (id, body) = chat_turn(
        &running,
        &json!({"message": "a list", "context": {"current_page": "shop"}}),
    )
    .await;
    let complete = data_events(&body)
        .into_iter()
        .find(|e| e.get("custom_payload").is_some())
        .expect("a complete event");
    assert_eq!(complete["custom_payload"]["data"], kept(), "{complete}");
    let stored: Value = reqwest::get(format!("{}/api/conversations/{id}", running.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(stored["payloads"][0]["payload"]["data"], kept(), "{stored}");
    let response = &stored["messages"][1]["response"];
    assert_eq!(response["custom_payload"]["data"], kept(), "{stored}");
}
