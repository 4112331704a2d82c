//! The HTTP API over a real socket on 127.0.0.1: the recorded conversation builds a real
//! table, decisions are made once, the next prompt carries the manifest, and wrong
//! requests get clear errors.

use crate::common::*;
use payload_agent::{Model, ModelChunk, ModelRequest};
use payload_serve::{ModelSource, TurnInfo};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use table_that::CONVERSATION;

fn names(events: &[Event]) -> Vec<&str> {
    events.iter().map(|(name, _)| name.as_str()).collect()
}

fn column_ids(table: &Value) -> Vec<&str> {
    table["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_recorded_conversation_builds_a_real_table() {
    let server = start(replay()).await;
    let client = reqwest::Client::new();

    // Turn 0: questions and chips, streamed as text.
    let (id, turn, events) = chat(
        &client,
        &server,
        message("I'm job hunting", "tables_list", None, None),
    )
    .await;
    assert_eq!(turn, 0);
    assert_eq!(names(&events)[0], "status");
    assert!(names(&events).contains(&"text_delta"));
    let done = complete(&events);
    assert_eq!(done["suggested_values"].as_array().unwrap().len(), 3);
    assert!(done["custom_payload"].is_null());

    // Turn 1: a schema proposal, announced while it streams.
    let (_, turn, events) = chat(
        &client,
        &server,
        message("Track interview stages", "tables_list", None, Some(&id)),
    )
    .await;
    assert_eq!(turn, 1);
    let start = names(&events)
        .iter()
        .position(|n| *n == "payload_start")
        .unwrap();
    assert_eq!(events[start].1["type"], "schema_proposal");
    assert!(names(&events)[start..].contains(&"payload_progress"));
    assert_eq!(
        complete(&events)["custom_payload"]["data"]["mode"],
        "create"
    );

    let (status, decided) = decide(&client, &server, &id, 1, "accept", json!({})).await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["status"], "accepted");
    assert_eq!(decided["applied"]["applied"], 4);
    let table_id = decided["applied"]["table_id"].as_i64().unwrap();
    let tables = get(&client, &server, "/api/tables").await;
    assert_eq!(tables["tables"][0]["name"], "Job Applications");
    assert_eq!(
        tables["tables"][0]["row_count"], 2,
        "the sample rows were added"
    );
    let table = get(&client, &server, &format!("/api/tables/{table_id}")).await;
    assert_eq!(
        column_ids(&table),
        ["col_company", "col_role", "col_stage", "col_applied_on"]
    );
    assert_eq!(table["columns"][2]["options"][1], "Phone screen");
    assert_eq!(table["rows"][1]["values"]["col_company"], "Globex");

    // Turn 2: row changes on the table; the user unticks Umbrella and the delete.
    let (_, turn, events) = chat(
        &client,
        &server,
        message("Add some examples", "table_view", Some(table_id), Some(&id)),
    )
    .await;
    assert_eq!(turn, 2);
    let proposal = &complete(&events)["custom_payload"];
    assert_eq!(proposal["type"], "data_proposal");
    assert_eq!(proposal["data"]["operations"].as_array().unwrap().len(), 5);
    let (status, decided) = decide(
        &client,
        &server,
        &id,
        2,
        "accept",
        json!({"rows": [0, 2, 3]}),
    )
    .await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["applied"]["applied"], 3);
    let table = get(&client, &server, &format!("/api/tables/{table_id}")).await;
    let companies: Vec<&str> = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["values"]["col_company"].as_str().unwrap())
        .collect();
    assert_eq!(companies, ["Acme Corp", "Globex", "Initech", "Hooli"]);
    assert_eq!(
        table["rows"][1]["values"]["col_stage"], "Phone screen",
        "row 2 was updated"
    );

    // Turn 3: columns changed in place: a new one after Role, Role now a select.
    let (_, turn, _) = chat(
        &client,
        &server,
        message("Add salary", "table_view", Some(table_id), Some(&id)),
    )
    .await;
    assert_eq!(turn, 3);
    let (status, _) = decide(&client, &server, &id, 3, "accept", json!({})).await;
    assert_eq!(status, 200);
    let table = get(&client, &server, &format!("/api/tables/{table_id}")).await;
    assert_eq!(
        column_ids(&table),
        [
            "col_company",
            "col_role",
            "col_salary_range",
            "col_stage",
            "col_applied_on"
        ]
    );
    assert_eq!(table["columns"][1]["type"], "select");
    assert_eq!(table["columns"][1]["filterDisplay"], "dropdown");

    // Turn 4: buttons only for the page's actions; the invented one is rejected.
    let (_, _, events) = chat(
        &client,
        &server,
        message("How am I doing?", "table_view", Some(table_id), Some(&id)),
    )
    .await;
    let done = complete(&events);
    let actions: Vec<&str> = done["suggested_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["open_filters", "close_chat"]);
    assert!(
        done.to_string().contains("send_email"),
        "the invented action is reported"
    );

    // The conversation is kept, with each payload's status.
    let stored = get(&client, &server, &format!("/api/conversations/{id}")).await;
    assert_eq!(stored["messages"].as_array().unwrap().len(), 10);
    let statuses: Vec<&str> = stored["payloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["accepted", "accepted", "accepted"]);
}

#[tokio::test]
async fn a_payload_is_decided_once_and_a_dismissal_is_recorded() {
    let server = start(replay()).await;
    let client = reqwest::Client::new();
    let (id, _, _) = chat(&client, &server, message("hi", "tables_list", None, None)).await;
    let (_, turn, _) = chat(
        &client,
        &server,
        message("go", "tables_list", None, Some(&id)),
    )
    .await;
    assert_eq!(
        decide(&client, &server, &id, 0, "accept", json!({}))
            .await
            .0,
        404,
        "turn 0 proposed nothing"
    );
    assert_eq!(
        decide(&client, &server, &id, turn, "maybe", json!({}))
            .await
            .0,
        404
    );
    let (status, body) = decide(&client, &server, &id, turn, "dismiss", json!({})).await;
    assert_eq!((status, &body["status"]), (200, &json!("dismissed")));
    let (status, body) = decide(&client, &server, &id, turn, "accept", json!({})).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("dismissed"));
    let tables = get(&client, &server, "/api/tables").await;
    assert_eq!(
        tables["tables"],
        json!([]),
        "a dismissed proposal creates nothing"
    );
}

