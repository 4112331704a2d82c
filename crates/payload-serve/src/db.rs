//! The chat's records, on whichever database the app runs ([`crate::store`]):
//! conversations, messages, the payloads proposed in them and the user's decisions,
//! each operation one transaction whose statements are written once for both
//! databases. An accept handler writes the app's tables in the same transaction that
//! records the decision ([`Db::decide`]).
//!
//! A turn's number is given by the database, in the transaction that records its
//! message ([`Db::add_user_message`]), so it is unique within its conversation
//! whatever the client says about the conversation's past, in this process or another
//! on the same database; and every proposal of an answer is stored under (conversation,
//! turn, index) or the answer is refused with an error, never dropped
//! ([`Db::add_answer`]).

use crate::store::{
    AppSchema, Backend, Database, Row, SqliteStorage, Storage, StoreError, Tx, TxMode,
};
use payload_core::CustomPayload;
use payload_prompt::{ManifestEntry, PayloadStatus};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// The database of one server: a handle, cheap to clone, on its [`Storage`].
#[derive(Clone)]
pub struct Db {
    storage: Arc<dyn Storage>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("backend", &self.storage.backend())
            .finish()
    }
}

/// A stored message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredMessage {
    /// The turn it belongs to, from 0.
    pub turn: usize,
    /// `user` or `assistant`.
    pub role: String,
    /// What the user wrote, or the model's whole answer (blocks included, as the model
    /// needs to see it next time).
    pub text: String,
    /// For an answer: its parse (`complete`'s data), for showing it again.
    pub response: Option<Value>,
    /// For a turn that ended without an answer: why (the answer's text is then empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
}

/// A payload the model proposed, with what the user did with it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredPayload {
    /// The turn it was proposed in.
    pub turn: usize,
    /// Its position among the accepted payloads of its answer, from 0.
    pub index: usize,
    /// Its type and data.
    pub payload: CustomPayload,
    /// Proposed, accepted or dismissed.
    pub status: PayloadStatus,
    /// The page context the client sent with the message that proposed it (what an
    /// accept handler applies it to, such as the open trip's id); `null` when none.
    pub context: Value,
}

/// The columns a [`StoredPayload`] is read from, in [`payload_row`]'s order.
pub(crate) const PAYLOAD_COLUMNS: &str = "turn, idx, type, data, status, context";

impl Db {
    /// A handle on `storage`.
    pub fn new(storage: impl Storage) -> Db {
        Db {
            storage: Arc::new(storage),
        }
    }

    /// Opens (or creates) the SQLite file at `path`, or a database in memory, with the
    /// chat's tables only.
    pub fn open(path: Option<&Path>) -> Result<Db, StoreError> {
        Db::open_with(path, AppSchema::new())
    }

    /// Opens (or creates) the SQLite file at `path`, or a database in memory, with the
    /// chat's tables and the app's (`app`: SQL batches run in order on every open, so
    /// they say `CREATE TABLE IF NOT EXISTS`).
    pub fn open_with(path: Option<&Path>, app: impl Into<AppSchema>) -> Result<Db, StoreError> {
        Ok(Db::new(SqliteStorage::open(path, &app.into())?))
    }

    /// The database at `location` with the app's tables: SQLite is opened now;
    /// PostgreSQL's pool is made now and its first connection, which makes the tables,
    /// on the first use ([`Db::ready`]).
    pub fn connect(location: &Database, app: AppSchema) -> Result<Db, StoreError> {
        match location {
            Database::Memory => Db::open_with(None, app),
            Database::Sqlite(path) => Db::open_with(Some(path), app),
            #[cfg(feature = "postgres")]
            Database::Postgres(url) => Ok(Db::new(crate::store::PgStorage::new(url, app)?)),
            #[cfg(not(feature = "postgres"))]
            Database::Postgres(_) => Err(StoreError::Location(
                "this build has no PostgreSQL support (payload-serve's `postgres` feature)".into(),
            )),
        }
    }

