//! Driving the page in a real headless Chromium over WebDriver, for the browser tests of
//! any app of the chat server (table.that's here, the recipe assistant's by path):
//! chromedriver and a session, waiting for a script's answer, typing, clicking and
//! counting.
//!
//! Needs `chromium` and `chromedriver` (Debian's packages; `.ci/run` installs them).
//! Without them [`browser`] says so and returns `None`, so `cargo test` works on a
//! machine with only the Rust toolchain; with `PAYLOAD_REQUIRE_BROWSER=1` (set by
//! `.ci/run`) a missing browser is a failure.

#![allow(dead_code)] // each test binary uses part of it

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A chromedriver process, killed when dropped.
pub struct Driver {
    child: Child,
    url: String,
    _profile: tempdir::Dir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

mod tempdir {
    //! A fresh browser profile directory, removed when dropped.
    pub struct Dir(pub std::path::PathBuf);

    impl Dir {
        pub fn new(name: &str) -> Dir {
            let path = std::env::temp_dir().join(format!(
                "{name}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

pub fn program(env: &str, default: &str) -> Option<PathBuf> {
    let path = std::env::var_os(env).map_or_else(|| PathBuf::from(default), PathBuf::from);
    path.exists().then_some(path)
}

/// Starts chromedriver and a headless Chromium session; `None` (with a note) when they
/// are not installed and not required.
pub async fn browser() -> Option<(Client, Driver)> {
    let (Some(driver), Some(chromium)) = (
        program("CHROMEDRIVER", "/usr/bin/chromedriver"),
        program("CHROMIUM", "/usr/bin/chromium"),
    ) else {
        if std::env::var_os("PAYLOAD_REQUIRE_BROWSER").is_some() {
            panic!("PAYLOAD_REQUIRE_BROWSER is set but chromium or chromedriver is missing");
        }
        eprintln!("skipped: chromium and chromedriver are not installed");
        return None;
    };
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let profile = tempdir::Dir::new("payload-serve-browser");
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
        _profile: profile,
    };
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1280,860",
                format!("--user-data-dir={}", driver._profile.0.display()),
            ],
        }),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&driver.url)
            .await
        {
            Ok(client) => return Some((client, driver)),
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("no WebDriver session: {e}"),
        }
    }
}

/// Runs `script` (which returns a value) until `ready` holds for its result.
pub async fn until(
    client: &Client,
    what: &str,
    script: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let value = client.execute(script, vec![]).await.unwrap();
        if ready(&value) {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; last: {value}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub async fn send(client: &Client, text: &str) {
    let input = client.find(Locator::Id("chat-input")).await.unwrap();
    input.send_keys(text).await.unwrap();
    client
        .find(Locator::Id("chat-send"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// Waits for the `n`th answer (from 1) to complete.
pub async fn answered(client: &Client, n: usize) {
    let script =
        "return document.querySelectorAll('.message.assistant[data-state=complete]').length";
    until(client, &format!("answer {n}"), script, |v| {
        v.as_u64() >= Some(n as u64)
    })
    .await;
}

pub async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

pub async fn count(client: &Client, css: &str) -> u64 {
    let script = format!("return document.querySelectorAll({}).length", json!(css));
    client
        .execute(&script, vec![])
        .await
        .unwrap()
        .as_u64()
        .unwrap()
}

/// Markup the model wrote stayed text: each of `shown` is in `text` (what the page
/// shows), no element a model could use was made in the messages, and no script of the
/// model's set `window.ran` (wait for an `onerror` to have had its chance first).
pub async fn assert_markup_stayed_text(client: &Client, text: &str, shown: &[&str]) {
    for piece in shown {
        assert!(
            text.contains(piece),
            "{piece:?} is not shown as text in {text:?}"
        );
    }
    for element in ["script", "img", "iframe", "a", "b"] {
        assert_eq!(
            count(client, &format!("#messages {element}")).await,
            0,
            "a <{element}> was made"
        );
    }
    let ran = client
        .execute("return window.ran === undefined", vec![])
        .await
        .unwrap();
    assert_eq!(ran, true, "nothing from the model ran");
}
