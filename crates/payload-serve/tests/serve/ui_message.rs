//! The AI SDK's UI message stream in Rust: a turn streams its header, its chunks and
//! `[DONE]`; the list is a data part updated in place and a proposal waiting for its
//! approval; the conversation is the server's; the approval answered decides it with
//! the app's handler, once; and only this server's page changes anything.

use crate::app::*;
use serde_json::{Value, json};

/// What `DefaultChatTransport` sends for `message`, with the shop page's context.
pub fn ask(message: &str) -> Value {
    json!({
        "id": "chat-1", "trigger": "submit-message",
        "context": {"current_page": "shop"},
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": message}]}],
    })
}

/// The chunks of an answer (`[DONE]` checked last and left out), and its header.
pub async fn stream(running: &Running, headers: &[(&str, &str)], body: &Value) -> Vec<Value> {
    let response = reqwest::Client::new()
        .post(format!("{}/api/ui-message-stream", running.url))
        .header("content-type", "application/json")
        .headers(
            headers
                .iter()
                .map(|(k, v)| (k.parse().unwrap(), v.parse().unwrap()))
                .collect(),
        )
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["x-vercel-ai-ui-message-stream"],
        "v1",
        "the protocol's header"
    );
    let text = response.text().await.unwrap();
    let (chunks, done) = text.trim_end().rsplit_once("\n\n").unwrap();
    assert_eq!(done, "data: [DONE]", "{text}");
    data_events(chunks)
}

fn kinds(chunks: &[Value]) -> Vec<&str> {
    chunks.iter().map(|c| c["type"].as_str().unwrap()).collect()
}

/// The assistant message a client holds after `chunks`, its approvals answered
/// `approved`: what `useChat` sends back after `addToolApprovalResponse`.
pub fn answered(chunks: &[Value], approved: bool) -> Value {
    let start = &chunks[0];
    let card = chunks
        .iter()
        .rev()
        .find(|c| c["type"] == "data-shopping_list")
        .unwrap();
    let call = chunks
        .iter()
        .find(|c| c["type"] == "tool-approval-request")
        .unwrap();
    json!({
        "id": start["messageId"], "role": "assistant", "metadata": start["messageMetadata"],
        "parts": [
            {"type": "step-start"},
            {"type": "text", "text": "Here is your list.", "state": "done"},
            {"type": "data-shopping_list", "id": card["id"], "data": card["data"]},
            {"type": "dynamic-tool", "toolName": "shopping_list", "toolCallId": call["toolCallId"],
             "state": "approval-responded", "input": {},
             "approval": {"id": call["approvalId"], "approved": approved}},
        ],
    })
}

/// The request answering the approvals of `assistant`.
pub fn decide(assistant: Value) -> Value {
    let mut body = ask("What do I need?");
    body["messages"].as_array_mut().unwrap().push(assistant);
    body
}

