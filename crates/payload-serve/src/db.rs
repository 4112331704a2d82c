//! The database: one SQLite connection behind a mutex holding what every app's chat
//! keeps (conversations, messages, payloads and the user's decisions on them), and
//! beside them the app's own tables, created from the statements the app gives
//! ([`crate::App::schema`]). An accept handler writes those in the same transaction
//! that records the decision ([`Db::decide`]).
//!
//! A turn's number is given by the database, in the transaction that records its
//! message ([`Db::add_user_message`]), so it is unique within its conversation
//! whatever the client says about the conversation's past, and a proposal is stored
//! under its turn or refused with an error, never dropped ([`Db::add_payload`]).

use payload_core::CustomPayload;
use payload_prompt::{ManifestEntry, PayloadStatus};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// The chat's tables: conversations, their messages, and the payloads proposed in them
/// with the page context they were proposed on (what an accept handler reads, such as
/// the table a page showed).
const SCHEMA: &str = "
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
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL,
    context TEXT,
    PRIMARY KEY (conversation_id, turn)
);
";

/// One user message per turn of a conversation: the database refuses a second, so a
/// turn number names one message and one proposal. Made only where the rows allow it:
/// a file written before turns were numbered by the database may hold a repeated turn,
/// and new turns are numbered past it anyway ([`Db::add_user_message`]).
const ONE_USER_MESSAGE_PER_TURN: &str = "
CREATE UNIQUE INDEX IF NOT EXISTS messages_one_user_message_per_turn
    ON messages (conversation_id, turn) WHERE role = 'user'";

/// The database of one server.
#[derive(Debug)]
pub struct Db {
    conn: Mutex<Connection>,
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
    /// Its type and data.
    pub payload: CustomPayload,
    /// Proposed, accepted or dismissed.
    pub status: PayloadStatus,
    /// The page context the client sent with the message that proposed it (what an
    /// accept handler applies it to, such as the open trip's id); `null` when none.
    pub context: Value,
}

impl Db {
    /// Opens (or creates) the database in `path`, or an in-memory one, with the chat's
    /// tables only.
    pub fn open(path: Option<&Path>) -> rusqlite::Result<Db> {
        Db::open_with(path, &[])
    }

