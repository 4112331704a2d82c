//! A real engine in the tests: llama.cpp's `llama-server` on 127.0.0.1 with a small CPU
//! model (built and fetched by `.ci/llama-server.sh`, which `.ci/run` calls), driven
//! by the `payload` binary. It checks that
//!
//! - (a) the server accepts every grammar the framework sends: each page's GBNF with
//!   each choice, eager and lazy, each type's whole-response GBNF and its JSON schema
//!   as `response_format`;
//! - (b) constrained `required` turns on each of table.that's pages give an accepted
//!   payload in every turn (`payload eval`, the shipped turn file);
//! - (c) whole responses of structured-rag's and contacts-bridge's types are read
//!   under the type's grammar within the token limit (with length hints), truncated
//!   answers reported.
//!
//! The server and model come from `PAYLOAD_LLAMA_SERVER` and `PAYLOAD_LLAMA_MODEL`.
//! Without them the test says so and passes, unless `PAYLOAD_REQUIRE_LLAMA=1`, which
//! makes a missing server a failure (`.ci/run` sets it). The runtime is kept small:
//! one thread, few turns, short token limits; the answers are sampled at temperature
//! 0, so a run repeats the last one and a failure is the grammar's or the framework's,
//! not the dice's.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server process, stopped when the test ends however it ends.
struct Server {
    child: Child,
    address: String,
    log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The server's log, for a failure message.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

/// Starts the server, or `None` (with a note) when there is none to start.
fn start() -> Option<Server> {
    let paths = (
        std::env::var_os("PAYLOAD_LLAMA_SERVER"),
        std::env::var_os("PAYLOAD_LLAMA_MODEL"),
    );
    let (Some(binary), Some(model)) = paths else {
        assert!(
            std::env::var("PAYLOAD_REQUIRE_LLAMA").as_deref() != Ok("1"),
            "PAYLOAD_REQUIRE_LLAMA=1 but PAYLOAD_LLAMA_SERVER or PAYLOAD_LLAMA_MODEL is unset"
        );
        eprintln!(
            "skipped: no llama.cpp server (set PAYLOAD_LLAMA_SERVER and PAYLOAD_LLAMA_MODEL, as .ci/run does with .ci/llama-server.sh)"
        );
        return None;
    };
    // A free port: bound, read, released (the server binds it next).
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let log = std::env::temp_dir().join(format!("payload-llama-{}.log", std::process::id()));
    let out = std::fs::File::create(&log).expect("the server's log file");
    let child = Command::new(&binary)
        .args(["-m"])
        .arg(&model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        // One slot, one thread (faster than two on a busy 2-core machine), a context
        // that holds a page's system prompt and an answer.
        .args(["-c", "8192", "-np", "1", "-t", "1", "--jinja"])
        .stdout(Stdio::from(out.try_clone().expect("log")))
        .stderr(Stdio::from(out))
        .spawn()
        .unwrap_or_else(|e| panic!("{} does not start: {e}", Path::new(&binary).display()));
    let mut server = Server {
        child,
        address: format!("127.0.0.1:{port}"),
        log,
    };
    let started = Instant::now();
    loop {
        if let Ok((200, _)) = http(&server.address, "GET", "/health", None) {
            return Some(server);
        }
        // A server that died (an instruction this CPU lacks, a bad model file) fails the
        // test at once, with its exit status and log, instead of being waited for.
        if let Ok(Some(status)) = server.child.try_wait() {
            panic!(
                "{} exited before it was ready ({status}):\n{}",
                Path::new(&binary).display(),
                server.log_tail()
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the server was not ready within 300 s:\n{}",
            server.log_tail()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// One HTTP/1.1 request on a fresh connection; the status and the body.
fn http(
    address: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(600)))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// Runs the `payload` binary; its stdout, or a failure with its stderr.
fn payload(args: &[&str]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_payload"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("the payload binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !stderr.trim().is_empty() && !output.status.success() {
        eprintln!("{stderr}");
    }
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).to_string(),
    )
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn json_of(args: &[&str]) -> Value {
    let (ok, out) = payload(args);
    assert!(ok, "payload {args:?} failed");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("payload {args:?}: {e}\n{out}"))
}

/// (a): every grammar the framework sends is one the server takes (HTTP 200 on a
/// one-token answer).
fn every_grammar_is_accepted(server: &Server) {
    let mut sent = 0;
    let mut check = |what: String, extra: Value| {
        let mut body = json!({
            "messages": [{"role": "user", "content": "Hi"}],
            "max_tokens": 1,
        });
        for (key, value) in extra.as_object().unwrap() {
            body[key] = value.clone();
        }
        let (status, answer) = http(&server.address, "POST", "/v1/chat/completions", Some(&body))
            .unwrap_or_else(|e| panic!("{what}: {e}\n{}", server.log_tail()));
        assert_eq!(status, 200, "{what} was refused: {answer}");
        sent += 1;
    };
    for page in json_of(&["pages"]).as_array().unwrap() {
        let name = page["name"].as_str().unwrap();
        let has_payloads = !page["payloads"].as_array().unwrap().is_empty();
        for choice in ["auto", "required", "none"] {
            if choice == "required" && !has_payloads {
                continue;
            }
            let args = [
                "grammar", "--page", name, "--target", "gbnf", "--choice", choice, "--json",
            ];
            let grammar = json_of(&args);
            check(
                format!("{name} ({choice})"),
                json!({"grammar": grammar["text"]}),
            );
        }
        let lazy = json_of(&[
            "grammar", "--page", name, "--target", "gbnf", "--lazy", "--json",
        ]);
        let triggers: Vec<Value> = lazy["triggers"]
            .as_array()
            .map(|t| t.iter().map(|w| json!({"type": 1, "value": w})).collect())
            .unwrap_or_default();
        check(
            format!("{name} (lazy)"),
            json!({"grammar": lazy["text"], "grammar_lazy": true, "grammar_triggers": triggers}),
        );
    }
    for payload in json_of(&["types"]).as_array().unwrap() {
        let name = payload["name"].as_str().unwrap();
        let gbnf = json_of(&["grammar", "--type", name, "--target", "gbnf", "--json"]);
        check(format!("{name} (gbnf)"), json!({"grammar": gbnf["text"]}));
        let format = json_of(&[
            "grammar",
            "--type",
            name,
            "--target",
            "structural-tag",
            "--json",
        ]);
        let format: Value = serde_json::from_str(format["text"].as_str().unwrap()).unwrap();
        check(
            format!("{name} (response_format)"),
            json!({"response_format": format}),
        );
    }
    assert!(sent > 20, "only {sent} grammars were sent");
}

/// Runs `payload eval` on a shipped turn file against the server; the report.
fn eval(server: &Server, file: &str, extra: &[&str]) -> Value {
    let url = format!("http://{}/v1", server.address);
    let mut args = vec![
        "eval",
        file,
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        "smollm2-135m",
        "--temperature",
        "0",
        "--constrain",
        "gbnf",
        "--first-token-timeout",
        "600",
        "--idle-timeout",
        "120",
        "--deadline",
        "900",
    ];
    args.extend_from_slice(extra);
    let (_, out) = payload(&args);
    let report: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}\n{out}\n{}", server.log_tail()));
    eprintln!("payload {}", args.join(" "));
    report
}

/// Every turn that expected a payload got one accepted; the failures listed if not.
fn assert_all_accepted(report: &Value) {
    let overall = &report["overall"];
    let failed: Vec<String> = report["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["accepted"] == false)
        .map(|t| {
            format!(
                "{} {:?}: rejected {} error {} truncated {}\n{}",
                t["target"], t["message"], t["rejected"], t["error"], t["truncated"], t["text"]
            )
        })
        .collect();
    assert_eq!(
        overall["accepted"],
        overall["expecting"],
        "not every turn gave an accepted payload:\n{}",
        failed.join("\n\n")
    );
    eprintln!(
        "{}: {}/{} accepted, {} truncated, {} re-asks, {} tokens out",
        report["description"],
        overall["accepted"],
        overall["expecting"],
        overall["truncated"],
        overall["reasks"],
        overall["output_tokens"]
    );
}

#[test]
fn a_real_engine_takes_every_grammar_and_constrained_turns_give_accepted_payloads() {
    let Some(server) = start() else {
        return;
    };
    every_grammar_is_accepted(&server);
    // (b) a proposal required on each of table.that's pages.
    let pages = eval(
        &server,
        "examples/table-that/eval/turns.json",
        &[
            "--choice",
            "required",
            "--max-tokens",
            "400",
            "--max-length",
            "60",
            "--max-items",
            "4",
        ],
    );
    assert_all_accepted(&pages);
    // (c) whole responses under the type's grammar, within the token limit.
    for file in [
        "examples/structured-rag/eval/turns.json",
        "examples/contacts-bridge/eval/turns.json",
    ] {
        let whole = eval(
            &server,
            file,
            &[
                "--max-tokens",
                "200",
                "--max-length",
                "120",
                "--max-items",
                "4",
            ],
        );
        assert_all_accepted(&whole);
    }
}
