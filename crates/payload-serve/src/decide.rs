//! The user's decision on a proposed payload, as one compare-and-set in one
//! transaction: the proposal's row is read and locked (SQLite's write lock, taken at
//! `BEGIN IMMEDIATE`; PostgreSQL's row lock, `SELECT ... FOR UPDATE`), its status moves
//! from `proposed` only if it still is (a conditional `UPDATE`), and the app's accept
//! handler writes through the same transaction, so all happen or none does. However
//! many accepts race, in one process or several, and wherever a process stops, a
//! proposal is applied at most once and its status says whether it was.

use crate::db::{Db, PAYLOAD_COLUMNS, number, payload_row};
use crate::error::ApiError;
use crate::handlers::{Accepted, Handlers};
use crate::store::{StoreError, TxMode};
use payload_prompt::PayloadStatus;
use serde_json::Value;

/// What the user decided: the protocols' type, so a decision read from AG-UI's
/// `resume` or the AI SDK's approvals is made here as it is.
pub use payload_agui::Decision;

/// What a decision did.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    /// The payload's status now.
    pub status: PayloadStatus,
    /// What the accept handler answered (`None` for a dismissal).
    pub applied: Option<Value>,
}

/// Why a decision was not made (nothing changed).
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    /// No payload was proposed there.
    #[error("no payload was proposed there")]
    NotFound,
    /// It was decided before.
    #[error("the payload was already {0}")]
    AlreadyDecided(PayloadStatus),
    /// The app registered no handler for the payload's type: it is only shown.
    #[error("this app does nothing with a {0}: it is only shown")]
    NoHandler(String),
    /// The handler refused or failed.
    #[error(transparent)]
    Handler(ApiError),
    /// The database failed.
    #[error("the database failed")]
    Store(#[from] StoreError),
}

/// Which proposal a decision is on: payload `index` of `turn` of `conversation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProposalKey<'a> {
    /// The conversation.
    pub conversation: &'a str,
    /// The turn whose answer proposed it, from 0.
    pub turn: usize,
    /// Its position among that answer's payloads, from 0.
    pub index: usize,
}

impl Db {
    /// Decides the proposal `key` with the app's `handlers`: the status check, the
    /// status change and the handler are one transaction holding the proposal (see the
    /// module), so a second decision, in this process or another on the same database,
    /// sees the first's outcome whole or not at all.
    pub async fn decide(
        &self,
        key: ProposalKey<'_>,
        decision: &Decision,
        handlers: &Handlers,
    ) -> Result<Decided, DecideError> {
        // A turn or index past what the database can hold names no proposal.
        let (Ok(turn), Ok(index)) = (number(key.turn), number(key.index)) else {
            return Err(DecideError::NotFound);
        };
        let tx = self.begin(TxMode::Write).await?;
        let read = format!(
            "SELECT {PAYLOAD_COLUMNS} FROM payloads
             WHERE conversation_id = $1 AND turn = $2 AND idx = $3{}",
            self.for_update()
        );
        let stored = tx
            .query_opt(&read, &[&key.conversation, &turn, &index])
            .await?
            .as_ref()
            .map(payload_row)
            .transpose()?
            .ok_or(DecideError::NotFound)?;
        if !handlers.accepts(&stored.payload.kind) {
            return Err(DecideError::NoHandler(stored.payload.kind));
        }
        let status = match decision {
            Decision::Accept { .. } => PayloadStatus::Accepted,
            Decision::Dismiss => PayloadStatus::Dismissed,
        };
        // The compare-and-set: only a payload still proposed moves.
        let moved = tx
            .execute(
                "UPDATE payloads SET status = $4
                 WHERE conversation_id = $1 AND turn = $2 AND idx = $3 AND status = 'proposed'",
                &[&key.conversation, &turn, &index, &status.as_str()],
            )
            .await?;
        if moved != 1 {
            return Err(DecideError::AlreadyDecided(stored.status));
        }
        let applied = match decision {
            Decision::Dismiss => None,
            Decision::Accept { options } => {
                let accepted = Accepted {
                    payload: stored.payload.data().clone(),
                    options: options.clone(),
                    context: stored.context,
                    conversation_id: key.conversation.to_string(),
                    turn: key.turn,
                    index: key.index,
                };
                let outcome = handlers
                    .run(&stored.payload.kind, tx.clone(), accepted)
                    .ok_or_else(|| DecideError::NoHandler(stored.payload.kind.clone()))?
                    .await;
                Some(outcome.map_err(DecideError::Handler)?)
            }
        };
        tx.commit().await?;
        Ok(Decided { status, applied })
    }
}

#[cfg(test)]
mod error_tests {
    use super::DecideError;
    use crate::store::StoreError;
    use crate::{ApiError, BuildError};

    use payload_loopback::errors::assert_each_cause_printed_once;

