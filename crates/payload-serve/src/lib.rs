//! # payload-serve
//!
//! A chat server for any app's pages: an app names its registry and model, says what
//! accepting each payload type does, and gets the chat architecture's HTTP contract, an
//! AG-UI endpoint and a page with a chat tray whose answers stream in, payload cards
//! (its own, or a generic card built from the type's JSON Schema), suggestion chips and
//! action buttons:
//!
//! ```no_run,standalone_crate
//! use payload_core::LlmPayload;
//! use payload_registry::{Page, Registry, register_page};
//! use payload_serve::{Accepted, ApiError, App, RecordedAnswer, Tx};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// A recipe the user reviews and saves.
//! #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
//! #[payload(marker = "RECIPE_PROPOSAL", register)]
//! struct RecipeProposal {
//!     /// The recipe's title.
//!     title: String,
//! }
//!
//! register_page!(Page::new("cookbook").payloads(&[RecipeProposal::TYPE]));
//!
//! /// Accepting a recipe saves it, in the transaction that records the decision: both
//! /// are kept or neither is, on SQLite or PostgreSQL alike.
//! async fn save(tx: Tx, accepted: Accepted<RecipeProposal>) -> Result<serde_json::Value, ApiError> {
//!     let title = &accepted.payload.title;
//!     tx.execute("INSERT INTO saved (title) VALUES ($1)", &[title]).await?;
//!     Ok(serde_json::json!({"saved": title}))
//! }
//!
//! fn main() -> std::io::Result<()> {
//!     let recorded = "Try this.\n\nRECIPE_PROPOSAL: {\"title\": \"Shakshuka\"}";
//!     let app = App::new(Registry::global())
//!         .title("Recipes")
//!         .schema("CREATE TABLE saved (title TEXT NOT NULL)") // the app's own tables
//!         .replay([RecordedAnswer { page: "cookbook", text: recorded, cut: false }])
//!         .on_accept(save)
//!         // SQLite in this file; `postgres://...` with the `postgres` feature.
//!         .database(Some("recipes.db"));
//!     // Or, with the `cli` feature, `payload_cli::main_with_server(app)`: the app is
//!     // then served as a `serve` command asks, as examples/recipes-web does.
//!     app.serve_on(8080)
//! }
//! ```
//!
//! - `POST /api/chat` runs one agent turn ([`payload_agent`]) in its own task with the
//!   page's system prompt ([`payload_prompt`]), carrying the conversation's payload
//!   manifest, and streams its events (`status`, `text_delta`, `payload_start`, ...,
//!   `complete`) as Server-Sent Events.
//! - `POST /api/agui` is the same turn over AG-UI 1.x ([`agui`], `docs/agui.md`).
//! - `POST /api/ui-message-stream` is the same turn over the AI SDK's UI message
//!   stream, what `useChat` reads ([`payload_agui::ui_message`], `docs/ai-sdk.md`).
//! - `POST /api/payloads/{conversation}/{turn}/accept?index=N` runs the app's handler
//!   for the type of that answer's payload `N` (0 when absent; [`App::on_accept`]) in
//!   the transaction that records the decision; `.../dismiss` records the refusal. `GET /api/conversations/{id}` reads a
//!   conversation back, `GET /api/app` tells the page the app's pages, starters and
//!   types ([`AppManifest`]).
//! - `GET /` is the page, compiled into the binary with the app's files ([`assets`]).
//!
//! Every request passes the [`security`] layers (the `Host` must be the address served,
//! changes must be same-origin JSON, every response carries the anti-framing headers)
//! and every connection the [`Timeouts`]; errors, extractor rejections included, answer
//! `{"error": ...}` ([`ApiError`]). The chat is kept in SQLite (a file, or memory) or,
//! with the `postgres` feature, PostgreSQL ([`Storage`], [`App::database`]); a decision is
//! one compare-and-set transaction ([`Db::decide`]) that applies its proposal once,
//! across processes.

#![forbid(unsafe_code)]