    /// Reaches the database once (making its tables if they are not there): what a
    /// server does before it says it is ready.
    pub async fn ready(&self) -> Result<(), StoreError> {
        self.begin(TxMode::Read).await?.rollback().await;
        Ok(())
    }

    /// Which database it is.
    pub fn backend(&self) -> Backend {
        self.storage.backend()
    }

    /// Opens a transaction, for the app's own reads and writes.
    pub async fn begin(&self, mode: TxMode) -> Result<Tx, StoreError> {
        self.storage.begin(mode).await
    }

    /// The SQLite storage, when the database is SQLite (for an app whose own tables
    /// are SQLite's).
    pub fn sqlite(&self) -> Option<&SqliteStorage> {
        self.storage.as_sqlite()
    }

    /// Runs `work` on the SQLite connection on a thread for blocking work; on another
    /// database, [`StoreError::Unsupported`].
    pub async fn with_sqlite<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Connection) -> T + Send + 'static,
    {
        match self.sqlite() {
            Some(sqlite) => sqlite.run(work).await,
            None => Err(StoreError::Unsupported(format!(
                "this work needs SQLite and the database is {}",
                self.backend()
            ))),
        }
    }

    /// What locks a row read for a change on this database: PostgreSQL's row lock
    /// (SQLite's write transaction holds the whole file already).
    pub(crate) fn for_update(&self) -> &'static str {
        match self.backend() {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        }
    }

    /// Records the conversation if it is new.
    pub async fn ensure_conversation(&self, id: &str) -> Result<(), StoreError> {
        let tx = self.begin(TxMode::Write).await?;
        ensure_conversation(&tx, id).await?;
        tx.commit().await
    }

    /// Whether the conversation exists.
    pub async fn has_conversation(&self, id: &str) -> Result<bool, StoreError> {
        let tx = self.begin(TxMode::Read).await?;
        tx.query_one(
            "SELECT EXISTS (SELECT 1 FROM conversations WHERE id = $1)",
            &[&id],
        )
        .await?
        .get(0)
    }

    /// The conversation's messages, oldest first.
    pub async fn messages(&self, conversation: &str) -> Result<Vec<StoredMessage>, StoreError> {
        let tx = self.begin(TxMode::Read).await?;
        tx.query(
            "SELECT turn, role, text, response, interrupted FROM messages
             WHERE conversation_id = $1 ORDER BY seq",
            &[&conversation],
        )
        .await?
        .iter()
        .map(|row| {
            let response: Option<String> = row.get(3)?;
            Ok(StoredMessage {
                turn: row.get(0)?,
                role: row.get(1)?,
                text: row.get(2)?,
                response: response.and_then(|r| serde_json::from_str(&r).ok()),
                interrupted: row.get(4)?,
            })
        })
        .collect()
    }

    /// Records the user's message of a new turn of `conversation` (which it creates if
    /// new) and answers the turn's number: one past the conversation's last turn, or
    /// `first` when it has none (a conversation that starts from the client's history
    /// counts the turns that history holds). The number is read and taken in one
    /// transaction holding the conversation (SQLite's write lock, PostgreSQL's row
    /// lock), so two turns never get the same one, in this process or another.
    pub async fn add_user_message(
        &self,
        conversation: &str,
        first: usize,
        text: &str,
    ) -> Result<usize, StoreError> {
        let lock = format!(
            "SELECT id FROM conversations WHERE id = $1{}",
            self.for_update()
        );
        let tx = self.begin(TxMode::Write).await?;
        ensure_conversation(&tx, conversation).await?;
        tx.query_one(&lock, &[&conversation]).await?;
        let last: Option<i64> = tx
            .query_one(
                "SELECT MAX(turn) FROM messages WHERE conversation_id = $1",
                &[&conversation],
            )
            .await?
            .get(0)?;
        let turn = match last {
            Some(last) => usize::try_from(last).unwrap_or(0).saturating_add(1),
            None => first,
        };
        tx.execute(
            "INSERT INTO messages (conversation_id, turn, role, text) VALUES ($1, $2, 'user', $3)",
            &[&conversation, &number(turn)?, &text],
        )
        .await?;
        tx.commit().await?;
        Ok(turn)
    }

    /// Adds a message to the conversation.
    pub async fn add_message(
        &self,
        conversation: &str,
        turn: usize,
        role: &str,
        text: &str,
        response: Option<&Value>,
    ) -> Result<(), StoreError> {
        let tx = self.begin(TxMode::Write).await?;
        insert_message(&tx, conversation, turn, role, text, response).await?;
        tx.commit().await
    }

    /// Records the answer of `turn` and every payload it proposes (`proposals`, in the
    /// answer's order: the first is index 0), with the page context they were proposed
    /// on, as one transaction: all are stored or, when any is refused (a second answer
    /// for the turn proposing again), none is and the error says why.
    pub async fn add_answer(
        &self,
        conversation: &str,
        turn: usize,
        text: &str,
        response: &Value,
        proposals: &[CustomPayload],
        context: &Value,
    ) -> Result<(), StoreError> {
        let tx = self.begin(TxMode::Write).await?;
        insert_message(&tx, conversation, turn, "assistant", text, Some(response)).await?;
        for (index, payload) in proposals.iter().enumerate() {
            insert_payload(&tx, conversation, turn, index, payload, context).await?;
        }
        tx.commit().await
    }

    /// Records that `turn` ended without an answer, and why: an empty assistant message
    /// marked interrupted, so the conversation still alternates and shows what happened.
    pub async fn add_interrupted(
        &self,
        conversation: &str,
        turn: usize,
        reason: &str,
    ) -> Result<(), StoreError> {
        let number = number(turn)?;
        let tx = self.begin(TxMode::Write).await?;
        tx.execute(
            "INSERT INTO messages (conversation_id, turn, role, text, interrupted)
             VALUES ($1, $2, 'assistant', '', $3)",
            &[&conversation, &number, &reason],
        )
        .await?;
        tx.commit().await
    }

    /// Records one proposed payload, `index` of its turn. A second record for the same
    /// (turn, index) is refused with an error (a constraint violation) and changes
    /// nothing, so a proposal is never silently lost, nor a decided one set back to
    /// `proposed`.
    pub async fn add_payload(
        &self,
        conversation: &str,
        turn: usize,
        index: usize,
        payload: &CustomPayload,
        context: &Value,
    ) -> Result<(), StoreError> {
        let tx = self.begin(TxMode::Write).await?;
        insert_payload(&tx, conversation, turn, index, payload, context).await?;
        tx.commit().await
    }

    /// The conversation's payloads, oldest first (by turn, then index).
    pub async fn payloads(&self, conversation: &str) -> Result<Vec<StoredPayload>, StoreError> {
        let sql = format!(
            "SELECT {PAYLOAD_COLUMNS} FROM payloads WHERE conversation_id = $1 ORDER BY turn, idx"
        );
        let tx = self.begin(TxMode::Read).await?;
        tx.query(&sql, &[&conversation])
            .await?
            .iter()
            .map(payload_row)
            .collect()
    }

    /// One payload of the conversation: `index` of `turn`.
    pub async fn payload(
        &self,
        conversation: &str,
        turn: usize,
        index: usize,
    ) -> Result<Option<StoredPayload>, StoreError> {
        // A turn or index past what the database can hold names no proposal.
        let (Ok(turn), Ok(index)) = (number(turn), number(index)) else {
            return Ok(None);
        };
        let sql = format!(
            "SELECT {PAYLOAD_COLUMNS} FROM payloads
             WHERE conversation_id = $1 AND turn = $2 AND idx = $3"
        );
        let tx = self.begin(TxMode::Read).await?;
        tx.query_opt(&sql, &[&conversation, &turn, &index])
            .await?
            .as_ref()
            .map(payload_row)
            .transpose()
    }

    /// The conversation's payload manifest, for the next system prompt.
    pub async fn manifest(&self, conversation: &str) -> Result<Vec<ManifestEntry>, StoreError> {
        Ok(self
            .payloads(conversation)
            .await?
            .into_iter()
            // Turns are counted from 1 for the model, as people count them.
            .map(|p| ManifestEntry::new(p.turn + 1, p.payload, p.status))
            .collect())
    }
}