/// A model that plays the recording and keeps each system prompt it was given.
fn recording(prompts: Arc<Mutex<Vec<String>>>) -> ModelSource {
    Arc::new(move |turn: &TurnInfo| -> Box<dyn Model> {
        let prompts = prompts.clone();
        let text = CONVERSATION[turn.turn % CONVERSATION.len()].text;
        Box::new(move |request: &ModelRequest| {
            prompts.lock().unwrap().push(request.system.clone());
            vec![ModelChunk::Text(text.to_string())]
        })
    })
}

#[tokio::test]
async fn the_next_prompt_carries_the_payloads_and_what_the_user_did() {
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let server = start(recording(prompts.clone())).await;
    let client = reqwest::Client::new();
    let (id, _, _) = chat(&client, &server, message("hi", "tables_list", None, None)).await;
    chat(
        &client,
        &server,
        message("go", "tables_list", None, Some(&id)),
    )
    .await;
    assert_eq!(
        decide(&client, &server, &id, 1, "accept", json!({}))
            .await
            .0,
        200
    );
    chat(
        &client,
        &server,
        message("next", "tables_list", None, Some(&id)),
    )
    .await;
    let prompts = prompts.lock().unwrap();
    assert!(
        !prompts[1].contains("PAYLOAD MANIFEST"),
        "nothing was proposed before turn 1"
    );
    let last = prompts.last().unwrap();
    assert!(last.contains("PAYLOAD MANIFEST"), "{last}");
    assert!(
        last.contains("turn 2: schema_proposal [accepted]"),
        "{last}"
    );
    assert!(
        last.contains("Job Applications"),
        "the new table is in the context: {last}"
    );
}

