//! `payload serve`: the command line of a web app that lives in another crate. The
//! server (axum, SQLite, the page) is an app's, not the command's, so `payload-cli`
//! does not link it: a binary that has one passes it to
//! [`main_with_server`](crate::main_with_server) (`payload_serve::App` is a [`Serve`],
//! and so is any function taking a [`ServeRequest`]), and this module hands it what the
//! user asked for, the model already chosen.

#[cfg(feature = "providers")]
use crate::chat::ClientOptions;
use payload_agent::Model;
use std::sync::Arc;

/// Makes the model of one chat turn (a fresh client each time, so turns share nothing).
pub type ModelFactory = Arc<dyn Fn() -> Box<dyn Model> + Send + Sync>;

/// What `payload serve` was asked for.
#[derive(Clone)]
pub struct ServeRequest {
    /// The port on 127.0.0.1 (0 picks a free one).
    pub port: u16,
    /// Where the chat is kept (`--database`: a SQLite file's path, `sqlite:PATH` or
    /// `postgres://...`); SQLite in memory when `None`. The app reads it
    /// (`payload_serve::App::database`).
    pub database: Option<String>,
    /// The real model asked for with `--provider`; `None`: the app's offline model.
    pub model: Option<ModelFactory>,
    /// Host names the server answers for besides its own address (`--allow-host`).
    pub allow_hosts: Vec<String>,
    /// How long one whole chat turn may take: `--deadline` (each model request's bound)
    /// and a second more; the server's own default when `None`.
    pub turn_deadline: Option<std::time::Duration>,
    /// The model's prompt opens its reasoning (`--reasoning-opened-by-prompt`): each
    /// answer is read as if it began with `<think>`.
    pub reasoning_opened_by_prompt: bool,
    /// Traces may record what the user and the model said: the GenAI conventions'
    /// opt-in (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, with the
    /// `otel` feature).
    pub capture_content: bool,
}

impl std::fmt::Debug for ServeRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeRequest")
            .field("port", &self.port)
            .field(
                "database",
                // A PostgreSQL URL's password is not printed.
                &self.database.as_deref().map(|d| match d.split_once("://") {
                    Some((scheme, rest)) if rest.contains('@') => format!("{scheme}://..."),
                    _ => d.to_string(),
                }),
            )
            .field("model", &self.model.as_ref().map(|_| "provider"))
            .field("allow_hosts", &self.allow_hosts)
            .field("turn_deadline", &self.turn_deadline)
            .field(
                "reasoning_opened_by_prompt",
                &self.reasoning_opened_by_prompt,
            )
            .field("capture_content", &self.capture_content)
            .finish()
    }
}

/// An app `payload serve` can run: it serves what the request asks until it is
/// stopped.
pub trait Serve {
    /// Runs the app as `request` asks (its port, database, model and hosts) until the
    /// process is stopped.
    fn serve(self: Box<Self>, request: ServeRequest) -> std::io::Result<()>;

    /// The app in a few words, as `serve --help` names it: its title and its pages
    /// (`Recipes (pages: cookbook, pantry)`); `None` (the default) leaves the help
    /// speaking of "this build's app".
    fn describe(&self) -> Option<String> {
        None
    }
}

/// `serve`'s one-line help: the app `server` describes, or this build's app.
pub(crate) fn about(server: Option<&Server>) -> String {
    let app = server
        .and_then(|server| server.describe())
        .unwrap_or_else(|| "this build's app".to_string());
    format!(
        "Serve {app} in a browser: its pages, the chat streamed over SSE, payload cards to accept or dismiss"
    )
}

impl<F: FnOnce(ServeRequest) -> std::io::Result<()>> Serve for F {
    fn serve(self: Box<Self>, request: ServeRequest) -> std::io::Result<()> {
        (*self)(request)
    }
}

/// The app `payload serve` runs.
pub type Server = Box<dyn Serve>;

