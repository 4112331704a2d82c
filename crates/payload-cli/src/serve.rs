//! `payload serve`: the command line of a web app that lives in another crate. The
//! server (axum, SQLite, the page) is an app's, not the command's, so `payload-cli`
//! does not link it: a binary that has one passes it to
//! [`main_with_server`](crate::main_with_server), and this module hands it what the
//! user asked for, the model already chosen.

use crate::args::Provider;
use payload_agent::Model;
use std::path::PathBuf;
use std::sync::Arc;

/// Makes the model of one chat turn (a fresh client each time, so turns share nothing).
pub type ModelFactory = Arc<dyn Fn() -> Box<dyn Model> + Send + Sync>;

/// What `payload serve` was asked for.
#[derive(Clone)]
pub struct ServeRequest {
    /// The port on 127.0.0.1 (0 picks a free one).
    pub port: u16,
    /// The database file; in memory when `None`.
    pub db: Option<PathBuf>,
    /// The real model asked for with `--provider`; `None`: the app's offline model.
    pub model: Option<ModelFactory>,
    /// Host names the server answers for besides its own address (`--allow-host`).
    pub allow_hosts: Vec<String>,
}

impl std::fmt::Debug for ServeRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeRequest")
            .field("port", &self.port)
            .field("db", &self.db)
            .field("model", &self.model.as_ref().map(|_| "provider"))
            .field("allow_hosts", &self.allow_hosts)
            .finish()
    }
}

/// Runs the app until it is stopped.
pub type Server = fn(ServeRequest) -> std::io::Result<()>;

/// A factory of the provider's clients for `model`.
pub(crate) fn factory(
    provider: Provider,
    model: String,
    base_url: Option<String>,
    max_tokens: Option<u32>,
) -> ModelFactory {
    Arc::new(move || crate::chat::client(provider, &model, base_url.as_deref(), max_tokens))
}

#[cfg(test)]
mod tests {
    use crate::{CliError, run, run_with_server};
    use payload_registry::Registry;
    use std::sync::Mutex;

    static ASKED: Mutex<Vec<String>> = Mutex::new(Vec::new());

    fn recording_server(request: crate::ServeRequest) -> std::io::Result<()> {
        ASKED.lock().unwrap().push(format!(
            "{} {:?} {} {:?}",
            request.port,
            request.db,
            request.model.is_some(),
            request.allow_hosts
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
            ],
        ] {
            run_with_server(args, registry, &mut out, Some(recording_server)).unwrap();
        }
        assert_eq!(
            *ASKED.lock().unwrap(),
            [
                "8080 None false []",
                "0 Some(\"x.db\") false [\"tables.example.com\", \"other:9000\"]",
                "8080 None true []"
            ]
        );
    }

    #[test]
    fn a_provider_without_a_model_and_a_build_without_a_server_are_errors() {
        let registry = Registry::global();
        let mut out = Vec::new();
        let missing = run_with_server(
            ["payload", "serve", "--provider", "openai"],
            registry,
            &mut out,
            Some(recording_server),
        );
        assert!(matches!(missing, Err(CliError::Usage(m)) if m.contains("--model")));
        let none = run(["payload", "serve"], registry, &mut out);
        assert!(matches!(none, Err(CliError::NoServer)));
    }
}
