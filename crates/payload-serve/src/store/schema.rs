//! The chat's tables on each database: conversations, their messages, and the payloads
//! proposed in them, one row per proposal keyed by (conversation, turn, index), with
//! the page context they were proposed on (what an accept handler reads).

/// SQLite's tables.
pub(crate) const SQLITE: &str = "
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    turn INTEGER NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    response TEXT,
    interrupted TEXT
);
CREATE TABLE IF NOT EXISTS payloads (
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    turn INTEGER NOT NULL,
    idx INTEGER NOT NULL DEFAULT 0,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL,
    context TEXT,
    PRIMARY KEY (conversation_id, turn, idx)
);
";

/// A file made when a turn held one proposal (keyed by its turn alone) gains the
/// index, each old proposal being its turn's first (index 0). SQLite cannot change a
/// primary key in place, so the table is copied.
pub(crate) const SQLITE_ADD_INDEX: &str = "
CREATE TABLE payloads_indexed (
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    turn INTEGER NOT NULL,
    idx INTEGER NOT NULL DEFAULT 0,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL,
    context TEXT,
    PRIMARY KEY (conversation_id, turn, idx)
);
INSERT INTO payloads_indexed (conversation_id, turn, idx, type, data, status, context)
    SELECT conversation_id, turn, 0, type, data, status, context FROM payloads;
DROP TABLE payloads;
ALTER TABLE payloads_indexed RENAME TO payloads;
";

/// PostgreSQL's tables: the same columns, `bigint` numbers.
#[cfg(feature = "postgres")]
pub(crate) const POSTGRES: &str = "
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    created TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS messages (
    seq BIGSERIAL PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    turn BIGINT NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    response TEXT,
    interrupted TEXT
);
CREATE TABLE IF NOT EXISTS payloads (
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    turn BIGINT NOT NULL,
    idx BIGINT NOT NULL DEFAULT 0,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL,
    context TEXT,
    PRIMARY KEY (conversation_id, turn, idx)
);
CREATE UNIQUE INDEX IF NOT EXISTS messages_one_user_message_per_turn
    ON messages (conversation_id, turn) WHERE role = 'user';
";

/// One user message per turn of a conversation: the database refuses a second, so a
/// turn number names one message. Made on SQLite only where the rows allow it: a file
/// written before turns were numbered by the database may hold a repeated turn, and
/// new turns are numbered past it anyway.
pub(crate) const ONE_USER_MESSAGE_PER_TURN: &str = "
CREATE UNIQUE INDEX IF NOT EXISTS messages_one_user_message_per_turn
    ON messages (conversation_id, turn) WHERE role = 'user'";

/// The SQL an app's tables are made with, for every database or for one.
#[derive(Debug, Clone, Default)]
pub struct AppSchema {
    batches: Vec<(Option<super::Backend>, String)>,
}

impl AppSchema {
    /// No tables of the app's own.
    pub fn new() -> AppSchema {
        AppSchema::default()
    }

    /// Adds `sql`, run on every database.
    pub fn all(mut self, sql: impl Into<String>) -> AppSchema {
        self.batches.push((None, sql.into()));
        self
    }

    /// Adds `sql`, run on `backend` only (where the two databases' SQL differs, as an
    /// auto-numbered key does).
    pub fn only(mut self, backend: super::Backend, sql: impl Into<String>) -> AppSchema {
        self.batches.push((Some(backend), sql.into()));
        self
    }

    /// The batches `backend` runs, in the order given.
    pub fn for_backend(&self, backend: super::Backend) -> impl Iterator<Item = &str> {
        self.batches
            .iter()
            .filter(move |(only, _)| only.is_none_or(|b| b == backend))
            .map(|(_, sql)| sql.as_str())
    }
}

impl<'a> From<&'a [&'a str]> for AppSchema {
    fn from(batches: &'a [&'a str]) -> AppSchema {
        batches.iter().fold(AppSchema::new(), |s, b| s.all(*b))
    }
}

impl<const N: usize> From<&[&str; N]> for AppSchema {
    fn from(batches: &[&str; N]) -> AppSchema {
        batches.iter().fold(AppSchema::new(), |s, b| s.all(*b))
    }
}
