//! The chat's tables on each database: conversations, their messages, and the payloads
//! proposed in them, one row per proposal keyed by (conversation, turn, index), with
//! the page context they were proposed on (what an accept handler reads).

use super::Backend;

/// A column's type, the one thing the two databases spell differently.
#[derive(Debug, Clone, Copy)]
enum Type {
    /// Text.
    Text,
    /// A whole number, 64 bits on both.
    Int,
    /// The table's own key, numbered by the database.
    Serial,
    /// When the row was made, filled in by the database.
    Created,
}

impl Type {
    /// How `backend` writes this type (with what it implies: a key, a default).
    fn sql(self, backend: Backend) -> &'static str {
        match (self, backend) {
            (Type::Text, _) => "TEXT",
            (Type::Int, Backend::Sqlite) => "INTEGER",
            (Type::Int, Backend::Postgres) => "BIGINT",
            (Type::Serial, Backend::Sqlite) => "INTEGER PRIMARY KEY AUTOINCREMENT",
            (Type::Serial, Backend::Postgres) => "BIGSERIAL PRIMARY KEY",
            (Type::Created, Backend::Sqlite) => "TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP",
            (Type::Created, Backend::Postgres) => "TIMESTAMPTZ NOT NULL DEFAULT now()",
        }
    }
}

/// One table, written once for both databases: a column added here is added on both.
struct Table {
    name: &'static str,
    /// Each column's name, type and what follows the type (the same on both).
    columns: &'static [(&'static str, Type, &'static str)],
    /// The columns of a primary key over several, if any.
    key: Option<&'static str>,
}

impl Table {
    /// `CREATE TABLE` for `backend`, under `name` (a migration builds a copy under
    /// another), `IF NOT EXISTS` when `if_missing`.
    fn create(&self, backend: Backend, name: &str, if_missing: bool) -> String {
        let mut lines: Vec<String> = self
            .columns
            .iter()
            .map(|(column, ty, rest)| {
                let ty = ty.sql(backend);
                if rest.is_empty() {
                    format!("    {column} {ty}")
                } else {
                    format!("    {column} {ty} {rest}")
                }
            })
            .collect();
        lines.extend(self.key.map(|key| format!("    PRIMARY KEY ({key})")));
        let if_missing = if if_missing { "IF NOT EXISTS " } else { "" };
        format!(
            "CREATE TABLE {if_missing}{name} (\n{}\n);\n",
            lines.join(",\n")
        )
    }
}

/// The conversations.
const CONVERSATIONS: Table = Table {
    name: "conversations",
    columns: &[
        ("id", Type::Text, "PRIMARY KEY"),
        ("created", Type::Created, ""),
    ],
    key: None,
};

/// Their messages, in order.
const MESSAGES: Table = Table {
    name: "messages",
    columns: &[
        ("seq", Type::Serial, ""),
        (
            "conversation_id",
            Type::Text,
            "NOT NULL REFERENCES conversations(id)",
        ),
        ("turn", Type::Int, "NOT NULL"),
        ("role", Type::Text, "NOT NULL"),
        ("text", Type::Text, "NOT NULL"),
        ("response", Type::Text, ""),
        ("interrupted", Type::Text, ""),
    ],
    key: None,
};

/// The payloads proposed, one row per proposal.
const PAYLOADS: Table = Table {
    name: "payloads",
    columns: &[
        (
            "conversation_id",
            Type::Text,
            "NOT NULL REFERENCES conversations(id)",
        ),
        ("turn", Type::Int, "NOT NULL"),
        ("idx", Type::Int, "NOT NULL DEFAULT 0"),
        ("type", Type::Text, "NOT NULL"),
        ("data", Type::Text, "NOT NULL"),
        ("status", Type::Text, "NOT NULL"),
        ("context", Type::Text, ""),
    ],
    key: Some("conversation_id, turn, idx"),
};

/// The chat's tables on `backend`, made where missing. PostgreSQL also gets
/// [`ONE_USER_MESSAGE_PER_TURN`] in the same batch; SQLite makes it after its
/// migrations, where the rows allow it.
pub(crate) fn tables(backend: Backend) -> String {
    let mut sql = String::from("\n");
    for table in [&CONVERSATIONS, &MESSAGES, &PAYLOADS] {
        sql.push_str(&table.create(backend, table.name, true));
    }
    if backend == Backend::Postgres {
        sql.push_str(ONE_USER_MESSAGE_PER_TURN.trim_start());
        sql.push_str(";\n");
    }
    sql
}

/// A file made when a turn held one proposal (keyed by its turn alone) gains the
/// index, each old proposal being its turn's first (index 0). SQLite cannot change a
/// primary key in place, so the table is copied.
pub(crate) fn sqlite_add_index() -> String {
    format!(
        "\n{}{}",
        PAYLOADS.create(Backend::Sqlite, "payloads_indexed", false),
        "INSERT INTO payloads_indexed (conversation_id, turn, idx, type, data, status, context)
    SELECT conversation_id, turn, 0, type, data, status, context FROM payloads;
DROP TABLE payloads;
ALTER TABLE payloads_indexed RENAME TO payloads;
"
    )
}

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
    batches: Vec<(Option<Backend>, String)>,
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
    pub fn only(mut self, backend: Backend, sql: impl Into<String>) -> AppSchema {
        self.batches.push((Some(backend), sql.into()));
        self
    }

    /// The batches `backend` runs, in the order given.
    pub fn for_backend(&self, backend: Backend) -> impl Iterator<Item = &str> {
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