    /// Opens (or creates) the database in `path`, or an in-memory one, with the chat's
    /// tables and the app's (`app_schema`: SQL batches run in order on every open, so
    /// they say `CREATE TABLE IF NOT EXISTS`).
    pub fn open_with(path: Option<&Path>, app_schema: &[&str]) -> rusqlite::Result<Db> {
        let conn = match path {
            Some(path) => Connection::open(path)?,
            None => Connection::open_in_memory()?,
        };
        conn.execute_batch(SCHEMA)?;
        // A database made before turns could be interrupted gains the column.
        if !has_column(&conn, "messages", "interrupted")? {
            conn.execute_batch("ALTER TABLE messages ADD COLUMN interrupted TEXT")?;
        }
        // One made when payloads kept a table id, not their page context, gains the
        // context, holding that id as table.that's context did.
        if !has_column(&conn, "payloads", "context")? {
            conn.execute_batch("ALTER TABLE payloads ADD COLUMN context TEXT")?;
            if has_column(&conn, "payloads", "table_id")? {
                conn.execute_batch(
                    "UPDATE payloads SET context = json_object('table_id', table_id)
                     WHERE table_id IS NOT NULL",
                )?;
            }
        }
        // A file made when AG-UI thread ids were the client's names for conversations
        // loses them: a thread is now the conversation's own id, and a client-picked
        // name must open nothing.
        conn.execute_batch("DROP TABLE IF EXISTS agui_threads")?;
        let repeated: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM messages WHERE role = 'user'
             GROUP BY conversation_id, turn HAVING COUNT(*) > 1)",
            [],
            |row| row.get(0),
        )?;
        if repeated {
            tracing::warn!(
                "the database holds a repeated turn from an older version; new turns are numbered past it"
            );
        } else {
            conn.execute_batch(ONE_USER_MESSAGE_PER_TURN)?;
        }
        for batch in app_schema {
            conn.execute_batch(batch)?;
        }
        Ok(Db {
            conn: Mutex::new(conn),
        })
    }

    /// The connection. A panic while it was held leaves nothing half-written that
    /// SQLite would not have rolled back, so a poisoned lock is taken anyway.
    pub fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records the conversation if it is new.
    pub fn ensure_conversation(&self, id: &str) -> rusqlite::Result<()> {
        self.conn().execute(
            "INSERT OR IGNORE INTO conversations (id) VALUES (?1)",
            params![id],
        )?;
        Ok(())
    }

    /// The conversation's messages, oldest first.
    pub fn messages(&self, conversation: &str) -> rusqlite::Result<Vec<StoredMessage>> {
        let conn = self.conn();
        let mut statement = conn.prepare(
            "SELECT turn, role, text, response, interrupted FROM messages
             WHERE conversation_id = ?1 ORDER BY seq",
        )?;
        statement
            .query_map(params![conversation], |row| {
                let response: Option<String> = row.get(3)?;
                Ok(StoredMessage {
                    turn: row.get::<_, i64>(0)? as usize,
                    role: row.get(1)?,
                    text: row.get(2)?,
                    response: response.and_then(|r| serde_json::from_str(&r).ok()),
                    interrupted: row.get(4)?,
                })
            })?
            .collect()
    }

    /// Records the user's message of a new turn of `conversation` (which it creates if
    /// new) and answers the turn's number: one past the conversation's last turn, or
    /// `first` when it has none (a conversation that starts from the client's history
    /// counts the turns that history holds). The number is read and taken in one
    /// transaction holding the write lock, so two turns never get the same one, in this
    /// process or another on the same file.
    pub fn add_user_message(
        &self,
        conversation: &str,
        first: usize,
        text: &str,
    ) -> rusqlite::Result<usize> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT OR IGNORE INTO conversations (id) VALUES (?1)",
            params![conversation],
        )?;
        let last: Option<i64> = tx.query_row(
            "SELECT MAX(turn) FROM messages WHERE conversation_id = ?1",
            params![conversation],
            |row| row.get(0),
        )?;
        let turn = match last {
            Some(last) => usize::try_from(last).unwrap_or(0).saturating_add(1),
            None => first,
        };
        tx.execute(
            "INSERT INTO messages (conversation_id, turn, role, text) VALUES (?1, ?2, 'user', ?3)",
            params![conversation, turn as i64, text],
        )?;
        tx.commit()?;
        Ok(turn)
    }

    /// Adds a message to the conversation.
    pub fn add_message(
        &self,
        conversation: &str,
        turn: usize,
        role: &str,
        text: &str,
        response: Option<&Value>,
    ) -> rusqlite::Result<()> {
        insert_message(&self.conn(), conversation, turn, role, text, response)
    }

    /// Records the answer of `turn` and the payload it proposes, as one transaction:
    /// both are stored or, when either is refused (a second answer's proposal for the
    /// turn), neither is and the error says why.
    pub fn add_answer(
        &self,
        conversation: &str,
        turn: usize,
        text: &str,
        response: &Value,
        proposal: Option<(&CustomPayload, &Value)>,
    ) -> rusqlite::Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        insert_message(&tx, conversation, turn, "assistant", text, Some(response))?;
        if let Some((payload, context)) = proposal {
            insert_payload(&tx, conversation, turn, payload, context)?;
        }
        tx.commit()
    }

    /// Records that `turn` ended without an answer, and why: an empty assistant message
    /// marked interrupted, so the conversation still alternates and shows what happened.
    pub fn add_interrupted(
        &self,
        conversation: &str,
        turn: usize,
        reason: &str,
    ) -> rusqlite::Result<()> {
        self.conn().execute(
            "INSERT INTO messages (conversation_id, turn, role, text, interrupted)
             VALUES (?1, ?2, 'assistant', '', ?3)",
            params![conversation, turn as i64, reason],
        )?;
        Ok(())
    }

    /// Whether the conversation exists.
    pub fn has_conversation(&self, id: &str) -> rusqlite::Result<bool> {
        self.conn().query_row(
            "SELECT EXISTS (SELECT 1 FROM conversations WHERE id = ?1)",
            params![id],
            |row| row.get(0),
        )
    }

    /// Records a proposed payload. A turn proposes one payload: a second record for the
    /// same turn is refused with an error (a constraint violation) and changes nothing,
    /// so a proposal is never silently lost, nor a decided one set back to `proposed`.
    pub fn add_payload(
        &self,
        conversation: &str,
        turn: usize,
        payload: &CustomPayload,
        context: &Value,
    ) -> rusqlite::Result<()> {
        insert_payload(&self.conn(), conversation, turn, payload, context)
    }

    /// The conversation's payloads, oldest first.
    pub fn payloads(&self, conversation: &str) -> rusqlite::Result<Vec<StoredPayload>> {
        let conn = self.conn();
        let mut statement = conn.prepare(
            "SELECT turn, type, data, status, context FROM payloads
             WHERE conversation_id = ?1 ORDER BY turn",
        )?;
        statement
            .query_map(params![conversation], payload_row)?
            .collect()
    }

    /// One payload of the conversation.
    pub fn payload(
        &self,
        conversation: &str,
        turn: usize,
    ) -> rusqlite::Result<Option<StoredPayload>> {
        self.conn()
            .query_row(
                "SELECT turn, type, data, status, context FROM payloads
                 WHERE conversation_id = ?1 AND turn = ?2",
                params![conversation, turn as i64],
                payload_row,
            )
            .optional()
    }

    /// The conversation's payload manifest, for the next system prompt.
    pub fn manifest(&self, conversation: &str) -> rusqlite::Result<Vec<ManifestEntry>> {
        Ok(self
            .payloads(conversation)?
            .into_iter()
            // Turns are counted from 1 for the model, as people count them.
            .map(|p| ManifestEntry::new(p.turn + 1, p.payload, p.status))
            .collect())
    }
}