#[tokio::test]
async fn model_text_comes_back_as_text() {
    const HOSTILE: &str = "<script>alert(1)</script><img src=x onerror=alert(2)> **ok**";
    let server = start(saying(HOSTILE)).await;
    let client = reqwest::Client::new();
    let (_, _, events) = chat(&client, &server, message("hi", "tables_list", None, None)).await;
    assert_eq!(complete(&events)["message"], HOSTILE);
}

/// The CSV export of the table made by accepting `proposal`, the answer of a model on
/// the tables list.
async fn csv_of_accepted(proposal: &'static str) -> reqwest::Response {
    let server = start(saying(proposal)).await;
    let client = reqwest::Client::new();
    let (id, turn, _) = chat(
        &client,
        &server,
        message("make it", "tables_list", None, None),
    )
    .await;
    let (status, decided) = decide(&client, &server, &id, turn, "accept", json!({})).await;
    assert_eq!(status, 200, "{decided}");
    let table_id = decided["applied"]["table_id"].as_i64().unwrap();
    client
        .get(format!("{}/api/tables/{table_id}/csv", server.url))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_csv_export_quotes_cells_and_defuses_formulas() {
    const PROPOSAL: &str = "Done.\n\nSCHEMA_PROPOSAL: {\"mode\": \"create\", \"table_name\": \"Q3 / \\\"final\\\"\", \"table_description\": \"notes\", \
        \"operations\": [{\"action\": \"add\", \"column\": {\"name\": \"Note\", \"type\": \"text\"}}], \
        \"sample_rows\": [{\"Note\": \"=HYPERLINK(\\\"http://x\\\")\"}, {\"Note\": \"a, \\\"b\\\"\"}]}";
    let response = csv_of_accepted(PROPOSAL).await;
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"Q3 final.csv\""
    );
    let csv = response.text().await.unwrap();
    assert_eq!(
        csv,
        "Note\n\"'=HYPERLINK(\"\"http://x\"\")\"\n\"a, \"\"b\"\"\"\n"
    );
}

#[tokio::test]
async fn wrong_requests_get_clear_errors() {
    let server = start(replay()).await;
    let client = reqwest::Client::new();
    let post = |body: Value| {
        client
            .post(format!("{}/api/chat", server.url))
            .json(&body)
            .send()
    };
    let cases = [
        (json!({"message": "hi", "context": {}}), 400, "current_page"),
        (
            json!({"message": "hi", "context": {"current_page": "nope"}}),
            400,
            "nope",
        ),
        (
            json!({"message": "hi", "context": {"current_page": "tables_list"}, "conversation_id": "a b/../c"}),
            400,
            "conversation_id",
        ),
    ];
    for (body, status, says) in cases {
        let response = post(body.clone()).await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{body}");
        let error: Value = response.json().await.unwrap();
        assert!(error["error"].as_str().unwrap().contains(says), "{error}");
    }
    let response = client
        .post(format!("{}/api/chat", server.url))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert!(response.status().is_client_error());
    let huge = "x".repeat(payload_serve::DEFAULT_BODY_LIMIT + 1);
    let response = post(json!({"message": huge, "context": {"current_page": "tables_list"}}))
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413);
    let response = client
        .get(format!("{}/api/tables/999", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
}

#[tokio::test]
async fn the_csv_export_keeps_negative_numbers_as_numbers() {
    const PROPOSAL: &str = "Done.\n\nSCHEMA_PROPOSAL: {\"mode\": \"create\", \"table_name\": \"Ledger\", \"table_description\": \"money\", \
        \"operations\": [{\"action\": \"add\", \"column\": {\"name\": \"Amount\", \"type\": \"number\"}}, {\"action\": \"add\", \"column\": {\"name\": \"Note\", \"type\": \"text\"}}], \
        \"sample_rows\": [{\"Amount\": -5, \"Note\": \"-5\"}, {\"Amount\": -0.5, \"Note\": \"+1\"}, {\"Amount\": \"-7\", \"Note\": \"ok\"}]}";
    let csv = csv_of_accepted(PROPOSAL).await.text().await.unwrap();
    // Numbers as they are; text that a spreadsheet would run, defused.
    assert_eq!(csv, "Amount,Note\n-5,'-5\n-0.5,'+1\n-7,ok\n");
}
