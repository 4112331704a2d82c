//! The server against other sites and other names, over a real socket: a rebound
//! `Host` reads nothing, requests that change data must be same-origin JSON, every
//! response carries the headers that keep the page out of frames, and conversation ids
//! are the server's, never a client's.

use crate::common::*;
use serde_json::{Value, json};
use std::time::Duration;

/// Every route, with a method and a body that would otherwise work.
fn endpoints(id: &str, turn: usize) -> Vec<(&'static str, String, Option<Value>)> {
    vec![
        ("GET", "/".into(), None),
        ("GET", "/assets/table-that.js".into(), None),
        ("GET", "/api/tables".into(), None),
        ("GET", "/api/tables/1".into(), None),
        ("GET", "/api/tables/1/csv".into(), None),
        ("GET", format!("/api/conversations/{id}"), None),
        (
            "POST",
            "/api/chat".into(),
            Some(message("hi", "tables_list", None, Some(id))),
        ),
        (
            "POST",
            format!("/api/payloads/{id}/{turn}/accept"),
            Some(json!({})),
        ),
    ]
}

/// A conversation whose turn proposed a table, and the server.
async fn proposed() -> (Server, String, usize) {
    let server = start(saying_owned(create_proposal("Secrets", 2))).await;
    let client = reqwest::Client::new();
    let (id, turn, events) = chat(&client, &server, message("go", "tables_list", None, None)).await;
    assert_eq!(
        complete(&events)["custom_payload"]["type"],
        "schema_proposal"
    );
    (server, id, turn)
}

async fn tables(server: &Server) -> Value {
    get(&reqwest::Client::new(), server, "/api/tables").await["tables"].clone()
}

