//! The page's scripts that are plain functions, run by Node (`tests/page/*.js`): the
//! Markdown renderer's output and its linear time on hostile text. Without Node the
//! tests say so and pass, unless `PAYLOAD_REQUIRE_NODE` is set (as `.ci/run` sets it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Node, or `None` (with a note) when it is missing and not required.
fn node() -> Option<PathBuf> {
    let node = std::env::var_os("NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let runs = Command::new(&node)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        return Some(node);
    }
    if std::env::var_os("PAYLOAD_REQUIRE_NODE").is_some() {
        panic!("PAYLOAD_REQUIRE_NODE is set but node is not installed");
    }
    eprintln!("skipped: node is not installed");
    None
}

/// Runs `tests/page/<script>` and fails with its output unless it exits 0.
fn run_script(script: &str) {
    let Some(node) = node() else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/page")
        .join(script);
    let output = Command::new(node).arg(&path).output().unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script} failed:\n{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(printed.contains(" passed, 0 failed"), "{printed}");
}

#[test]
fn markdown_renders_hostile_text_in_linear_time() {
    run_script("markdown.js");
}