/// The model `payload serve` gives the app (a factory of the provider's clients, time
/// limits included; none when no provider is named) and the deadline of one turn.
#[cfg(feature = "providers")]
pub(crate) fn model(
    provider: Option<crate::Provider>,
    model: Option<String>,
    base_url: Option<String>,
    max_tokens: Option<u32>,
    timeouts: crate::ModelTimeouts,
) -> Result<(Option<ModelFactory>, Option<std::time::Duration>), crate::CliError> {
    let turn_deadline = Some(crate::chat::turn_deadline(timeouts.deadline));
    let Some((provider, model)) = provider.zip(model) else {
        return Ok((None, turn_deadline));
    };
    let options = ClientOptions {
        provider,
        model,
        base_url,
        max_tokens,
        temperature: None,
        thinking_budget: None,
        timeouts,
    }
    .checked()?;
    let factory: ModelFactory = Arc::new(move || crate::chat::client(&options, None));
    Ok((Some(factory), turn_deadline))
}

/// Without the `providers` feature there is no client to serve: naming a provider is
/// an error, and the app serves without a model.
#[cfg(not(feature = "providers"))]
pub(crate) fn model(
    provider: Option<crate::Provider>,
    _model: Option<String>,
    _base_url: Option<String>,
    _max_tokens: Option<u32>,
    _timeouts: crate::ModelTimeouts,
) -> Result<(Option<ModelFactory>, Option<std::time::Duration>), crate::CliError> {
    match provider {
        Some(_) => Err(crate::CliError::NoProviders),
        None => Ok((None, None)),
    }
}

/// Runs `payload serve`: the app `server` (none: an error saying the build has none)
/// with the model and limits asked for.
pub(crate) fn command(
    args: crate::args::ServeArgs,
    server: Option<Server>,
) -> Result<std::process::ExitCode, crate::CliError> {
    let server = server.ok_or(crate::CliError::NoServer)?;
    let (model, turn_deadline) = model(
        args.provider,
        args.model,
        args.base_url,
        args.max_tokens,
        args.timeouts,
    )?;
    server
        .serve(ServeRequest {
            port: args.port,
            database: args.database,
            model,
            allow_hosts: args.allow_hosts,
            turn_deadline,
            reasoning_opened_by_prompt: args.reasoning_opened_by_prompt,
            capture_content: crate::telemetry::capture_content(),
        })
        .map_err(crate::CliError::Serve)?;
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(all(test, feature = "providers"))]
mod tests {
    use crate::{CliError, run, run_with_server};
    use payload_registry::Registry;
    use std::sync::Mutex;

    static ASKED: Mutex<Vec<String>> = Mutex::new(Vec::new());

    fn recording_server(request: crate::ServeRequest) -> std::io::Result<()> {
        ASKED.lock().unwrap().push(format!(
            "{} {:?} {} {:?} {}",
            request.port,
            request.database,
            request.model.is_some(),
            request.allow_hosts,
            request.reasoning_opened_by_prompt
        ));
        Ok(())
    }

    #[test]
    fn the_server_gets_the_port_the_file_and_a_model_only_when_a_provider_is_named() {
        let registry = Registry::global();
        let mut out = Vec::new();
        for args in [
            &["payload", "serve"][..],
            &[
                "payload",
                "serve",
                "--port",
                "0",
                "--db",
                "x.db",
                "--allow-host",
                "tables.example.com",
                "--allow-host",
                "other:9000",
            ],
            &[
                "payload",
                "serve",
                "--provider",
                "openai",
                "--model",
                "m",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--reasoning-opened-by-prompt",
                "--database",
                "postgres://app@127.0.0.1:5432/chat",
            ],
        ] {
            run_with_server(args, registry, &mut out, Some(Box::new(recording_server))).unwrap();
        }
        assert_eq!(
            *ASKED.lock().unwrap(),
            [
                "8080 None false [] false",
                "0 Some(\"x.db\") false [\"tables.example.com\", \"other:9000\"] false",
                "8080 Some(\"postgres://app@127.0.0.1:5432/chat\") true [] true"
            ]
        );
    }

