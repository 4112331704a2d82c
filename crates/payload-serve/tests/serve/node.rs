//! AG-UI checked by the protocol's own packages, run with Node: every event the server
//! sends (and the input it was sent) validates against `@ag-ui/core`'s published zod
//! schemas, and the official `@ag-ui/client` consumes a run from the server on
//! 127.0.0.1 and sees the text, the payload's card and the interrupt, then resumes it.
//!
//! The packages are the ones `tests/agui/package-lock.json` pins, installed by `.ci/run`
//! into a cache outside the clone (`PAYLOAD_AGUI_MODULES` names its `node_modules`).
//! Without Node or the packages the tests say so and pass, unless
//! `PAYLOAD_REQUIRE_NODE` is set (as `.ci/run` sets it): then it is a failure.

use crate::agui::{input, resume, run, thread};
use crate::app::*;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// This folder: the scripts, `package.json` and its lock.
fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agui")
}

/// Node and the `node_modules` holding `@ag-ui/core` and `@ag-ui/client`, or `None`
/// (with a note) when either is missing and not required.
fn node() -> Option<(PathBuf, PathBuf)> {
    payload_loopback::node::find(
        "PAYLOAD_AGUI_MODULES",
        &scripts().join("node_modules"),
        &["@ag-ui/core", "@ag-ui/client"],
        "the AG-UI packages are",
    )
}