#[tokio::test]
async fn a_rebound_host_is_refused_on_every_endpoint() {
    let (server, id, turn) = proposed().await;
    for host in [
        "evil.example",
        &format!(
            "evil.example:{}",
            authority(&server).split(':').nth(1).unwrap()
        ),
        "127.0.0.2:1",
    ] {
        for (method, path, body) in endpoints(&id, turn) {
            let body = body.map(|b| b.to_string()).unwrap_or_default();
            let request = format!(
                "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let response = raw(&server, &request, Duration::from_secs(5)).await;
            assert!(
                response.starts_with("HTTP/1.1 421"),
                "{method} {path} with Host {host}: {response}"
            );
            assert!(!response.contains("Secrets"), "{response}");
        }
    }
    assert_eq!(tables(&server).await, json!([]), "nothing was accepted");
    // The served name itself, and localhost on the same port, are answered.
    for host in [
        authority(&server),
        authority(&server).replace("127.0.0.1", "localhost"),
    ] {
        let request =
            format!("GET /api/tables HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let response = raw(&server, &request, Duration::from_secs(5)).await;
        assert!(response.starts_with("HTTP/1.1 200"), "{host}: {response}");
    }
}

#[tokio::test]
async fn an_operator_listed_host_is_answered() {
    let server = start_with(
        replay(),
        payload_serve::ServeOptions {
            security: payload_serve::security::SecurityPolicy {
                allowed_hosts: vec!["tables.example.com".into()],
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .await;
    let request =
        "GET /api/tables HTTP/1.1\r\nHost: tables.example.com\r\nConnection: close\r\n\r\n";
    let response = raw(&server, request, Duration::from_secs(5)).await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
}

/// Headers, body and the status they must get.
type Case = (&'static [(&'static str, &'static str)], &'static str, u16);

#[tokio::test]
async fn only_same_origin_json_changes_anything() {
    let (server, id, turn) = proposed().await;
    let client = reqwest::Client::new();
    let accept = format!("{}/api/payloads/{id}/{turn}/accept", server.url);
    let cases: [Case; 7] = [
        (&[("content-type", "text/plain")], "{}", 415),
        (
            &[("content-type", "text/plain;charset=UTF-8")],
            "{\"rows\": null}",
            415,
        ),
        (
            &[("content-type", "application/x-www-form-urlencoded")],
            "rows=",
            415,
        ),
        (&[], "", 415),
        (
            &[
                ("content-type", "application/json"),
                ("origin", "http://127.0.0.1:1"),
            ],
            "{}",
            403,
        ),
        (
            &[("content-type", "application/json"), ("origin", "null")],
            "{}",
            403,
        ),
        (
            &[
                ("content-type", "application/json"),
                ("referer", "http://evil.example/page"),
            ],
            "{}",
            403,
        ),
    ];
    for (headers, body, status) in cases {
        let mut request = client.post(&accept).body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{headers:?} {body}");
        let error: Value = response.json().await.unwrap();
        assert!(error["error"].is_string(), "{error}");
    }
    // The same chat message as text/plain starts no turn.
    let response = client
        .post(format!("{}/api/chat", server.url))
        .header("content-type", "text/plain")
        .body(message("hi", "tables_list", None, None).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    assert_eq!(tables(&server).await, json!([]), "nothing was accepted");

    // The page's own request: its origin, JSON.
    let response = client
        .post(&accept)
        .header("origin", server.url.clone())
        .header("sec-fetch-site", "same-origin")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(tables(&server).await.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let (server, id, turn) = proposed().await;
    let client = reqwest::Client::new();
    let mut seen = Vec::new();
    let mut requests = Vec::new();
    for (method, path, body) in endpoints(&id, turn) {
        let url = format!("{}{path}", server.url);
        requests.push(match (method, body) {
            ("GET", _) => client.get(url),
            (_, Some(body)) => client.post(url).json(&body),
            (_, None) => client.post(url),
        });
    }
    // Errors and refusals too: 404, 415, 403, 400, 405.
    requests.push(client.get(format!("{}/no/such/page", server.url)));
    requests.push(client.get(format!("{}/assets/nope.js", server.url)));
    requests.push(client.post(format!("{}/api/chat", server.url)).body("x"));
    requests.push(
        client
            .post(format!("{}/api/chat", server.url))
            .header("origin", "http://evil.example")
            .json(&json!({})),
    );
    requests.push(
        client
            .post(format!("{}/api/chat", server.url))
            .json(&json!({"message": 1})),
    );
    requests.push(
        client
            .delete(format!("{}/api/tables", server.url))
            .json(&json!({})),
    );
    for request in requests {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let _ = response.bytes().await;
        let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_string());
        let csp = header("content-security-policy").unwrap_or_default();
        assert!(
            csp.contains("frame-ancestors 'none'"),
            "{status}: {headers:?}"
        );
        assert_eq!(
            header("x-frame-options").as_deref(),
            Some("DENY"),
            "{status}"
        );
        assert_eq!(
            header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{status}"
        );
        assert_eq!(
            header("referrer-policy").as_deref(),
            Some("same-origin"),
            "{status}"
        );
        seen.push(status);
    }
    for status in [200, 404, 415, 403, 422, 405] {
        assert!(seen.contains(&status), "{status} was checked: {seen:?}");
    }
}

#[tokio::test]
async fn conversation_ids_are_made_by_the_server() {
    let server = start(replay()).await;
    let client = reqwest::Client::new();
    // Chosen by the client, as a string or a number: not taken.
    for chosen in [json!("my-own-id"), json!(12345), json!("0")] {
        let mut body = message("hi", "tables_list", None, None);
        body["conversation_id"] = chosen.clone();
        let response = post_chat(&client, &server, &body).await;
        assert_eq!(response.status(), 200);
        let id = response.headers()["x-conversation-id"]
            .to_str()
            .unwrap()
            .to_string();
        let _ = response.text().await;
        assert_ne!(json!(id), chosen);
        assert_ne!(id, chosen.to_string());
        assert_eq!(id.len(), 32, "128 random bits: {id}");
        let stored = get(
            &client,
            &server,
            &format!(
                "/api/conversations/{}",
                chosen.to_string().trim_matches('"')
            ),
        )
        .await;
        assert_eq!(
            stored["messages"],
            json!([]),
            "nothing was stored under the chosen id"
        );
    }
    // The server's id continues its conversation.
    let (id, _, _) = chat(&client, &server, message("one", "tables_list", None, None)).await;
    let (same, turn, _) = chat(
        &client,
        &server,
        message("two", "tables_list", None, Some(&id)),
    )
    .await;
    assert_eq!((same.as_str(), turn), (id.as_str(), 1));
    let (other, _, _) = chat(&client, &server, message("one", "tables_list", None, None)).await;
    assert_ne!(other, id);
}
