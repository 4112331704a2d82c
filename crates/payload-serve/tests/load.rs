//! Under load and faults: many chats at once stay apart, a client that goes away frees
//! its turn's task, a conversation answers one message at a time, and a model that
//! panics ends its turn with an error while the server goes on.

mod common;

use common::*;
use futures::StreamExt;
use payload_agent::{Model, ModelChunk, ModelRequest, ModelStream};
use payload_serve::{ModelSource, TurnInfo};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_chats_complete_and_stay_apart() {
    let server = Arc::new(start(replay()).await);
    let client = reqwest::Client::new();
    let chats = (0..100).map(|i| {
        let server = server.clone();
        let client = client.clone();
        tokio::spawn(async move {
            let first = format!("hello from chat {i}");
            let (id, turn, events) =
                chat(&client, &server, message(&first, "tables_list", None, None)).await;
            assert_eq!(turn, 0);
            assert_eq!(
                complete(&events)["suggested_values"]
                    .as_array()
                    .unwrap()
                    .len(),
                3
            );
            let second = format!("chat {i} again");
            let (same, turn, events) = chat(
                &client,
                &server,
                message(&second, "tables_list", None, Some(&id)),
            )
            .await;
            assert_eq!((same.as_str(), turn), (id.as_str(), 1));
            assert_eq!(
                complete(&events)["custom_payload"]["type"],
                "schema_proposal"
            );
            let stored = get(&client, &server, &format!("/api/conversations/{id}")).await;
            let users: Vec<&str> = stored["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "user")
                .map(|m| m["text"].as_str().unwrap())
                .collect();
            assert_eq!(
                users,
                [first.as_str(), second.as_str()],
                "only its own messages"
            );
            id
        })
    });
    let ids: Vec<String> = futures::future::try_join_all(chats).await.unwrap();
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), 100);
    wait_until_idle(&server).await;
}

/// A model that never stops talking.
fn endless() -> ModelSource {
    struct Endless;
    impl Model for Endless {
        fn stream(&mut self, _: &ModelRequest) -> ModelStream {
            Box::pin(futures::stream::unfold((), |()| async {
                tokio::time::sleep(Duration::from_millis(5)).await;
                Some((ModelChunk::Text("and so on ".into()), ()))
            }))
        }
    }
    Arc::new(|_: &TurnInfo| -> Box<dyn Model> { Box::new(Endless) })
}

async fn wait_until_idle(server: &Server) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.app.live_turns() > 0 {
        assert!(
            Instant::now() < deadline,
            "{} turns still running",
            server.app.live_turns()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_client_that_goes_away_frees_its_task_and_its_conversation() {
    let server = start(endless()).await;
    let client = reqwest::Client::new();
    let body = json!({"message": "talk", "context": {"current_page": "tables_list"}, "conversation_id": "gone"});
    let response = post_chat(&client, &server, &body).await;
    let mut stream = response.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("and so on") {
        seen.push_str(&String::from_utf8_lossy(
            &stream.next().await.unwrap().unwrap(),
        ));
    }
    assert_eq!(server.app.live_turns(), 1);

    // Meanwhile the same conversation answers one message at a time.
    let second = post_chat(&client, &server, &body).await;
    assert_eq!(second.status().as_u16(), 409);

    drop(stream);
    wait_until_idle(&server).await;
    let again = post_chat(&client, &server, &body).await;
    assert_eq!(
        again.status().as_u16(),
        200,
        "the conversation was released"
    );
}

#[tokio::test]
async fn a_model_that_panics_ends_its_turn_and_the_server_goes_on() {
    let models: ModelSource = Arc::new(|turn: &TurnInfo| -> Box<dyn Model> {
        if turn.turn == 0 {
            Box::new(|_: &ModelRequest| -> Vec<ModelChunk> { panic!("the model broke") })
        } else {
            Box::new(|_: &ModelRequest| vec![ModelChunk::Text("fine".into())])
        }
    });
    let server = start(models).await;
    let client = reqwest::Client::new();
    let (id, _, events) = chat(&client, &server, message("hi", "tables_list", None, None)).await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(&names[names.len() - 2..], ["error", "complete"]);
    let (_, _, events) = chat(
        &client,
        &server,
        message("again", "tables_list", None, Some(&id)),
    )
    .await;
    assert_eq!(complete(&events)["message"], "fine");
    wait_until_idle(&server).await;
}