pub mod agui;
pub mod assets;
mod body_deadline;
mod chat;
#[cfg(feature = "cli")]
mod cli;
mod connections;
mod db;
mod decide;
mod error;
mod extract;
mod handlers;
mod ids;
mod kept;
mod listen;
mod manifest;
mod proposal;
mod replay;
mod routes;
pub mod security;
mod sse;
mod state;
mod store;
mod ui_message;

pub use db::{Db, StoredMessage, StoredPayload};
/// The SQLite library the server is built with, for an app whose own tables are
/// SQLite's ([`Tx::with_sqlite`], [`Db::with_sqlite`]): the app needs no rusqlite of its
/// own to match.
pub use rusqlite;
#[cfg(feature = "postgres")]
pub use store::PgStorage;
pub use store::{
    AppSchema, Backend, Database, FromColumn, Param, Row, SqlValue, SqliteStorage, SqliteWork,
    Storage, StoreError, Tx, TxBackend, TxMode, without_password,
};

use assets::Asset;
pub use decide::{DecideError, Decided, Decision, ProposalKey};
pub use error::{ApiError, ErrorBody};
pub use extract::{Json, Path};
pub use handlers::{Accepted, Handlers};
pub use listen::Timeouts;
pub use manifest::{ActionManifest, AppManifest, PageManifest, TypeManifest};
pub use payload_agent::HistoryBudget;
pub use replay::{DEFAULT_CHUNK_CHARS, DEFAULT_DELAY, RecordedAnswer, ReplayModel};
use security::SecurityPolicy;
pub use state::{AppState, ContextSource, ModelSource, Shared, TurnInfo};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use body_deadline::BodyBounds;
use payload_agent::Model;
use payload_core::LlmPayload;
use payload_registry::Registry;
use serde::de::DeserializeOwned;
use serde_json::Value;
use state::StateParts;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::net::TcpListener;

/// The largest request body accepted, by default; larger ones get 413.
pub const DEFAULT_BODY_LIMIT: usize = 256 * 1024;

/// How long one chat turn may take, by default, from the request to its last event:
/// model calls, tools and re-asks together. A turn holds its conversation (a second
/// message waits), so no turn may hold it for ever, whatever the model does.
pub const DEFAULT_TURN_DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);

/// How the server is set up, beyond what the app is.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where the chat is kept ([`Database::parse`]); SQLite in memory by default.
    pub database: Database,
    /// The largest request body accepted.
    pub body_limit: usize,
    /// Host names and the page's Content-Security-Policy ([`security`]).
    pub security: SecurityPolicy,
    /// How long a client may take to send a request, and how many may be connected.
    pub timeouts: Timeouts,
    /// How long one chat turn may take in all ([`DEFAULT_TURN_DEADLINE`]); past it the
    /// turn ends with an `error` event and is recorded as interrupted.
    pub turn_deadline: std::time::Duration,
    /// How much of the conversation one turn's request carries: the oldest turns are
    /// left out first, and with them their decided payloads from the system prompt's
    /// list; the page's context and every payload still awaiting a decision are always
    /// sent ([`HistoryBudget`], 64,000 bytes by default).
    pub history_budget: HistoryBudget,
    /// The model's chat template ends the prompt with `<think>` (DeepSeek-R1, Qwen3,
    /// QwQ behind a server that leaves the reasoning in the text): each answer is read
    /// as if it began with `<think>`, so the draft before `</think>` is reasoning and
    /// never reaches the page (docs/spec.md §9.1).
    pub reasoning_opened_by_prompt: bool,
    /// Traces record what the user and the model said (the GenAI conventions' opt-in,
    /// docs/observability.md); off by default: spans then carry no message text.
    pub capture_content: bool,
}

impl Default for ServeOptions {
    /// In memory, with the default limits.
    fn default() -> Self {
        ServeOptions {
            database: Database::Memory,
            body_limit: DEFAULT_BODY_LIMIT,
            security: SecurityPolicy::default(),
            timeouts: Timeouts::default(),
            turn_deadline: DEFAULT_TURN_DEADLINE,
            history_budget: HistoryBudget::default(),
            reasoning_opened_by_prompt: false,
            capture_content: false,
        }
    }
}

