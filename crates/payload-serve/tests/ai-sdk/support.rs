//! Running `turn.js` (the `ai` package's own code) against a server on 127.0.0.1:
//! shared by the chat server's tests and the example apps' tests.
//!
//! The package is the one `package-lock.json` beside this file pins, installed by
//! `.ci/run` into a cache outside the clone (`PAYLOAD_AI_SDK_MODULES` names its
//! `node_modules`). Without Node or the package a test says so and passes, unless
//! `PAYLOAD_REQUIRE_NODE` is set (as `.ci/run` sets it): then it is a failure.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// This folder: the script, `package.json` and its lock (found from the chat server's
/// tests and from an example app's, two levels below the workspace's root).
pub fn scripts() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let own = manifest.join("tests/ai-sdk");
    if own.join("turn.js").exists() {
        own
    } else {
        manifest.join("../../crates/payload-serve/tests/ai-sdk")
    }
}

/// Node and the `node_modules` holding `ai`, or `None` (with a note) when either is
/// missing and not required.
pub fn node() -> Option<(PathBuf, PathBuf)> {
    payload_loopback::node::find(
        "PAYLOAD_AI_SDK_MODULES",
        &scripts().join("node_modules"),
        &["ai"],
        "the `ai` package is",
    )
}

/// Runs `turn.js` against `url` with `args`; its standard output as JSON.
pub fn turn(node: &Path, modules: &Path, url: &str, args: &[&str]) -> Value {
    let output = Command::new(node)
        .arg(scripts().join("turn.js"))
        .arg(url)
        .args(args)
        .env("PAYLOAD_AI_SDK_MODULES", modules)
        .stdin(Stdio::null())
        .output()
        .expect("node starts");
    assert!(
        output.status.success(),
        "turn.js failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the script prints JSON")
}

/// The parts of `message` of type `kind`.
pub fn parts<'a>(message: &'a Value, kind: &str) -> Vec<&'a Value> {
    message["parts"]
        .as_array()
        .map(|parts| parts.iter().filter(|p| p["type"] == kind).collect())
        .unwrap_or_default()
}