/// Runs `script` with `args`, `stdin` on its input; its standard output as JSON.
fn run_node(node: &Path, modules: &Path, script: &str, args: &[&str], stdin: &str) -> Value {
    let mut child = Command::new(node)
        .arg(scripts().join(script))
        .args(args)
        .env("NODE_PATH", modules)
        .env("SUPPRESS_TRANSFORMATION_WARNINGS", "true")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the script prints JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_validates_against_ag_ui_cores_published_schemas() {
    let Some((node, modules)) = node() else {
        return;
    };
    let mut items = Vec::new();
    // A run with reasoning, text, a drafting card, patches and an interrupt; its
    // resume, accepted; a second resume, refused (RUN_ERROR); a shown type; a cancel.
    let running = start(LIST_ANSWER).await;
    let first = input("schema-thread", "run-1", "What do I need?");
    items.push(json!({"kind": "input", "value": first}));
    let events = run(&running, &first).await;
    let id = events.last().unwrap()["outcome"]["interrupts"][0]["id"].clone();
    let issued = thread(&events);
    items.extend(
        events
            .into_iter()
            .map(|e| json!({"kind": "event", "value": e})),
    );
    let entry =
        json!([{"interruptId": id, "status": "resolved", "payload": {"decision": "accept"}}]);
    for run_id in ["run-2", "run-3"] {
        let body = resume(&issued, run_id, entry.clone());
        items.push(json!({"kind": "input", "value": body}));
        items.extend(
            run(&running, &body)
                .await
                .into_iter()
                .map(|e| json!({"kind": "event", "value": e})),
        );
    }
    let running = start(NOTE_ANSWER).await;
    let events = run(&running, &input("note-thread", "run-1", "Note?")).await;
    items.extend(
        events
            .into_iter()
            .map(|e| json!({"kind": "event", "value": e})),
    );
    let types: std::collections::BTreeSet<String> = items
        .iter()
        .filter_map(|i| i["value"]["type"].as_str().map(String::from))
        .collect();
    for sent in [
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
    ] {
        assert!(types.contains(sent), "the runs sent no {sent}");
    }
    let report = run_node(
        &node,
        &modules,
        "validate.js",
        &[],
        &serde_json::to_string(&items).unwrap(),
    );
    assert_eq!(report["checked"], items.len());
    assert_eq!(report["failures"], json!([]), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_sees_the_text_the_payload_and_the_interrupt_and_resumes() {
    let Some((node, modules)) = node() else {
        return;
    };
    let running = start(LIST_ANSWER).await;
    let url = format!("{}/api/agui", running.url);
    // The client blocks its thread on Node; the server runs on the test's workers.
    let seen =
        tokio::task::spawn_blocking(move || run_node(&node, &modules, "client.js", &[&url], ""))
            .await
            .unwrap();
    assert_eq!(seen["errors"], json!([]), "{seen}");
    assert_eq!(seen["text"], "Here is your list.\n\nEnjoy!");
    assert_eq!(seen["reasoning"], "They need milk and bread.");
    assert_eq!(seen["activity"]["status"], "proposed", "{seen}");
    assert_eq!(seen["activity"]["data"]["store"], "Corner shop");
    assert_eq!(seen["pending"][0]["reason"], "payload_decision", "{seen}");
    assert_eq!(seen["finished"][0]["type"], "interrupt", "{seen}");
    assert_eq!(seen["resumed"]["activity"]["status"], "accepted", "{seen}");
    assert_eq!(seen["resumed"]["activity"]["applied"]["saved"], 2);
    assert_eq!(seen["pendingAfter"], 0);
    assert_eq!(saved(&running), 1);
}

/// A refusal and a content filter's stop end the run with `RUN_ERROR` (its code the
/// reason, its message the words), the last event: every event validates against
/// `@ag-ui/core`, and the official client, whose checks refuse anything after
/// `RUN_ERROR`, runs it without failing and sees the error, never a finished run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_sees_a_refusal_or_a_filters_stop_as_the_runs_error() {
    let Some((node, modules)) = node() else {
        return;
    };
    for (reason, code, message) in [
        (
            payload_agent::RefusalReason::ContentFilter,
            "content_filter",
            "The provider's content filter stopped the answer.",
        ),
        (
            payload_agent::RefusalReason::Refusal,
            "refusal",
            "I can't help with that.",
        ),
    ] {
        let running = start_model(stopping(reason)).await;
        let body = input("thread-refused", "run-1", "Something the filter stops");
        let events = run(&running, &body).await;
        let items: Vec<Value> = std::iter::once(json!({"kind": "input", "value": body}))
            .chain(events.iter().map(|e| json!({"kind": "event", "value": e})))
            .collect();
        let stdin = Value::Array(items).to_string();
        let (n, m) = (node.clone(), modules.clone());
        let checked =
            tokio::task::spawn_blocking(move || run_node(&n, &m, "validate.js", &[], &stdin))
                .await
                .unwrap();
        assert_eq!(checked["failures"], json!([]), "{checked}");

        let url = format!("{}/api/agui", running.url);
        let (n, m) = (node.clone(), modules.clone());
        let seen = tokio::task::spawn_blocking(move || run_node(&n, &m, "refusal.js", &[&url], ""))
            .await
            .unwrap();
        assert_eq!(
            seen["errors"],
            json!([{"message": message, "code": code}]),
            "{seen}"
        );
        assert_eq!(seen["finished"], 0, "{seen}");
        assert_eq!(
            seen["types"].as_array().unwrap().last(),
            Some(&json!("RUN_ERROR")),
            "{seen}"
        );
        assert_eq!(seen["text"], "Here is your list.", "{seen}");
    }
}

/// Runs `scenario` of `scenarios.js` with the official client against `running`.
async fn scenario(running: &Running, scenario: &'static str) -> Option<Value> {
    let (node, modules) = node()?;
    let url = format!("{}/api/agui", running.url);
    // The client blocks its thread on Node; the server runs on the test's workers.
    Some(
        tokio::task::spawn_blocking(move || {
            run_node(&node, &modules, "scenarios.js", &[&url, scenario], "")
        })
        .await
        .unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_accepting_the_card_it_shows_saves_that_cards_proposal() {
    let running = start_echo(std::time::Duration::ZERO).await;
    let Some(seen) = scenario(&running, "history").await else {
        return;
    };
    assert_eq!(seen["first"]["card"]["data"]["store"], "A", "{seen}");
    assert_eq!(seen["dismissed"]["card"]["status"], "dismissed", "{seen}");
    assert_eq!(seen["second"]["card"]["data"]["store"], "B", "{seen}");
    assert_eq!(seen["second"]["card"]["status"], "proposed", "{seen}");
    let accepted = &seen["accepted"];
    assert_eq!(accepted["thrown"], Value::Null, "{seen}");
    assert_eq!(accepted["errors"], json!([]), "{seen}");
    assert_eq!(accepted["card"]["status"], "accepted", "{seen}");
    assert_eq!(accepted["card"]["applied"]["store"], "B", "{seen}");
    assert_eq!(stores(&running), ["B"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_official_clients_starting_one_thread_id_at_once_each_save_their_own() {
    let running = start_echo(std::time::Duration::from_millis(15)).await;
    let Some(seen) = scenario(&running, "concurrent").await else {
        return;
    };
    assert_ne!(seen["threads"][0], seen["threads"][1], "{seen}");
    for (run, store) in [("A", "A"), ("B", "B")] {
        let first = &seen[format!("first{run}")];
        assert_eq!(first["thrown"], Value::Null, "{seen}");
        assert_eq!(first["card"]["data"]["store"], store, "{seen}");
        let accepted = &seen[format!("accepted{run}")];
        assert_eq!(accepted["errors"], json!([]), "{seen}");
        assert_eq!(accepted["card"]["applied"]["store"], store, "{seen}");
    }
    let mut saved = stores(&running);
    saved.sort();
    assert_eq!(saved, ["A", "B"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_picked_thread_id_lets_no_one_else_in() {
    let running = start_echo(std::time::Duration::ZERO).await;
    let Some(seen) = scenario(&running, "guess").await else {
        return;
    };
    assert!(seen["stolen"]["thrown"].is_string(), "{seen}");
    assert_ne!(seen["victimThread"], seen["theirThread"], "{seen}");
    assert_eq!(seen["theirs"]["card"]["data"]["store"], "theirs", "{seen}");
    assert_eq!(
        seen["accepted"]["card"]["applied"]["store"], "mine",
        "{seen}"
    );
    assert_eq!(stores(&running), ["mine"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_takes_a_failed_run_as_one_run_error() {
    let running = start_echo(std::time::Duration::ZERO).await;
    let Some(seen) = scenario(&running, "failure").await else {
        return;
    };
    let failed = &seen["failed"];
    assert_eq!(
        failed["errors"],
        json!(["the provider dropped the answer"]),
        "{seen}"
    );
    let thrown = failed["thrown"].as_str().unwrap_or_default();
    assert!(!thrown.contains("already errored"), "{seen}");
    assert_eq!(
        failed["types"].as_array().unwrap().last().unwrap(),
        "RUN_ERROR",
        "{seen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_never_holds_chips_as_a_card() {
    let running = start_echo(std::time::Duration::ZERO).await;
    let Some(seen) = scenario(&running, "chips").await else {
        return;
    };
    let seen = &seen["seen"];
    for card in seen["cards"].as_array().unwrap() {
        assert_eq!(card["type"], "shopping_list", "{seen}");
    }
    assert_eq!(seen["card"]["status"], "proposed", "{seen}");
    assert_eq!(
        seen["result"]["suggested_values"][0]["label"], "Add bread",
        "{seen}"
    );
}