/// Why an app could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Neither [`App::model`] nor [`App::replay`] was given.
    #[error("the app has no model: give it App::model or App::replay")]
    NoModel,
    /// A page given to [`App::pages`] is not registered.
    #[error("the app serves no registered page '{0}'")]
    UnknownPage(String),
    /// The database could not be opened or set up.
    #[error("the database could not be opened")]
    Db(#[source] StoreError),
}

/// An app: its registry and pages, its model, what accepting each payload type does,
/// its own routes, tables and page files. [`App::build`] makes the running
/// [`Service`]; [`App::serve_on`] runs it (a binary with the `payload` command passes
/// the app to `payload_cli::main_with_server`: with the `cli` feature an `App` is a
/// `payload_cli::Serve` that applies `payload serve`'s request to itself).
pub struct App {
    registry: &'static Registry,
    title: String,
    pages: Vec<&'static str>,
    models: Option<ModelSource>,
    recorded: bool,
    handlers: Handlers,
    context: ContextSource,
    routes: Router<Shared>,
    files: Vec<Asset>,
    schema: AppSchema,
    options: ServeOptions,
    /// Why the location given to [`App::database`] cannot be read (the build fails).
    bad_database: Option<StoreError>,
}

impl App {
    /// An app serving every page of `registry`, with no model yet, no handler (every
    /// payload is only shown), the client's context as each page's context, and the
    /// default [`ServeOptions`].
    pub fn new(registry: &'static Registry) -> App {
        App {
            registry,
            title: "payload".to_string(),
            pages: Vec::new(),
            models: None,
            recorded: false,
            handlers: Handlers::new(),
            context: Arc::new(|_, _, client| Box::pin(async move { Ok(client) })),
            routes: Router::new(),
            files: Vec::new(),
            schema: AppSchema::new(),
            options: ServeOptions::default(),
            bad_database: None,
        }
    }

    /// The name in the page's title bar.
    pub fn title(mut self, title: impl Into<String>) -> App {
        self.title = title.into();
        self
    }

