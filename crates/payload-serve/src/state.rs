//! What every handler shares, taken from axum's state (never from a global): the
//! registry, the database, where models come from, the app's accept handlers and
//! context builder, and the count of turns still running (what the fault tests read to
//! see a task freed).

use crate::assets::Assets;
use crate::db::Db;
use crate::error::ApiError;
use crate::handlers::Handlers;
use crate::manifest::AppManifest;
use futures::future::BoxFuture;
use payload_agent::Model;
use payload_registry::Registry;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What a model is chosen by: the turn it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnInfo {
    /// The conversation.
    pub conversation_id: String,
    /// Which turn of it, from 0 (how many user messages came before).
    pub turn: usize,
    /// The page the user is on.
    pub page: String,
}

/// Makes the model of each turn: the replay model by default; a real provider's client
/// is one of these too.
pub type ModelSource = Arc<dyn Fn(&TurnInfo) -> Box<dyn Model> + Send + Sync>;

/// Builds what the model is told about the page (its CURRENT CONTEXT) from the database,
/// the page's name and the client's context, reading the app's own tables (a trip
/// planner adds the user's saved trips and the stops of the one open).
pub type ContextSource =
    Arc<dyn Fn(Db, String, Value) -> BoxFuture<'static, Result<Value, ApiError>> + Send + Sync>;

/// The state every route of the app shares (an app's own routes get it too).
pub type Shared = Arc<AppState>;

/// The server's shared state.
pub struct AppState {
    /// The pages, their payload types and actions.
    pub registry: &'static Registry,
    /// The database.
    pub db: Db,
    /// Where each turn's model comes from.
    pub models: ModelSource,
    /// What the app does when a payload is accepted.
    pub handlers: Handlers,
    /// The page context a turn's prompt is built from.
    pub context: ContextSource,
    /// What the page is told about the app (`GET /api/app`).
    pub manifest: AppManifest,
    /// The page and its files.
    pub assets: Assets,
    /// How long one turn may take in all.
    pub turn_deadline: std::time::Duration,
    /// How much of the conversation one turn's request carries.
    pub history_budget: payload_agent::HistoryBudget,
    /// Each answer is read as if it began with `<think>`
    /// ([`crate::ServeOptions::reasoning_opened_by_prompt`]).
    pub reasoning_opened_by_prompt: bool,
    /// Traces record the turn's messages ([`crate::ServeOptions::capture_content`]).
    pub capture_content: bool,
    /// Turns whose task is still running.
    pub live_turns: AtomicUsize,
    /// The conversations with a turn running: a second message to one of them waits
    /// its turn (409), as two answers at once would both be turn N.
    answering: Mutex<HashSet<String>>,
}

impl AppState {
    /// The state of an app over `registry` and `db`.
    pub(crate) fn new(parts: StateParts, db: Db) -> AppState {
        AppState {
            registry: parts.registry,
            db,
            models: parts.models,
            handlers: parts.handlers,
            context: parts.context,
            manifest: parts.manifest,
            assets: parts.assets,
            turn_deadline: parts.turn_deadline,
            history_budget: parts.history_budget,
            reasoning_opened_by_prompt: parts.reasoning_opened_by_prompt,
            capture_content: parts.capture_content,
            live_turns: AtomicUsize::new(0),
            answering: Mutex::new(HashSet::new()),
        }
    }
}

/// What an [`AppState`] is made of, but the database.
pub(crate) struct StateParts {
    pub registry: &'static Registry,
    pub models: ModelSource,
    pub handlers: Handlers,
    pub context: ContextSource,
    pub manifest: AppManifest,
    pub assets: Assets,
    pub turn_deadline: std::time::Duration,
    pub history_budget: payload_agent::HistoryBudget,
    pub reasoning_opened_by_prompt: bool,
    pub capture_content: bool,
}

/// A conversation's running turn: counted as live, and the conversation held, until
/// it is dropped, however the task ends (finished, client gone, panicked).
pub struct LiveTurn {
    state: Arc<AppState>,
    conversation_id: String,
}

impl LiveTurn {
    /// Holds the conversation for a turn; `None` when it already has one running.
    pub fn start(state: Arc<AppState>, conversation_id: &str) -> Option<LiveTurn> {
        let fresh = lock(&state.answering).insert(conversation_id.to_string());
        if !fresh {
            return None;
        }
        state.live_turns.fetch_add(1, Ordering::SeqCst);
        Some(LiveTurn {
            state,
            conversation_id: conversation_id.to_string(),
        })
    }
}

impl Drop for LiveTurn {
    fn drop(&mut self) {
        lock(&self.state.answering).remove(&self.conversation_id);
        self.state.live_turns.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The set, even after a panic elsewhere while it was held (a set of ids cannot be left
/// half-changed).
fn lock(set: &Mutex<HashSet<String>>) -> std::sync::MutexGuard<'_, HashSet<String>> {
    set.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
