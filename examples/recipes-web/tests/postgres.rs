//! The recipe assistant on PostgreSQL, as an app that outgrows one process runs it: two
//! `recipes serve --database postgres://...` processes on one database (a server of the
//! test's own, on 127.0.0.1), accepts of every proposal sent to both at once (each
//! applied once), and one process killed with SIGKILL in the middle of an accept (its
//! decision is not half-applied, and the other process still serves and applies it).
//! Skipped, saying so, when PostgreSQL is not installed, unless
//! `PAYLOAD_REQUIRE_POSTGRES=1`.

use payload_loopback::postgres::TestPostgres;
use payload_serve::{AppSchema, Database, Db, TxMode};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One `recipes serve` process, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    /// Starts `recipes serve` on a free port with `database`, and waits for its URL.
    fn start(database: &str) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_recipes"))
            .args(["serve", "--port", "0", "--database", database])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("recipes serve starts");
        let stdout = child.stdout.take().expect("its output");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("it prints its address");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Asks `server` for a recipe in a new conversation; answers (conversation, turn) of
/// the proposal its recorded answer makes.
async fn propose(client: &reqwest::Client, server: &Server) -> (String, usize) {
    let response = client
        .post(format!("{}/api/chat", server.url))
        .json(&json!({"message": "A recipe for dinner?", "context": {"current_page": "cookbook"}}))
        .send()
        .await
        .expect("the chat answers");
    assert!(response.status().is_success(), "{}", response.status());
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let (conversation, turn) = (header("x-conversation-id"), header("x-turn"));
    // The stream ends when the answer, and its proposal, are recorded.
    let events = response.text().await.unwrap();
    assert!(events.contains("event: complete"), "{events}");
    (conversation, turn.parse().unwrap())
}

/// Accepts the proposal on `server`: its status code and answer.
async fn accept(
    client: &reqwest::Client,
    server_url: &str,
    (conversation, turn): &(String, usize),
) -> Result<(u16, Value), reqwest::Error> {
    let response = client
        .post(format!(
            "{server_url}/api/payloads/{conversation}/{turn}/accept?index=0"
        ))
        .json(&json!({}))
        .send()
        .await?;
    let status = response.status().as_u16();
    Ok((status, response.json().await.unwrap_or(Value::Null)))
}

/// `path` of `server`, read as JSON.
async fn get(client: &reqwest::Client, server: &Server, path: &str) -> Value {
    client
        .get(format!("{}{path}", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The recipes saved, as either server lists them.
async fn saved(client: &reqwest::Client, server: &Server) -> usize {
    let body = get(client, server, "/api/recipes").await;
    body["recipes"].as_array().expect("a list").len()
}

/// The status of the proposal as `server` reads it back.
async fn status(client: &reqwest::Client, server: &Server, conversation: &str) -> Value {
    let body = get(
        client,
        server,
        &format!("/api/conversations/{conversation}"),
    )
    .await;
    body["payloads"][0]["status"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_on_one_database_apply_each_accept_once_and_survive_a_kill() {
    let Some(postgres) = TestPostgres::start() else {
        return;
    };
    let url = postgres.url("postgres");
    let mut a = Server::start(&url);
    let b = Server::start(&url);
    let client = reqwest::Client::new();

    // Proposals made through either process.
    let mut proposals = Vec::new();
    for round in 0..6 {
        let server = if round % 2 == 0 { &a } else { &b };
        proposals.push(propose(&client, server).await);
    }
    // Each proposal accepted on both processes at once: one applies it, the other is
    // told it was already decided.
    let mut racing = Vec::new();
    for proposal in &proposals {
        for server in [&a.url, &b.url] {
            let (client, server, proposal) = (client.clone(), server.clone(), proposal.clone());
            racing.push(tokio::spawn(async move {
                accept(&client, &server, &proposal).await.unwrap()
            }));
        }
    }
    let mut answers = Vec::new();
    for one in racing {
        answers.push(one.await.unwrap());
    }
    for pair in answers.chunks(2) {
        let mut codes: Vec<u16> = pair.iter().map(|(code, _)| *code).collect();
        codes.sort();
        assert_eq!(codes, [200, 409], "{pair:?}");
    }
    assert_eq!(saved(&client, &a).await, proposals.len());
    assert_eq!(saved(&client, &b).await, proposals.len());

    // One more proposal; the test holds the recipes table, so process A's accept
    // stops inside its transaction, after its status change and before its insert.
    let last = propose(&client, &b).await;
    let db = Db::connect(&Database::parse(&url).unwrap(), AppSchema::new()).unwrap();
    let hold = db.begin(TxMode::Write).await.unwrap();
    hold.execute("LOCK TABLE saved_recipes IN ACCESS EXCLUSIVE MODE", &[])
        .await
        .unwrap();
    let stuck = {
        let (client, server, last) = (client.clone(), a.url.clone(), last.clone());
        tokio::spawn(async move { accept(&client, &server, &last).await })
    };
    let waiting = db.begin(TxMode::Read).await.unwrap();
    let start = Instant::now();
    loop {
        let row = waiting
            .query_one("SELECT COUNT(*) FROM pg_locks WHERE NOT granted", &[])
            .await
            .unwrap();
        if row.get::<i64>(0).unwrap() > 0 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the accept never waited"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(waiting);
    // SIGKILL, mid-accept.
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    hold.rollback().await;
    assert!(
        stuck.await.unwrap().is_err(),
        "the killed process answered nothing"
    );
    // Nothing of the killed accept is kept: the proposal is still proposed, no recipe
    // was saved, and the other process applies it, once.
    let start = Instant::now();
    while status(&client, &b, &last.0).await != json!("proposed") {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the killed accept was kept"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(saved(&client, &b).await, proposals.len());
    let (code, applied) = accept(&client, &b.url, &last).await.unwrap();
    assert_eq!(code, 200, "{applied}");
    assert_eq!(status(&client, &b, &last.0).await, json!("accepted"));
    assert_eq!(saved(&client, &b).await, proposals.len() + 1);
    let (again, _) = accept(&client, &b.url, &last).await.unwrap();
    assert_eq!(again, 409);
}