/// Inserts a message.
fn insert_message(
    conn: &Connection,
    conversation: &str,
    turn: usize,
    role: &str,
    text: &str,
    response: Option<&Value>,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO messages (conversation_id, turn, role, text, response)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            conversation,
            turn as i64,
            role,
            text,
            response.map(Value::to_string)
        ],
    )?;
    Ok(())
}

/// Inserts a proposal, refused (a constraint violation) when its turn has one.
fn insert_payload(
    conn: &Connection,
    conversation: &str,
    turn: usize,
    payload: &CustomPayload,
    context: &Value,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO payloads (conversation_id, turn, type, data, status, context)
         VALUES (?1, ?2, ?3, ?4, 'proposed', ?5)",
        params![
            conversation,
            turn as i64,
            payload.kind,
            payload.data().to_string(),
            (!context.is_null()).then(|| context.to_string())
        ],
    )?;
    Ok(())
}

/// Whether `table` has a column named `column`.
fn has_column(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT COUNT(*) > 0 FROM pragma_table_info(?1) WHERE name = ?2",
        params![table, column],
        |row| row.get(0),
    )
}

/// A `payloads` row (turn, type, data, status, context) as a [`StoredPayload`].
pub(crate) fn payload_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredPayload> {
    let data: String = row.get(2)?;
    let status: String = row.get(3)?;
    let context: Option<String> = row.get(4)?;
    Ok(StoredPayload {
        turn: row.get::<_, i64>(0)? as usize,
        payload: CustomPayload::new(
            row.get::<_, String>(1)?,
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
    use serde_json::json;

    fn note(text: &str) -> CustomPayload {
        CustomPayload::new("note", json!({ "text": text }))
    }

    #[test]
    fn turns_are_numbered_past_the_last_whatever_the_client_claims() {
        let db = Db::open(None).unwrap();
        // A conversation started from a history of three user messages.
        assert_eq!(db.add_user_message("c", 3, "a").unwrap(), 3);
        // Later turns: the client's count is not read.
        assert_eq!(db.add_user_message("c", 1, "b").unwrap(), 4);
        db.add_interrupted("c", 4, "gone").unwrap();
        assert_eq!(db.add_user_message("c", 0, "c").unwrap(), 5);
        assert_eq!(db.add_user_message("other", 0, "x").unwrap(), 0);
        // The database itself refuses a second user message for a turn.
        assert!(db.add_message("c", 4, "user", "again", None).is_err());
    }

    #[test]
    fn a_second_proposal_for_a_turn_is_refused_with_its_answer_and_changes_nothing() {
        let db = Db::open(None).unwrap();
        let turn = db.add_user_message("c", 0, "a").unwrap();
        db.add_answer(
            "c",
            turn,
            "one",
            &json!({}),
            Some((&note("one"), &Value::Null)),
        )
        .unwrap();
        assert!(
            db.add_answer(
                "c",
                turn,
                "two",
                &json!({}),
                Some((&note("two"), &Value::Null))
            )
            .is_err()
        );
        assert!(
            db.add_payload("c", turn, &note("three"), &Value::Null)
                .is_err()
        );
        let stored = db.payloads("c").unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].payload.data()["text"], "one");
        // The refused answer was not kept either: one answer, the first.
        let answers: Vec<String> = db
            .messages("c")
            .unwrap()
            .into_iter()
            .filter(|m| m.role == "assistant")
            .map(|m| m.text)
            .collect();
        assert_eq!(answers, ["one"]);
    }

    #[test]
    fn an_older_file_opens_numbering_new_turns_past_a_repeated_one_and_forgets_thread_names() {
        let file = std::env::temp_dir().join(format!(
            "payload-serve-repeated-{}-{}.db",
            std::process::id(),
            crate::ids::new_conversation_id().unwrap()
        ));
        {
            let conn = Connection::open(&file).unwrap();
            conn.execute_batch(SCHEMA).unwrap();
            conn.execute_batch(
                "INSERT INTO conversations (id) VALUES ('c');
                 INSERT INTO messages (conversation_id, turn, role, text) VALUES
                     ('c', 1, 'user', 'a'), ('c', 1, 'user', 'b');
                 CREATE TABLE agui_threads (thread_id TEXT PRIMARY KEY, conversation_id TEXT);
                 INSERT INTO agui_threads VALUES ('guessable', 'c');",
            )
            .unwrap();
        }
        let db = Db::open(Some(&file)).unwrap();
        assert_eq!(db.add_user_message("c", 0, "c").unwrap(), 2);
        // The client-picked thread names it held are gone.
        assert!(!has_column(&db.conn(), "agui_threads", "thread_id").unwrap());
        drop(db);
        let _ = std::fs::remove_file(&file);
    }
}
