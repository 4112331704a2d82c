//! What every handler shares: the database, where models come from, and the count of
//! turns still running (what the fault tests read to see a task freed).

use crate::db::Db;
use crate::error::ApiError;
use payload_agent::Model;
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

/// The server's shared state.
pub struct AppState {
    /// The database.
    pub db: Db,
    /// Where each turn's model comes from.
    pub models: ModelSource,
    /// How long one turn may take in all.
    pub turn_deadline: std::time::Duration,
    /// Turns whose task is still running.
    pub live_turns: AtomicUsize,
    /// The conversations with a turn running: a second message to one of them waits
    /// its turn (409), as two answers at once would both be turn N.
    answering: Mutex<HashSet<String>>,
}

impl AppState {
    /// The state over `db`, with models from `models` and turns bounded by
    /// `turn_deadline`.
    pub fn new(db: Db, models: ModelSource, turn_deadline: std::time::Duration) -> AppState {
        AppState {
            db,
            models,
            turn_deadline,
            live_turns: AtomicUsize::new(0),
            answering: Mutex::new(HashSet::new()),
        }
    }

    /// Runs `work` on the database on a thread for blocking work, so the async workers
    /// go on serving what needs no database (the page, its assets, streams) however
    /// long SQLite takes.
    pub async fn with_db<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Db) -> Result<T, ApiError> + Send + 'static,
    {
        let state = self.clone();
        tokio::task::spawn_blocking(move || work(&state.db))
            .await
            .map_err(|e| ApiError::internal(format!("the database task failed: {e}")))?
    }
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
