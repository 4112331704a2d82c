//! `recipes serve` speaks of the app it serves: its help and its start-up line name the
//! recipe assistant and its pages, never another app; and the served app answers at the
//! address it prints.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The `recipes serve` process, killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_serve_help_names_the_recipe_assistant_and_its_pages() {
    let output = Command::new(env!("CARGO_BIN_EXE_recipes"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    assert!(
        help.contains("Serve Recipes (pages: cookbook, kitchen) in a browser"),
        "{help}"
    );
    assert!(
        !help.contains("table.that") && !help.contains("tables in"),
        "{help}"
    );
}

#[tokio::test]
async fn the_start_up_line_names_the_app_and_the_address_it_answers_at() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_recipes"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _served = Served(child);
    let url = line
        .strip_prefix("Recipes (pages: cookbook, kitchen): open ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{line:?}"))
        .trim_end_matches('/')
        .to_string();
    let app: serde_json::Value = reqwest::get(format!("{url}/api/app"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(app["title"], "Recipes", "{app}");
}
