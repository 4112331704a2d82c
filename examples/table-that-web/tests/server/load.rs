//! Under load and faults: many chats at once stay apart, a client that goes away frees
//! its turn's task, a conversation answers one message at a time, and a model that
//! panics ends its turn with an error while the server goes on.

use crate::common::*;
use futures::StreamExt;
use payload_agent::ModelMessage;
use payload_agent::{Model, ModelChunk, ModelRequest, ModelStream};
use payload_serve::{ModelSource, ServeOptions, TurnInfo};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use table_that_web::Tables;

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
    let first = json!({"message": "talk", "context": {"current_page": "tables_list"}});
    let response = post_chat(&client, &server, &first).await;
    let id = response.headers()["x-conversation-id"]
        .to_str()
        .unwrap()
        .to_string();
    let body = json!({"message": "talk", "context": {"current_page": "tables_list"}, "conversation_id": id});
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_accepts_apply_a_proposal_once() {
    let server = Arc::new(start(saying_owned(create_proposal("Once", 3))).await);
    let client = reqwest::Client::new();
    for round in 1..=6 {
        let (id, turn, _) = chat(&client, &server, message("go", "tables_list", None, None)).await;
        let accepts = (0..20).map(|_| {
            let (server, client, id) = (server.clone(), client.clone(), id.clone());
            tokio::spawn(
                async move { decide(&client, &server, &id, turn, "accept", json!({})).await },
            )
        });
        let answers = futures::future::try_join_all(accepts).await.unwrap();
        let ok: Vec<&(u16, Value)> = answers
            .iter()
            .filter(|(status, _)| *status == 200)
            .collect();
        assert_eq!(ok.len(), 1, "round {round}: {answers:?}");
        assert!(
            answers
                .iter()
                .all(|(status, _)| *status == 200 || *status == 409),
            "{answers:?}"
        );
        let tables = get(&client, &server, "/api/tables").await;
        assert_eq!(
            tables["tables"].as_array().unwrap().len(),
            round,
            "round {round}"
        );
        assert_eq!(server.app.db().check(), Ok(()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_answers_while_the_database_is_busy() {
    let columns = payload_builtin::SchemaProposal::MAX_COLUMNS;
    let own = start_on_own_runtime(
        saying_owned(create_proposal("Wide", columns)),
        ServeOptions {
            ..ServeOptions::default()
        },
    );
    let server = Arc::new(Server {
        url: own.server.url.clone(),
        app: own.server.app.clone(),
    });
    let client = reqwest::Client::new();
    let (id, turn, _) = chat(&client, &server, message("go", "tables_list", None, None)).await;

    // Something holds the database (as a long apply would) until told to let go.
    let (hold, held) = std::sync::mpsc::channel::<()>();
    let (locked, is_locked) = std::sync::mpsc::channel::<()>();
    let app = server.app.clone();
    let holder = std::thread::spawn(move || {
        let _conn = app
            .db()
            .sqlite()
            .expect("table.that's database is SQLite")
            .conn();
        locked.send(()).unwrap();
        let _ = held.recv();
    });
    is_locked.recv().unwrap();

    // The accept of a table at the column cap, and more requests than the server has
    // workers, all waiting for the database.
    let accept = {
        let (server, client, id) = (server.clone(), client.clone(), id.clone());
        tokio::spawn(async move { decide(&client, &server, &id, turn, "accept", json!({})).await })
    };
    let reads: Vec<_> = (0..6)
        .map(|_| {
            let (server, client) = (server.clone(), client.clone());
            tokio::spawn(async move { get(&client, &server, "/api/tables").await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;

    // The page and its assets need no database: they answer now.
    for path in ["/", "/assets/table-that.js"] {
        let response = tokio::time::timeout(
            Duration::from_secs(10),
            client.get(format!("{}{path}", server.url)).send(),
        )
        .await
        .unwrap_or_else(|_| panic!("{path} waited for the database"))
        .unwrap();
        assert_eq!(response.status(), 200);
    }
    assert!(
        !accept.is_finished(),
        "the accept answered before the asset"
    );

    hold.send(()).unwrap();
    holder.join().unwrap();
    let (status, decided) = accept.await.unwrap();
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["applied"]["applied"], columns);
    for read in reads {
        read.await.unwrap();
    }
    let table_id = decided["applied"]["table_id"].as_i64().unwrap();
    let table = get(&client, &server, &format!("/api/tables/{table_id}")).await;
    assert_eq!(table["columns"].as_array().unwrap().len(), columns);
}

#[tokio::test]
async fn a_proposal_too_big_to_apply_is_refused_when_parsed() {
    let server = start(saying_owned(create_proposal("Too wide", 2000))).await;
    let client = reqwest::Client::new();
    let (id, turn, events) = chat(&client, &server, message("go", "tables_list", None, None)).await;
    let done = complete(&events);
    assert!(done["custom_payload"].is_null(), "{done}");
    let said = done.to_string();
    assert!(
        said.contains("/operations") && said.contains("1000"),
        "the model is told the cap: {said}"
    );
    assert_eq!(
        decide(&client, &server, &id, turn, "accept", json!({}))
            .await
            .0,
        404
    );
}

/// Turn 0 never ends; later turns answer "fine" and keep the messages they were sent.
fn interrupted_then_recording(seen: Arc<Mutex<Vec<Vec<ModelMessage>>>>) -> ModelSource {
    let endless = endless();
    Arc::new(move |turn: &TurnInfo| -> Box<dyn Model> {
        if turn.turn == 0 {
            return endless(turn);
        }
        let seen = seen.clone();
        Box::new(move |request: &ModelRequest| {
            seen.lock().unwrap().push(request.messages.clone());
            vec![ModelChunk::Text("fine".into())]
        })
    })
}

#[tokio::test]
async fn a_turn_whose_client_went_away_is_recorded_and_roles_still_alternate() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = start(interrupted_then_recording(seen.clone())).await;
    let client = reqwest::Client::new();
    let response = post_chat(
        &client,
        &server,
        &message("first", "tables_list", None, None),
    )
    .await;
    let id = response.headers()["x-conversation-id"]
        .to_str()
        .unwrap()
        .to_string();
    let mut stream = response.bytes_stream();
    stream.next().await.unwrap().unwrap();
    drop(stream);
    wait_until_idle(&server).await;

    let stored = get(&client, &server, &format!("/api/conversations/{id}")).await;
    let messages = stored["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{stored}");
    assert_eq!(messages[1]["role"], "assistant");
    assert!(
        messages[1]["interrupted"]
            .as_str()
            .unwrap()
            .contains("went away"),
        "{stored}"
    );

    let (_, turn, events) = chat(
        &client,
        &server,
        message("second", "tables_list", None, Some(&id)),
    )
    .await;
    assert_eq!(turn, 1);
    assert_eq!(complete(&events)["message"], "fine");
    let seen = seen.lock().unwrap();
    let roles: Vec<&str> = seen[0]
        .iter()
        .map(|m| match m {
            ModelMessage::User { .. } => "user",
            ModelMessage::Assistant { .. } => "assistant",
            ModelMessage::Tool { .. } => "tool",
        })
        .collect();
    assert_eq!(roles, ["user"], "{:?}", seen[0]);
    assert_eq!(seen[0][0], ModelMessage::user("first\n\nsecond"));
}

#[tokio::test]
async fn a_turn_past_its_deadline_ends_with_an_error_and_frees_its_conversation() {
    let server = start_with(
        endless(),
        ServeOptions {
            turn_deadline: Duration::from_millis(300),
            ..ServeOptions::default()
        },
    )
    .await;
    let client = reqwest::Client::new();
    let response = post_chat(
        &client,
        &server,
        &message("talk", "tables_list", None, None),
    )
    .await;
    let id = response.headers()["x-conversation-id"]
        .to_str()
        .unwrap()
        .to_string();
    // The model never stops; the client keeps reading: only the deadline can end it.
    let body = tokio::time::timeout(Duration::from_secs(20), response.text())
        .await
        .expect("the turn ended by its deadline")
        .unwrap();
    assert!(body.contains("and so on"), "{body}");
    let last = body.trim_end().rsplit("\n\n").next().unwrap();
    assert!(
        last.starts_with("event: error") && last.contains("deadline"),
        "the stream ends with the deadline's error: {last}"
    );
    wait_until_idle(&server).await;
    let stored = get(&client, &server, &format!("/api/conversations/{id}")).await;
    let messages = stored["messages"].as_array().unwrap();
    assert!(
        messages[1]["interrupted"]
            .as_str()
            .unwrap()
            .contains("deadline"),
        "{stored}"
    );
    let again = post_chat(
        &client,
        &server,
        &message("again", "tables_list", None, Some(&id)),
    )
    .await;
    assert_eq!(
        again.status().as_u16(),
        200,
        "the conversation was released"
    );
}
