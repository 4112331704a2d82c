//! # payload-serve
//!
//! The table.that chat app in a browser, over the chat architecture's HTTP contract: a
//! tables list and a table view backed by a real SQLite database, and a chat tray
//! whose answers stream in as Server-Sent Events, with payload cards the user accepts
//! or dismisses, suggestion chips and the page's action buttons.
//!
//! - `POST /api/chat` runs one agent turn ([`payload_agent`]) with the page's system
//!   prompt ([`payload_prompt`]), carrying the conversation's payload manifest, and
//!   streams its events (`status`, `text_delta`, `payload_start`, ..., `complete`).
//! - `GET /api/tables`, `GET /api/tables/{id}`, `GET /api/tables/{id}/csv` (the
//!   `export_csv` action's download) and `GET /api/conversations/{id}` read.
//! - `POST /api/payloads/{conversation}/{turn}/accept` applies a proposal for real:
//!   a SCHEMA_PROPOSAL creates or alters a table, a DATA_PROPOSAL changes rows (only
//!   the ones the user left ticked); `.../dismiss` records the refusal.
//! - `GET /` is the page, compiled into the binary ([`assets`]).
//!
//! Every request passes the [`security`] layers (the `Host` must be the address served,
//! changes must be same-origin JSON, every response carries the anti-framing headers;
//! they know nothing of table.that), and every connection the [`Timeouts`] (head,
//! body and idle time). Database work runs on tokio's blocking pool; a decision is one
//! compare-and-set transaction ([`Db::decide`]).
//!
//! Without a key the model is [`ReplayModel`], which plays table.that's recorded
//! conversation; any [`payload_agent::Model`] can be put in its place through
//! [`ServeOptions::models`].

#![forbid(unsafe_code)]

mod apply;
pub mod assets;
mod body_deadline;
mod chat;
mod column_ids;
mod column_order;
mod db;
mod decide;
mod error;
mod ids;
mod listen;
mod replay;
mod routes;
pub mod security;
mod sse;
mod state;
mod tables;

pub use apply::{Applied, ApplyError, Skipped};
pub use db::{Db, StoredMessage, StoredPayload};
pub use decide::{DecideError, Decided, Decision};
pub use listen::Timeouts;
pub use replay::{DEFAULT_CHUNK_CHARS, DEFAULT_DELAY, ReplayModel};
pub use security::SecurityPolicy;
pub use state::{ModelSource, TurnInfo};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use body_deadline::BodyBounds;
use state::AppState;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::net::TcpListener;

/// The largest request body accepted, by default; larger ones get 413.
pub const DEFAULT_BODY_LIMIT: usize = 256 * 1024;

/// How long one chat turn may take, by default, from the request to its last event:
/// model calls, tools and re-asks together. A turn holds its conversation (a second
/// message waits), so no turn may hold it for ever, whatever the model does.
pub const DEFAULT_TURN_DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);

/// How the server is set up.
#[derive(Clone)]
pub struct ServeOptions {
    /// The database file; in memory when `None`.
    pub db: Option<PathBuf>,
    /// Where each turn's model comes from.
    pub models: ModelSource,
    /// The largest request body accepted.
    pub body_limit: usize,
    /// Host names and the page's Content-Security-Policy ([`security`]).
    pub security: SecurityPolicy,
    /// How long a client may take to send a request, and how many may be connected.
    pub timeouts: Timeouts,
    /// How long one chat turn may take in all ([`DEFAULT_TURN_DEADLINE`]); past it the
    /// turn ends with an `error` event and is recorded as interrupted.
    pub turn_deadline: std::time::Duration,
}

impl Default for ServeOptions {
    /// In memory, with the replay model.
    fn default() -> Self {
        ServeOptions {
            db: None,
            models: replay_models(),
            body_limit: DEFAULT_BODY_LIMIT,
            security: SecurityPolicy::default(),
            timeouts: Timeouts::default(),
            turn_deadline: DEFAULT_TURN_DEADLINE,
        }
    }
}

/// The replay model for every turn.
pub fn replay_models() -> ModelSource {
    Arc::new(|turn: &TurnInfo| Box::new(ReplayModel::for_turn(turn.turn)))
}

/// The app: its state and its routes.
#[derive(Clone)]
pub struct App {
    state: Arc<AppState>,
    body_limit: usize,
    security: SecurityPolicy,
    timeouts: Timeouts,
}

impl App {
    /// Opens the database and sets the app up.
    pub fn new(options: ServeOptions) -> rusqlite::Result<App> {
        let db = Db::open(options.db.as_deref())?;
        Ok(App {
            state: Arc::new(AppState::new(db, options.models, options.turn_deadline)),
            body_limit: options.body_limit,
            security: options.security,
            timeouts: options.timeouts,
        })
    }

    /// The routes, behind the [`security`] layers for a server on `served` and the
    /// body's bounds.
    pub fn router(&self, served: SocketAddr) -> Router {
        let routes = Router::new()
            .route("/", get(assets::index))
            .route("/assets/{name}", get(assets::asset))
            .route("/api/chat", post(chat::chat))
            .route("/api/tables", get(routes::list_tables))
            .route("/api/tables/{id}", get(routes::table))
            .route("/api/tables/{id}/csv", get(routes::table_csv))
            .route("/api/conversations/{id}", get(routes::conversation))
            .route(
                "/api/payloads/{conversation}/{turn}/{decision}",
                post(routes::decide),
            )
            .layer(DefaultBodyLimit::max(self.body_limit))
            .layer(axum::middleware::from_fn_with_state(
                BodyBounds {
                    deadline: self.timeouts.body_read,
                    limit: self.body_limit,
                },
                body_deadline::read_within,
            ))
            .with_state(self.state.clone());
        security::protect(routes, &self.security, served)
    }

    /// The database (what a test reads, or holds to see who waits for it).
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
        listen::serve(listener, router, self.timeouts).await
    }
}

/// Runs the server on `127.0.0.1:port` (0 picks a free port) until Ctrl-C, printing the
/// URL to open.
pub fn run(port: u16, options: ServeOptions) -> std::io::Result<()> {
    let app = App::new(options).map_err(std::io::Error::other)?;
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
        let address = listener.local_addr()?;
        println!("payload serve: open http://{address}/ (Ctrl-C stops it)");
        tokio::select! {
            served = app.serve(listener) => served,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}