    #[test]
    fn a_decision_or_build_error_prints_its_cause_once() {
        let sql = || StoreError::Sqlite(rusqlite::Error::InvalidColumnName("gone".into()));
        let errors: [&dyn std::error::Error; 5] = [
            &DecideError::Store(sql()),
            &DecideError::Handler(ApiError::bad_request("no such table row")),
            &DecideError::NotFound,
            &BuildError::Db(sql()),
            &BuildError::NoModel,
        ];
        for error in errors {
            assert_each_cause_printed_once(error);
        }
        let sql_error = DecideError::Store(sql());
        let cause = std::error::Error::source(&sql_error).expect("the database's error");
        assert_eq!(cause.to_string(), sql().to_string());
        assert_eq!(
            DecideError::Handler(ApiError::bad_request("no such table row")).to_string(),
            "no such table row"
        );
        // What `serve_on` returns keeps the cause reachable through the I/O error.
        let served = std::io::Error::other(BuildError::Db(sql()));
        assert_eq!(served.to_string(), "the database could not be opened");
        let cause = std::error::Error::source(&served).expect("the database's error");
        assert_eq!(cause.to_string(), sql().to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Tx;
    use payload_core::{CustomPayload, LlmPayload};
    use serde_json::json;

    /// A payload type of the tests: a note to keep.
    #[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema, LlmPayload)]
    #[payload(marker = "NOTE")]
    struct Note {
        /// The note.
        text: String,
    }

    /// Keeps accepted notes in the app's table; fails on a note saying "fail".
    async fn keep(tx: Tx, accepted: Accepted<Note>) -> Result<Value, ApiError> {
        if accepted.payload.text == "fail" {
            // What it wrote before failing is rolled back with the decision.
            tx.execute("INSERT INTO notes (text) VALUES ($1)", &[&"half"])
                .await?;
            return Err(ApiError::conflict("the note says fail"));
        }
        tx.execute(
            "INSERT INTO notes (text) VALUES ($1)",
            &[&accepted.payload.text],
        )
        .await?;
        Ok(json!({
            "kept": accepted.payload.text,
            "options": accepted.options,
            "index": accepted.index,
        }))
    }

    fn handlers() -> Handlers {
        Handlers::new().on_accept(keep)
    }

    fn key(index: usize) -> ProposalKey<'static> {
        ProposalKey {
            conversation: "c",
            turn: 0,
            index,
        }
    }

    /// A database whose turn 0 proposed a note saying each of `texts`.
    async fn db_with(texts: &[&str]) -> Db {
        let db = Db::open_with(None, &["CREATE TABLE IF NOT EXISTS notes (text TEXT)"]).unwrap();
        let turn = db.add_user_message("c", 0, "notes?").await.unwrap();
        let notes: Vec<CustomPayload> = texts
            .iter()
            .map(|text| CustomPayload::new(Note::NAME, json!({ "text": text })))
            .collect();
        db.add_answer(
            "c",
            turn,
            "Here.",
            &json!({}),
            &notes,
            &json!({"current_page": "p"}),
        )
        .await
        .unwrap();
        db
    }

    async fn notes(db: &Db) -> Vec<String> {
        let tx = db.begin(TxMode::Read).await.unwrap();
        tx.query("SELECT text FROM notes ORDER BY rowid", &[])
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0).unwrap())
            .collect()
    }

    #[tokio::test]
    async fn an_accept_runs_the_handler_once_and_a_second_decision_is_refused() {
        let db = db_with(&["milk"]).await;
        let decided = db
            .decide(
                key(0),
                &Decision::Accept {
                    options: json!({"x": 1}),
                },
                &handlers(),
            )
            .await
            .unwrap();
        assert_eq!(decided.status, PayloadStatus::Accepted);
        assert_eq!(
            decided.applied,
            Some(json!({"kept": "milk", "options": {"x": 1}, "index": 0}))
        );
        for again in [Decision::accept(), Decision::Dismiss] {
            assert!(matches!(
                db.decide(key(0), &again, &handlers()).await,
                Err(DecideError::AlreadyDecided(PayloadStatus::Accepted))
            ));
        }
        assert_eq!(notes(&db).await, ["milk"]);
    }

    #[tokio::test]
    async fn each_proposal_of_an_answer_is_decided_by_its_index_and_only_it() {
        let db = db_with(&["milk", "eggs", "bread"]).await;
        let decided = db
            .decide(key(1), &Decision::accept(), &handlers())
            .await
            .unwrap();
        assert_eq!(decided.applied.unwrap()["kept"], "eggs");
        db.decide(key(2), &Decision::Dismiss, &handlers())
            .await
            .unwrap();
        let statuses: Vec<PayloadStatus> = db
            .payloads("c")
            .await
            .unwrap()
            .iter()
            .map(|p| p.status)
            .collect();
        assert_eq!(
            statuses,
            [
                PayloadStatus::Proposed,
                PayloadStatus::Accepted,
                PayloadStatus::Dismissed
            ]
        );
        assert!(matches!(
            db.decide(key(3), &Decision::accept(), &handlers()).await,
            Err(DecideError::NotFound)
        ));
        assert_eq!(notes(&db).await, ["eggs"]);
    }

    #[tokio::test]
    async fn a_failed_handler_changes_nothing_and_leaves_it_proposed() {
        let db = db_with(&["fail"]).await;
        assert!(matches!(
            db.decide(key(0), &Decision::accept(), &handlers()).await,
            Err(DecideError::Handler(_))
        ));
        assert_eq!(
            db.payloads("c").await.unwrap()[0].status,
            PayloadStatus::Proposed
        );
        assert_eq!(notes(&db).await, Vec::<String>::new());
        assert_eq!(
            db.decide(key(0), &Decision::Dismiss, &handlers())
                .await
                .unwrap()
                .status,
            PayloadStatus::Dismissed
        );
    }

    #[tokio::test]
    async fn a_type_without_a_handler_cannot_be_decided() {
        let db = db_with(&["milk"]).await;
        assert!(matches!(
            db.decide(key(0), &Decision::Dismiss, &Handlers::new()).await,
            Err(DecideError::NoHandler(kind)) if kind == "note"
        ));
        let stored = &db.payloads("c").await.unwrap()[0];
        assert_eq!(stored.status, PayloadStatus::Proposed);
        assert_eq!(stored.context, json!({"current_page": "p"}));
    }
}
