//! A real headless Chromium driven over WebDriver, for the browser tests of any app of
//! the chat server: chromedriver and a session ([`browser`]), the app served on
//! 127.0.0.1 ([`serve`]), the page opened once it is drawn ([`open`]), waiting for a
//! script's answer ([`until`]), typing, clicking and counting, and a model's pieces
//! released with pauses so the page can be seen streaming ([`paced`]).
//!
//! Needs `chromium` and `chromedriver` (Debian's packages; `.ci/run` installs them),
//! found at `$CHROMIUM` and `$CHROMEDRIVER`, else in `/usr/bin`. Without them
//! [`browser`] says so and returns `None`, so `cargo test` works on a machine with only
//! the Rust toolchain; with `PAYLOAD_REQUIRE_BROWSER` set (as `.ci/run` does) a
//! missing browser is a failure.

use fantoccini::ClientBuilder;
pub use fantoccini::{Client, Locator};
use futures::stream::{self, BoxStream};
use serde_json::{Value, json};
use std::future::Future;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// How long a script may take to give the answer waited for.
const WAIT: Duration = Duration::from_secs(20);

/// How long chromedriver may take to open a session.
const SESSION: Duration = Duration::from_secs(30);

/// A chromedriver process and the browser's profile folder: the process is killed and
/// the folder removed when dropped.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// The program at `$env`, else at `default`, if it exists.
fn program(env: &str, default: &str) -> Option<PathBuf> {
    let path = std::env::var_os(env).map_or_else(|| PathBuf::from(default), PathBuf::from);
    path.exists().then_some(path)
}

/// A fresh, empty profile folder of this process and thread (tests run in parallel).
fn profile() -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "payload-serve-browser-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).expect("a browser profile folder");
    path
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// Starts chromedriver and a headless Chromium session; `None` (with a note) when they
/// are not installed and not required.
pub async fn browser() -> Option<(Client, Driver)> {
    let (Some(chromedriver), Some(chromium)) = (
        program("CHROMEDRIVER", "/usr/bin/chromedriver"),
        program("CHROMIUM", "/usr/bin/chromium"),
    ) else {
        if std::env::var_os("PAYLOAD_REQUIRE_BROWSER").is_some() {
            panic!("PAYLOAD_REQUIRE_BROWSER is set but chromium or chromedriver is missing");
        }
        eprintln!("skipped: chromium and chromedriver are not installed");
        return None;
    };
    let port = free_port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver {
        child,
        profile: profile(),
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
                format!("--user-data-dir={}", driver.profile.display()),
            ],
        }),
    );
    let url = format!("http://127.0.0.1:{port}");
    // chromedriver listens a moment after it starts: try until it answers.
    let deadline = Instant::now() + SESSION;
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&url)
            .await
        {
            Ok(client) => return Some((client, driver)),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("no WebDriver session: {e}"),
        }
    }
}

/// Serves on a free port of 127.0.0.1: `serve` is given the listener and runs as a task
/// of its own (an app's `Service::serve`, an `axum::serve`). Returns
/// `http://127.0.0.1:PORT`.
pub async fn serve<S, F, E>(serve: S) -> String
where
    S: FnOnce(TcpListener) -> F,
    F: Future<Output = Result<(), E>> + Send + 'static,
    E: Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let url = format!("http://{}", listener.local_addr().expect("its address"));
    tokio::spawn(serve(listener));
    url
}

/// Opens `url` and waits until the page has drawn an element for each of the CSS
/// selectors `ready`.
pub async fn open(client: &Client, url: &str, ready: &[&str]) {
    client.goto(url).await.unwrap();
    let script = format!(
        "return {}.every((css) => document.querySelector(css) !== null)",
        json!(ready)
    );
    until(
        client,
        &format!("the page ({})", ready.join(", ")),
        &script,
        |v| v == true,
    )
    .await;
}

/// Runs `script` (which returns a value) until `ready` holds for its result; returns
/// that result. Panics, naming `what` and the last result, after 20 seconds.
pub async fn until(
    client: &Client,
    what: &str,
    script: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + WAIT;
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

/// Types `text` in the chat's input and sends it.
pub async fn send(client: &Client, text: &str) {
    let input = client.find(Locator::Id("chat-input")).await.unwrap();
    input.send_keys(text).await.unwrap();
    click(client, "#chat-send").await;
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

/// Clicks the first element `css` selects.
pub async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// How many elements `css` selects.
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
    assert_nothing_ran(client).await;
}

/// No script of the model's ran: the page's tests' hostile texts set `window.ran` when
/// they do.
pub async fn assert_nothing_ran(client: &Client) {
    let ran = client
        .execute("return window.ran === undefined", vec![])
        .await
        .unwrap();
    assert_eq!(ran, true, "nothing from the model ran");
}

/// Each item after its pause, in order: a test model's stream (its chunks as a model
/// sends them), so the page is seen while the answer streams.
pub fn paced<T: Send + 'static>(items: Vec<(Duration, T)>) -> BoxStream<'static, T> {
    Box::pin(stream::unfold(items.into_iter(), |mut items| async move {
        let (pause, item) = items.next()?;
        tokio::time::sleep(pause).await;
        Some((item, items))
    }))
}