    /// Serves only these pages, the first being where the chat starts (all registered
    /// pages by default).
    pub fn pages(mut self, pages: &[&'static str]) -> App {
        self.pages = pages.to_vec();
        self
    }

    /// Makes each turn's model with `make` (a real provider's client, or a test's).
    pub fn model<F>(mut self, make: F) -> App
    where
        F: Fn(&TurnInfo) -> Box<dyn Model> + Send + Sync + 'static,
    {
        self.models = Some(Arc::new(make));
        self.recorded = false;
        self
    }

    /// Answers with `recording`, one answer per user message in order ([`ReplayModel`]);
    /// the page says its answers are recorded.
    pub fn replay(mut self, recording: impl IntoIterator<Item = RecordedAnswer>) -> App {
        let recording: Arc<[RecordedAnswer]> = recording.into_iter().collect();
        let fallback = RecordedAnswer {
            page: "",
            text: "There is no recorded answer.",
            cut: false,
        };
        self.models = Some(Arc::new(move |turn: &TurnInfo| -> Box<dyn Model> {
            Box::new(
                ReplayModel::for_turn(&recording, turn.turn)
                    .unwrap_or_else(|| ReplayModel::new(fallback)),
            )
        }));
        self.recorded = true;
        self
    }

    /// Runs `handler` when a payload of type `T` is accepted, inside the transaction
    /// that records the decision ([`Handlers::on_accept`]); its cards then offer Accept
    /// and Dismiss. The handler is an `async fn(Tx, Accepted<T>) -> Result<Value,
    /// ApiError>` (or such a closure): it writes through the [`Tx`], so it runs on
    /// SQLite or PostgreSQL alike.
    pub fn on_accept<T, F, Fut>(mut self, handler: F) -> App
    where
        T: LlmPayload + DeserializeOwned + Send + 'static,
        F: Fn(Tx, Accepted<T>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ApiError>> + Send + 'static,
    {
        self.handlers = self.handlers.on_accept(handler);
        self
    }

    /// Builds each turn's page context (what the prompt's CURRENT CONTEXT is made from)
    /// from the database, the page's name and the client's context, reading the app's
    /// tables: an `async fn(Db, String, Value) -> Result<Value, ApiError>`.
    pub fn context<F, Fut>(mut self, build: F) -> App
    where
        F: Fn(Db, String, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ApiError>> + Send + 'static,
    {
        self.context = Arc::new(move |db, page, client| Box::pin(build(db, page, client)));
        self
    }

    /// Adds the app's own routes (they get the shared state, and pass the same
    /// security layers and body bounds).
    pub fn routes(mut self, routes: Router<Shared>) -> App {
        self.routes = self.routes.merge(routes);
        self
    }

    /// Adds a file to the page: a script ([`Asset::script`]) runs after the chat's, a
    /// style sheet after the page's.
    pub fn asset(mut self, asset: Asset) -> App {
        self.files.push(asset);
        self
    }

    /// Adds SQL the database runs when it opens (the app's tables, written
    /// `CREATE TABLE IF NOT EXISTS`), on whichever database it is.
    pub fn schema(mut self, sql: &'static str) -> App {
        self.schema = self.schema.all(sql);
        self
    }

    /// Adds SQL run only on `backend`'s database, where the two differ (an
    /// auto-numbered key is `INTEGER PRIMARY KEY AUTOINCREMENT` on SQLite and
    /// `BIGSERIAL PRIMARY KEY` on PostgreSQL).
    pub fn schema_for(mut self, backend: Backend, sql: &'static str) -> App {
        self.schema = self.schema.only(backend, sql);
        self
    }

    /// Sets the database file, limits, hosts and timeouts.
    pub fn options(mut self, options: ServeOptions) -> App {
        self.options = options;
        self
    }

    /// Keeps the chat at `location`, in place of the options': a SQLite file's path
    /// or `sqlite:PATH`, or `postgres://user:password@host:port/name` (with the
    /// `postgres` feature); SQLite in memory when `None` ([`Database::parse`]). A
    /// location that cannot be read fails [`App::build`], saying why.
    pub fn database(mut self, location: Option<&str>) -> App {
        match location.map(Database::parse).transpose() {
            Ok(database) => {
                self.options.database = database.unwrap_or_default();
                self.bad_database = None;
            }
            Err(e) => self.bad_database = Some(e),
        }
        self
    }

    /// Answers for these host names besides the served address
    /// ([`SecurityPolicy::allowed_hosts`]), in place of the options'.
    pub fn allowed_hosts(mut self, hosts: Vec<String>) -> App {
        self.options.security.allowed_hosts = hosts;
        self
    }

    /// Bounds one whole chat turn by `deadline` ([`ServeOptions::turn_deadline`]).
    pub fn turn_deadline(mut self, deadline: std::time::Duration) -> App {
        self.options.turn_deadline = deadline;
        self
    }

    /// Reads each answer as if it began with `<think>`
    /// ([`ServeOptions::reasoning_opened_by_prompt`]) when `opened`, as the options say
    /// otherwise.
    pub fn reasoning_opened_by_prompt(mut self, opened: bool) -> App {
        self.options.reasoning_opened_by_prompt |= opened;
        self
    }

    /// Lets traces record what the user and the model said
    /// ([`ServeOptions::capture_content`]) when `capture`, as the options say otherwise.
    pub fn capture_content(mut self, capture: bool) -> App {
        self.options.capture_content |= capture;
        self
    }

    /// The options set so far.
    pub fn serve_options(&self) -> &ServeOptions {
        &self.options
    }

    /// Opens the database and makes the running service.
    pub fn build(self) -> Result<Service, BuildError> {
        let models = self.models.ok_or(BuildError::NoModel)?;
        if let Some(unknown) = self.pages.iter().find(|p| self.registry.page(p).is_err()) {
            return Err(BuildError::UnknownPage(unknown.to_string()));
        }
        if let Some(bad) = self.bad_database {
            return Err(BuildError::Db(bad));
        }
        let db = Db::connect(&self.options.database, self.schema).map_err(BuildError::Db)?;
        let manifest = AppManifest::new(
            &self.title,
            self.registry,
            &self.pages,
            &self.handlers,
            self.recorded,
        );
        let parts = StateParts {
            registry: self.registry,
            models,
            handlers: self.handlers,
            context: self.context,
            manifest,
            assets: assets::Assets::new(&self.title, self.files),
            turn_deadline: self.options.turn_deadline,
            history_budget: self.options.history_budget,
            reasoning_opened_by_prompt: self.options.reasoning_opened_by_prompt,
            capture_content: self.options.capture_content,
        };
        Ok(Service {
            state: Arc::new(AppState::new(parts, db)),
            routes: self.routes,
            options: self.options,
        })
    }

    /// The app in a few words, as its start-up line and a command's help name it: its
    /// title and the pages it serves (`Recipes (pages: cookbook, pantry)`).
    pub fn describe(&self) -> String {
        let pages: Vec<&str> = if self.pages.is_empty() {
            self.registry.pages().map(|info| info.page.name).collect()
        } else {
            self.pages.clone()
        };
        format!("{} (pages: {})", self.title, pages.join(", "))
    }

    /// Runs the app on `127.0.0.1:port` (0 picks a free port) until Ctrl-C, printing
    /// the app's name and the URL to open.
    pub fn serve_on(self, port: u16) -> std::io::Result<()> {
        let described = self.describe();
        let service = self.build().map_err(std::io::Error::other)?;
        let runtime = tokio::runtime::Runtime::new()?;
        runtime.block_on(async move {
            // The database is reached before the address is printed: a server that
            // says it is ready can keep what it is sent.
            service
                .db()
                .ready()
                .await
                .map_err(|e| std::io::Error::other(BuildError::Db(e)))?;
            let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
            let address = listener.local_addr()?;
            println!("{described}: open http://{address}/ (Ctrl-C stops it)");
            tokio::select! {
                served = service.serve(listener) => served,
                _ = tokio::signal::ctrl_c() => Ok(()),
            }
        })
    }
}

/// A built app: its state and its routes.
#[derive(Clone)]
pub struct Service {
    state: Shared,
    routes: Router<Shared>,
    options: ServeOptions,
}

impl Service {
    /// The routes, behind request tracing, the [`security`] layers for a server on
    /// `served` and the body's bounds.
    pub fn router(&self, served: SocketAddr) -> Router {
        let routes = Router::new()
            .route("/", get(assets::index))
            .route("/assets/{name}", get(assets::asset))
            .route("/api/app", get(routes::app))
            .route("/api/chat", post(chat::chat))
            .route("/api/agui", post(agui::run))
            .route("/api/ui-message-stream", post(ui_message::run))
            .route("/api/conversations/{id}", get(routes::conversation))
            .route(
                "/api/payloads/{conversation}/{turn}/{decision}",
                post(routes::decide),
            )
            .merge(self.routes.clone())
            .fallback(|| async { ApiError::not_found("no such page") })
            .method_not_allowed_fallback(|| async {
                ApiError::new(
                    axum::http::StatusCode::METHOD_NOT_ALLOWED,
                    "that method is not allowed here",
                )
            })
            .layer(DefaultBodyLimit::max(self.options.body_limit))
            .layer(axum::middleware::from_fn_with_state(
                BodyBounds {
                    deadline: self.options.timeouts.body_read,
                    limit: self.options.body_limit,
                },
                body_deadline::read_within,
            ))
            .with_state(self.state.clone());
        let protected = security::protect(routes, &self.options.security, served);
        protected.layer(tower_http::trace::TraceLayer::new_for_http())
    }

    /// The shared state (the database, what a test reads or holds).
    pub fn state(&self) -> &Shared {
        &self.state
    }

    /// The database.
    pub fn db(&self) -> &Db {
        &self.state.db
    }

    /// How many turns' tasks are still running (a turn whose client went away ends).
    pub fn live_turns(&self) -> usize {
        self.state.live_turns.load(Ordering::SeqCst)
    }

    /// Serves on `listener` until the future is dropped or the process stops, with
    /// [`Timeouts`] bounding every connection.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        let router = self.router(listener.local_addr()?);
        listen::serve(listener, router, self.options.timeouts).await
    }
}
