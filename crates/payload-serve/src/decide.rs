//! The user's decision on a proposed payload, as one compare-and-set: inside one
//! SQLite transaction the status moves from `proposed` (only if it still is) and the
//! app's accept handler runs, so both happen or neither does. However many accepts
//! race, and wherever the process stops, a proposal is applied at most once and its
//! status says whether it was.

use crate::db::{Db, payload_row};
use crate::error::ApiError;
use crate::handlers::{Accepted, Handlers};
use payload_prompt::PayloadStatus;
use rusqlite::{OptionalExtension, TransactionBehavior, params};
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
    /// No payload was proposed in that turn.
    #[error("no payload was proposed in that turn")]
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
    Sql(#[from] rusqlite::Error),
}

impl Db {
    /// Decides the payload proposed in `turn` of `conversation` with the app's
    /// `handlers`: the status check, the status change and the handler are one
    /// transaction, begun with the write lock taken (`BEGIN IMMEDIATE`), so a second
    /// decision, in this process or another on the same file, sees the first's outcome
    /// whole or not at all.
    pub fn decide(
        &self,
        conversation: &str,
        turn: usize,
        decision: &Decision,
        handlers: &Handlers,
    ) -> Result<Decided, DecideError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let stored = tx
            .query_row(
                "SELECT turn, type, data, status, context FROM payloads
                 WHERE conversation_id = ?1 AND turn = ?2",
                params![conversation, turn as i64],
                payload_row,
            )
            .optional()?
            .ok_or(DecideError::NotFound)?;
        if !handlers.accepts(&stored.payload.kind) {
            return Err(DecideError::NoHandler(stored.payload.kind));
        }
        let status = match decision {
            Decision::Accept { .. } => PayloadStatus::Accepted,
            Decision::Dismiss => PayloadStatus::Dismissed,
        };
        // The compare-and-set: only a payload still proposed moves.
        let moved = tx.execute(
            "UPDATE payloads SET status = ?3
             WHERE conversation_id = ?1 AND turn = ?2 AND status = 'proposed'",
            params![conversation, turn as i64, status.as_str()],
        )?;
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
                    conversation_id: conversation.to_string(),
                    turn,
                };
                let outcome = handlers
                    .run(&stored.payload.kind, &tx, accepted)
                    .ok_or_else(|| DecideError::NoHandler(stored.payload.kind.clone()))?;
                Some(outcome.map_err(DecideError::Handler)?)
            }
        };
        tx.commit()?;
        Ok(Decided { status, applied })
    }
}

#[cfg(test)]
mod error_tests {
    use super::DecideError;
    use crate::{ApiError, BuildError};

    use payload_loopback::errors::assert_each_cause_printed_once;

    #[test]
    fn a_decision_or_build_error_prints_its_cause_once() {
        let sql = || rusqlite::Error::InvalidColumnName("gone".into());
        let errors: [&dyn std::error::Error; 5] = [
            &DecideError::Sql(sql()),
            &DecideError::Handler(ApiError::bad_request("no such table row")),
            &DecideError::NotFound,
            &BuildError::Db(sql()),
            &BuildError::NoModel,
        ];
        for error in errors {
            assert_each_cause_printed_once(error);
        }
        let sql_error = DecideError::Sql(sql());
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
    fn handlers() -> Handlers {
        Handlers::new().on_accept::<Note, _>(|tx, accepted| {
            if accepted.payload.text == "fail" {
                return Err(ApiError::conflict("the note says fail"));
            }
            tx.execute(
                "INSERT INTO notes (text) VALUES (?1)",
                [&accepted.payload.text],
            )?;
            Ok(json!({ "kept": accepted.payload.text, "options": accepted.options }))
        })
    }

    fn db_with(text: &str) -> Db {
        let db = Db::open_with(None, &["CREATE TABLE IF NOT EXISTS notes (text TEXT)"]).unwrap();
        db.ensure_conversation("c").unwrap();
        let note = CustomPayload::new(Note::NAME, json!({ "text": text }));
        db.add_payload("c", 0, &note, &json!({"current_page": "p"}))
            .unwrap();
        db
    }

    fn notes(db: &Db) -> i64 {
        db.conn()
            .query_row("SELECT COUNT(*) FROM notes", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn an_accept_runs_the_handler_once_and_a_second_decision_is_refused() {
        let db = db_with("milk");
        let decided = db
            .decide(
                "c",
                0,
                &Decision::Accept {
                    options: json!({"x": 1}),
                },
                &handlers(),
            )
            .unwrap();
        assert_eq!(decided.status, PayloadStatus::Accepted);
        assert_eq!(
            decided.applied,
            Some(json!({"kept": "milk", "options": {"x": 1}}))
        );
        for again in [Decision::accept(), Decision::Dismiss] {
            assert!(matches!(
                db.decide("c", 0, &again, &handlers()),
                Err(DecideError::AlreadyDecided(PayloadStatus::Accepted))
            ));
        }
        assert_eq!(notes(&db), 1);
    }

    #[test]
    fn a_failed_handler_changes_nothing_and_leaves_it_proposed() {
        let db = db_with("fail");
        assert!(matches!(
            db.decide("c", 0, &Decision::accept(), &handlers()),
            Err(DecideError::Handler(_))
        ));
        assert_eq!(db.payloads("c").unwrap()[0].status, PayloadStatus::Proposed);
        assert_eq!(
            db.decide("c", 0, &Decision::Dismiss, &handlers())
                .unwrap()
                .status,
            PayloadStatus::Dismissed
        );
        assert_eq!(notes(&db), 0);
    }

    #[test]
    fn a_type_without_a_handler_cannot_be_decided() {
        let db = db_with("milk");
        assert!(matches!(
            db.decide("c", 0, &Decision::Dismiss, &Handlers::new()),
            Err(DecideError::NoHandler(kind)) if kind == "note"
        ));
        assert_eq!(db.payloads("c").unwrap()[0].status, PayloadStatus::Proposed);
        assert_eq!(
            db.payloads("c").unwrap()[0].context,
            json!({"current_page": "p"})
        );
    }
}
