//! The user's decision on a proposed payload, as one compare-and-set: inside one
//! SQLite transaction the status moves from `proposed` (only if it still is) and the
//! proposal is applied, so both happen or neither does. However many accepts race, and
//! wherever the process stops, a proposal is applied at most once and its status says
//! whether it was.

use crate::apply::{self, Applied, ApplyError};
use crate::db::{Db, payload_row};
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::LlmPayload;
use payload_prompt::PayloadStatus;
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use std::fmt;

/// What the user decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Apply it; for a data proposal, only the operations at `rows` when given.
    Accept {
        /// The indices of the operations left ticked (all when `None`).
        rows: Option<Vec<usize>>,
    },
    /// Refuse it.
    Dismiss,
}

/// What a decision did.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    /// The payload's status now.
    pub status: PayloadStatus,
    /// What accepting applied (`None` for a dismissal, or a type the app only records).
    pub applied: Option<Applied>,
}

/// Why a decision was not made (nothing changed).
#[derive(Debug)]
pub enum DecideError {
    /// No payload was proposed in that turn.
    NotFound,
    /// It was decided before.
    AlreadyDecided(PayloadStatus),
    /// The stored payload is not the type it says it is.
    Corrupt(String),
    /// Applying it failed.
    Apply(ApplyError),
}

impl fmt::Display for DecideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecideError::NotFound => f.write_str("no payload was proposed in that turn"),
            DecideError::AlreadyDecided(status) => write!(f, "the payload was already {status}"),
            DecideError::Corrupt(why) => write!(f, "the stored payload cannot be read: {why}"),
            DecideError::Apply(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DecideError {}

impl From<rusqlite::Error> for DecideError {
    fn from(e: rusqlite::Error) -> Self {
        DecideError::Apply(ApplyError::Sql(e))
    }
}

impl From<ApplyError> for DecideError {
    fn from(e: ApplyError) -> Self {
        DecideError::Apply(e)
    }
}

impl Db {
    /// Decides the payload proposed in `turn` of `conversation`: the status check, the
    /// status change and the apply are one transaction, begun with the write lock
    /// taken (`BEGIN IMMEDIATE`), so a second decision, in this process or another on
    /// the same file, sees the first's outcome whole or not at all.
    pub fn decide(
        &self,
        conversation: &str,
        turn: usize,
        decision: &Decision,
    ) -> Result<Decided, DecideError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let stored = tx
            .query_row(
                "SELECT turn, type, data, status, table_id FROM payloads
                 WHERE conversation_id = ?1 AND turn = ?2",
                params![conversation, turn as i64],
                payload_row,
            )
            .optional()?
            .ok_or(DecideError::NotFound)?;
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
            Decision::Accept { rows } => {
                let data = stored.payload.data().clone();
                let corrupt = |e: serde_json::Error| DecideError::Corrupt(e.to_string());
                match stored.payload.kind.as_str() {
                    SchemaProposal::NAME => {
                        let proposal: SchemaProposal =
                            serde_json::from_value(data).map_err(corrupt)?;
                        Some(apply::schema(&tx, &proposal, stored.table_id)?)
                    }
                    DataProposal::NAME => {
                        let proposal: DataProposal =
                            serde_json::from_value(data).map_err(corrupt)?;
                        let table = stored.table_id.ok_or(ApplyError::NoTable)?;
                        Some(apply::data(&tx, &proposal, table, rows.as_deref())?)
                    }
                    _ => None,
                }
            }
        };
        tx.commit()?;
        Ok(Decided { status, applied })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use payload_core::CustomPayload;
    use serde_json::json;

    /// A database with one table and a data proposal on it, proposed in turn 0.
    fn proposed() -> (Db, i64) {
        let db = Db::open(None).unwrap();
        let create: SchemaProposal = serde_json::from_value(json!({
            "mode": "create", "table_name": "t", "table_description": "d",
            "operations": [{"action": "add", "column": {"name": "A", "type": "text"}}],
        }))
        .unwrap();
        let table = db.apply_schema(&create, None).unwrap().table_id;
        db.ensure_conversation("c").unwrap();
        let rows = json!({"operations": [{"action": "add", "data": {"A": "x"}}]});
        db.add_payload(
            "c",
            0,
            &CustomPayload::new("data_proposal", rows),
            Some(table),
        )
        .unwrap();
        (db, table)
    }

    fn status(db: &Db) -> PayloadStatus {
        db.payloads("c").unwrap()[0].status
    }

    #[test]
    fn an_apply_that_fails_after_the_status_moved_leaves_it_proposed() {
        let (db, table) = proposed();
        // The apply fails after the compare-and-set has run (as a crash there would
        // stop it): the data table is gone.
        db.conn()
            .execute_batch(&format!("DROP TABLE data_{table}"))
            .unwrap();
        let accept = Decision::Accept { rows: None };
        assert!(matches!(
            db.decide("c", 0, &accept),
            Err(DecideError::Apply(ApplyError::Sql(_)))
        ));
        assert_eq!(status(&db), PayloadStatus::Proposed);
        // Once the table is back, the same proposal is accepted, once.
        db.conn()
            .execute_batch(&format!(
                "CREATE TABLE data_{table} (row_id INTEGER PRIMARY KEY AUTOINCREMENT, c1)"
            ))
            .unwrap();
        assert_eq!(
            db.decide("c", 0, &accept).unwrap().status,
            PayloadStatus::Accepted
        );
        assert!(matches!(
            db.decide("c", 0, &accept),
            Err(DecideError::AlreadyDecided(PayloadStatus::Accepted))
        ));
        let rows: i64 = db
            .conn()
            .query_row(&format!("SELECT COUNT(*) FROM data_{table}"), [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(rows, 1);
    }

    #[test]
    fn a_decision_survives_reopening_the_file_or_is_not_there_at_all() {
        let dir = std::env::temp_dir().join(format!("payload-decide-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        {
            let db = Db::open(Some(&dir)).unwrap();
            db.ensure_conversation("c").unwrap();
            let create = json!({
                "mode": "create", "table_name": "t", "table_description": "d",
                "operations": [{"action": "add", "column": {"name": "A", "type": "text"}}],
                "sample_rows": [{"A": "x"}, {"A": "y"}],
            });
            db.add_payload("c", 0, &CustomPayload::new("schema_proposal", create), None)
                .unwrap();
            db.decide("c", 0, &Decision::Accept { rows: None }).unwrap();
        }
        let db = Db::open(Some(&dir)).unwrap();
        assert_eq!(status(&db), PayloadStatus::Accepted);
        assert_eq!(crate::tables::list(&db.conn()).unwrap().len(), 1);
        assert!(matches!(
            db.decide("c", 0, &Decision::Accept { rows: None }),
            Err(DecideError::AlreadyDecided(_))
        ));
        drop(db);
        let _ = std::fs::remove_file(&dir);
    }
}