/// A turn or index as the database stores it; past `i64::MAX` it is refused, never
/// wrapped.
pub(crate) fn number(n: usize) -> Result<i64, StoreError> {
    i64::try_from(n).map_err(|_| StoreError::Column {
        column: "turn".into(),
        message: format!("{n} is too large to store"),
    })
}

/// Records the conversation if it is new.
async fn ensure_conversation(tx: &Tx, id: &str) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO conversations (id) VALUES ($1) ON CONFLICT DO NOTHING",
        &[&id],
    )
    .await?;
    Ok(())
}

/// Inserts a message.
async fn insert_message(
    tx: &Tx,
    conversation: &str,
    turn: usize,
    role: &str,
    text: &str,
    response: Option<&Value>,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO messages (conversation_id, turn, role, text, response)
         VALUES ($1, $2, $3, $4, $5)",
        &[
            &conversation,
            &number(turn)?,
            &role,
            &text,
            &response.map(Value::to_string),
        ],
    )
    .await?;
    Ok(())
}

/// Inserts a proposal, refused (a constraint violation) when its (turn, index) has one.
async fn insert_payload(
    tx: &Tx,
    conversation: &str,
    turn: usize,
    index: usize,
    payload: &CustomPayload,
    context: &Value,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO payloads (conversation_id, turn, idx, type, data, status, context)
         VALUES ($1, $2, $3, $4, $5, 'proposed', $6)",
        &[
            &conversation,
            &number(turn)?,
            &number(index)?,
            &payload.kind,
            &payload.data().to_string(),
            &(!context.is_null()).then(|| context.to_string()),
        ],
    )
    .await?;
    Ok(())
}