    /// A server that names its app, as `payload_serve::App` does.
    struct Described;

    impl crate::Serve for Described {
        fn serve(self: Box<Self>, _: crate::ServeRequest) -> std::io::Result<()> {
            Ok(())
        }

        fn describe(&self) -> Option<String> {
            Some("Trip planner (pages: trips, itinerary)".to_string())
        }
    }

    fn help(server: Option<crate::Server>, args: &[&str]) -> String {
        let mut out = Vec::new();
        run_with_server(args, Registry::global(), &mut out, server).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_serve_help_names_the_app_served_and_no_other() {
        for args in [&["payload", "serve", "--help"][..], &["payload", "--help"]] {
            let named = help(Some(Box::new(Described)), args);
            assert!(
                named.contains("Serve Trip planner (pages: trips, itinerary) in a browser"),
                "{named}"
            );
            let unnamed = help(None, args);
            assert!(
                unnamed.contains("Serve this build's app in a browser"),
                "{unnamed}"
            );
            for text in [named, unnamed] {
                assert!(
                    !text.contains("table.that") && !text.contains("tables in"),
                    "{text}"
                );
            }
        }
    }

    static KEPT: Mutex<Option<crate::ModelFactory>> = Mutex::new(None);

    fn keeping_server(request: crate::ServeRequest) -> std::io::Result<()> {
        *KEPT.lock().unwrap() = request.model;
        Ok(())
    }

    /// A server on 127.0.0.1 that reads each request, sends the stream's head and then
    /// nothing for 5 s; it counts the requests.
    fn slow_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = count.clone();
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(mut socket) = socket else { return };
                let counted = counted.clone();
                std::thread::spawn(move || {
                    let mut buffer = [0u8; 65536];
                    let _ = socket.read(&mut buffer);
                    counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
                    let _ = socket.write_all(head.as_bytes());
                    std::thread::sleep(std::time::Duration::from_secs(5));
                });
            }
        });
        (url, count)
    }

    #[test]
    fn the_time_limits_reach_the_served_provider() {
        use futures::StreamExt;
        let (url, requests) = slow_server();
        let args = [
            "payload",
            "serve",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            &url,
            "--first-token-timeout",
            "0.4",
            "--idle-timeout",
            "0.2",
            "--deadline",
            "30",
        ];
        run_with_server(
            args,
            Registry::global(),
            &mut Vec::new(),
            Some(Box::new(keeping_server)),
        )
        .unwrap();
        let factory = KEPT.lock().unwrap().take().expect("a model factory");
        let mut model = factory();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let request =
            payload_agent::ModelRequest::new(vec![payload_agent::ModelMessage::user("hi")]);
        let chunks: Vec<_> = runtime.block_on(model.stream(&request).collect());
        let Some(payload_agent::ModelChunk::Error(error)) = chunks.last() else {
            panic!("{chunks:?}");
        };
        assert!(
            error.message.contains("no content for 400 ms"),
            "the served client waits as long as the flag says: {error}"
        );
        assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 1);
        // The limits need a provider to apply to.
        let alone = run_with_server(
            ["payload", "serve", "--deadline", "5"],
            Registry::global(),
            &mut Vec::new(),
            Some(Box::new(keeping_server)),
        );
        assert!(matches!(alone, Err(CliError::Usage(m)) if m.contains("--provider")));
    }

    #[test]
    fn a_provider_without_a_model_and_a_build_without_a_server_are_errors() {
        let registry = Registry::global();
        let mut out = Vec::new();
        let missing = run_with_server(
            ["payload", "serve", "--provider", "openai"],
            registry,
            &mut out,
            Some(Box::new(recording_server)),
        );
        assert!(matches!(missing, Err(CliError::Usage(m)) if m.contains("--model")));
        let none = run(["payload", "serve"], registry, &mut out);
        assert!(matches!(none, Err(CliError::NoServer)));
    }
}