#[tokio::test]
async fn a_turn_streams_text_reasoning_and_the_list_as_a_data_part_waiting_for_approval() {
    let running = start(LIST_ANSWER).await;
    let chunks = stream(&running, &[], &ask("What do I need?")).await;
    let kinds = kinds(&chunks);
    assert_eq!(kinds[..2], ["start", "start-step"]);
    assert_eq!(kinds[kinds.len() - 2..], ["finish-step", "finish"]);
    let conversation = chunks[0]["messageMetadata"]["conversationId"]
        .as_str()
        .unwrap();
    assert_ne!(conversation, "chat-1", "the server issues the conversation");
    let text: String = chunks
        .iter()
        .filter(|c| c["type"] == "text-delta")
        .map(|c| c["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Here is your list.\n\nEnjoy!");
    assert!(kinds.contains(&"reasoning-delta"));
    let cards: Vec<&Value> = chunks
        .iter()
        .filter(|c| c["type"] == "data-shopping_list")
        .collect();
    assert!(
        cards.len() >= 3,
        "drafting, a partial, then whole: {cards:?}"
    );
    assert!(cards.iter().all(|c| c["id"] == cards[0]["id"]), "one id");
    assert_eq!(cards[0]["data"]["status"], "drafting");
    let last = cards.last().unwrap();
    assert_eq!(last["data"]["status"], "proposed");
    assert_eq!(last["data"]["data"]["store"], "Corner shop");
    let approval = chunks
        .iter()
        .find(|c| c["type"] == "tool-approval-request")
        .unwrap();
    assert_eq!(approval["approvalId"], last["data"]["proposal"]);
    assert_eq!(saved(&running), 0, "nothing is applied before the approval");
}

#[tokio::test]
async fn an_approval_decides_its_proposal_once_and_a_denial_applies_nothing() {
    let running = start(LIST_ANSWER).await;
    let chunks = stream(&running, &[], &ask("What do I need?")).await;
    let body = decide(answered(&chunks, true));
    let decided = stream(&running, &[], &body).await;
    assert_eq!(
        kinds(&decided),
        [
            "start",
            "data-shopping_list",
            "tool-output-available",
            "finish"
        ]
    );
    // The same message continued, its card in place.
    assert_eq!(decided[0]["messageId"], chunks[0]["messageId"]);
    let card = &decided[1];
    assert_eq!(card["data"]["status"], "accepted");
    assert_eq!(card["data"]["applied"]["saved"], 2);
    assert_eq!(card["data"]["data"]["store"], "Corner shop");
    assert_eq!(decided[2]["output"]["saved"], 2);
    assert_eq!(saved(&running), 1);
    // Sent again, it is refused: the error chunk, and nothing applied twice.
    let again = stream(&running, &[], &body).await;
    assert_eq!(kinds(&again), ["start", "error", "finish"]);
    assert!(again[1]["errorText"].as_str().unwrap().contains("already"));
    assert_eq!(saved(&running), 1);

    let chunks = stream(&running, &[], &ask("And now?")).await;
    let denied = stream(&running, &[], &decide(answered(&chunks, false))).await;
    assert_eq!(
        kinds(&denied),
        [
            "start",
            "data-shopping_list",
            "tool-output-denied",
            "finish"
        ]
    );
    assert_eq!(denied[1]["data"]["status"], "dismissed");
    assert_eq!(saved(&running), 1);
}

#[tokio::test]
async fn a_conversation_is_the_servers_and_bad_requests_are_refused_before_they_start() {
    let running = start(LIST_ANSWER).await;
    let first = stream(&running, &[], &ask("What do I need?")).await;
    let issued = first[0]["messageMetadata"]["conversationId"].clone();
    // The next turn names it through the assistant message's metadata: the same one.
    let mut next = ask("What do I need?");
    let assistant = json!({"id": first[0]["messageId"], "role": "assistant",
        "metadata": first[0]["messageMetadata"], "parts": [{"type": "text", "text": "Here."}]});
    let messages = next["messages"].as_array_mut().unwrap();
    messages.push(assistant);
    messages.push(json!({"id": "u2", "role": "user", "parts": [{"type": "text", "text": "More"}]}));
    let second = stream(&running, &[], &next).await;
    assert_eq!(second[0]["messageMetadata"]["conversationId"], issued);
    assert_eq!(second[0]["messageMetadata"]["turn"], 1);
    assert_ne!(second[0]["messageId"], first[0]["messageId"]);

    // A conversation it did not issue starts a new one.
    let mut guessed = answered(&first, true);
    guessed["metadata"]["conversationId"] = json!("guessed-id");
    let mut body = ask("Hi");
    let messages = body["messages"].as_array_mut().unwrap();
    messages.insert(0, guessed.clone());
    let fresh = stream(&running, &[], &body).await;
    assert_ne!(fresh[0]["messageMetadata"]["conversationId"], "guessed-id");
    assert_ne!(fresh[0]["messageMetadata"]["conversationId"], issued);

    // Refused, nothing decided: an approval in a conversation it does not know, one
    // naming no proposal, a message that is neither, no messages, not JSON of the shape.
    let mut stray = answered(&first, true);
    stray["parts"][3]["toolCallId"] = json!("tool-x");
    for bad in [
        decide(guessed),
        decide(stray),
        json!({"id": "c", "messages": []}),
        json!({"id": "c", "messages": [{"id": "s", "role": "system", "parts": []}]}),
        json!({"id": "c", "messages": "hi"}),
    ] {
        let (status, text) = post(&running, "/api/ui-message-stream", &bad).await;
        // A body not of the request's shape is the extractor's 422.
        assert!(status == 400 || status == 422, "{bad}: {status} {text}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert!(error["error"].is_string(), "{error}");
    }
    assert_eq!(saved(&running), 0);
}

#[tokio::test]
async fn only_this_servers_page_asks_or_decides() {
    let running = start(LIST_ANSWER).await;
    let chunks = stream(&running, &[], &ask("What do I need?")).await;
    let decision = decide(answered(&chunks, true));
    for body in [ask("List?"), decision.clone()] {
        for headers in [
            &[("origin", "http://evil.example")][..],
            &[("sec-fetch-site", "cross-site")],
            &[("content-type", "text/plain")],
        ] {
            let (status, text) = send(&running, "/api/ui-message-stream", headers, &body).await;
            assert!(
                status == 403 || status == 415,
                "{headers:?}: {status} {text}"
            );
        }
    }
    assert_eq!(saved(&running), 0);
    let own: &[(&str, &str)] = &[("origin", &running.url), ("sec-fetch-site", "same-origin")];
    let decided = stream(&running, own, &decision).await;
    assert_eq!(decided[1]["data"]["status"], "accepted");
    assert_eq!(saved(&running), 1);
}

#[tokio::test]
async fn a_body_past_the_limit_or_an_unknown_page_starts_nothing() {
    let running = start(LIST_ANSWER).await;
    let mut huge = ask(&"a".repeat(300 * 1024));
    let (status, text) = post(&running, "/api/ui-message-stream", &huge).await;
    assert_eq!(status, 413, "{text}");
    huge = ask("List?");
    huge["context"]["current_page"] = json!("elsewhere");
    let (status, text) = post(&running, "/api/ui-message-stream", &huge).await;
    assert_eq!(status, 400, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert!(error["error"].is_string(), "{error}");
    let conversations: i64 = running
        .service
        .db()
        .sqlite()
        .expect("the tests run on SQLite")
        .conn()
        .query_row("SELECT COUNT(*) FROM conversations", [], |r| r.get(0))
        .unwrap();
    assert_eq!(conversations, 0, "no turn started");
}