/// A `payloads` row ([`PAYLOAD_COLUMNS`]) as a [`StoredPayload`].
pub(crate) fn payload_row(row: &Row) -> Result<StoredPayload, StoreError> {
    let data: String = row.get(3)?;
    let status: String = row.get(4)?;
    let context: Option<String> = row.get(5)?;
    Ok(StoredPayload {
        turn: row.get(0)?,
        index: row.get(1)?,
        payload: CustomPayload::new(
            row.get::<String>(2)?,
            serde_json::from_str(&data).unwrap_or(Value::Null),
        ),
        status: match status.as_str() {
            "accepted" => PayloadStatus::Accepted,
            "dismissed" => PayloadStatus::Dismissed,
            _ => PayloadStatus::Proposed,
        },
        context: context
            .and_then(|c| serde_json::from_str(&c).ok())
            .unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;
    use serde_json::json;

    fn note(text: &str) -> CustomPayload {
        CustomPayload::new("note", json!({ "text": text }))
    }

    #[tokio::test]
    async fn turns_are_numbered_past_the_last_whatever_the_client_claims() {
        let db = Db::open(None).unwrap();
        // A conversation started from a history of three user messages.
        assert_eq!(db.add_user_message("c", 3, "a").await.unwrap(), 3);
        // Later turns: the client's count is not read.
        assert_eq!(db.add_user_message("c", 1, "b").await.unwrap(), 4);
        db.add_interrupted("c", 4, "gone").await.unwrap();
        assert_eq!(db.add_user_message("c", 0, "c").await.unwrap(), 5);
        assert_eq!(db.add_user_message("other", 0, "x").await.unwrap(), 0);
        // The database itself refuses a second user message for a turn.
        assert!(db.add_message("c", 4, "user", "again", None).await.is_err());
    }

    #[tokio::test]
    async fn a_second_answer_proposing_for_a_turn_is_refused_whole_and_changes_nothing() {
        let db = Db::open(None).unwrap();
        let turn = db.add_user_message("c", 0, "a").await.unwrap();
        db.add_answer(
            "c",
            turn,
            "one",
            &json!({}),
            &[note("one"), note("two")],
            &Value::Null,
        )
        .await
        .unwrap();
        assert!(
            db.add_answer(
                "c",
                turn,
                "again",
                &json!({}),
                &[note("three")],
                &Value::Null
            )
            .await
            .is_err()
        );
        assert!(
            db.add_payload("c", turn, 1, &note("four"), &Value::Null)
                .await
                .is_err()
        );
        let stored = db.payloads("c").await.unwrap();
        let kept: Vec<(usize, &Value)> = stored
            .iter()
            .map(|p| (p.index, &p.payload.data()["text"]))
            .collect();
        assert_eq!(kept, [(0, &json!("one")), (1, &json!("two"))]);
        // The refused answer was not kept either: one answer, the first.
        let answers: Vec<String> = db
            .messages("c")
            .await
            .unwrap()
            .into_iter()
            .filter(|m| m.role == "assistant")
            .map(|m| m.text)
            .collect();
        assert_eq!(answers, ["one"]);
        assert_eq!(
            db.payload("c", turn, 1).await.unwrap().map(|p| p.payload),
            Some(note("two"))
        );
        assert_eq!(db.payload("c", turn, 2).await.unwrap(), None);
    }

    #[tokio::test]
    async fn an_older_file_opens_numbering_new_turns_past_a_repeated_one_and_indexing_its_proposals()
     {
        let file = std::env::temp_dir().join(format!(
            "payload-serve-repeated-{}-{}.db",
            std::process::id(),
            crate::ids::new_conversation_id().unwrap()
        ));
        {
            let conn = Connection::open(&file).unwrap();
            // The tables as they were when a turn held one proposal.
            conn.execute_batch(
                "CREATE TABLE conversations (id TEXT PRIMARY KEY, created TEXT);
                 CREATE TABLE messages (seq INTEGER PRIMARY KEY AUTOINCREMENT,
                     conversation_id TEXT NOT NULL, turn INTEGER NOT NULL, role TEXT NOT NULL,
                     text TEXT NOT NULL, response TEXT, interrupted TEXT);
                 CREATE TABLE payloads (conversation_id TEXT NOT NULL, turn INTEGER NOT NULL,
                     type TEXT NOT NULL, data TEXT NOT NULL, status TEXT NOT NULL, context TEXT,
                     PRIMARY KEY (conversation_id, turn));
                 INSERT INTO conversations (id) VALUES ('c');
                 INSERT INTO messages (conversation_id, turn, role, text) VALUES
                     ('c', 1, 'user', 'a'), ('c', 1, 'user', 'b');
                 INSERT INTO payloads VALUES ('c', 1, 'note', '{\"text\":\"old\"}', 'accepted', NULL);
                 CREATE TABLE agui_threads (thread_id TEXT PRIMARY KEY, conversation_id TEXT);
                 INSERT INTO agui_threads VALUES ('guessable', 'c');",
            )
            .unwrap();
        }
        let db = Db::open(Some(&file)).unwrap();
        assert_eq!(db.add_user_message("c", 0, "c").await.unwrap(), 2);
        // The old proposal is its turn's first, as it was decided.
        let old = db.payload("c", 1, 0).await.unwrap().unwrap();
        assert_eq!(
            (old.status, old.payload),
            (PayloadStatus::Accepted, note("old"))
        );
        db.add_payload("c", 1, 1, &note("new"), &Value::Null)
            .await
            .unwrap();
        // The client-picked thread names it held are gone.
        let sqlite = db.sqlite().unwrap();
        assert!(
            !crate::store::sqlite_has_column(&sqlite.conn(), "agui_threads", "thread_id").unwrap()
        );
        drop(db);
        // Opening it again changes nothing more.
        let db = Db::open(Some(&file)).unwrap();
        assert_eq!(db.payloads("c").await.unwrap().len(), 2);
        drop(db);
        let _ = std::fs::remove_file(&file);
    }
}
