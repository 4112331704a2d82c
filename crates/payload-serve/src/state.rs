//! What every handler shares: the database, where models come from, and the count of
//! turns still running (what the fault tests read to see a task freed).

use crate::db::Db;
use payload_agent::Model;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

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
    /// Turns whose task is still running.
    pub live_turns: AtomicUsize,
    /// Numbers new conversation ids.
    next_conversation: AtomicU64,
}

impl AppState {
    /// The state over `db`, with models from `models`.
    pub fn new(db: Db, models: ModelSource) -> AppState {
        AppState {
            db,
            models,
            live_turns: AtomicUsize::new(0),
            next_conversation: AtomicU64::new(1),
        }
    }

    /// A conversation id no other conversation of this database has: the time (so a
    /// restarted server does not reuse one) and a counter (so two at once differ).
    pub fn new_conversation_id(&self) -> String {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = self.next_conversation.fetch_add(1, Ordering::Relaxed);
        format!("c{nanos:x}-{n}")
    }
}

/// Counts a turn's task as live until it is dropped, however the task ends (finished,
/// client gone, panicked).
pub struct LiveTurn(Arc<AppState>);

impl LiveTurn {
    /// Counts one more live turn.
    pub fn start(state: Arc<AppState>) -> LiveTurn {
        state.live_turns.fetch_add(1, Ordering::SeqCst);
        LiveTurn(state)
    }
}

impl Drop for LiveTurn {
    fn drop(&mut self) {
        self.0.live_turns.fetch_sub(1, Ordering::SeqCst);
    }
}
