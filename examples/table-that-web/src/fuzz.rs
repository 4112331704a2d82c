//! The `apply` fuzz target's body, callable on a stable compiler: the target is one call
//! to [`apply`], and the server tests replay the target's seeds and every saved finding
//! through it. Not part of the app's API.
//!
//! Accepting proposals keeps the database sound on any input: the bytes are read as a
//! JSON list of steps (`{"schema": proposal}` or `{"data": proposal, "keep": [..]}`)
//! applied to a table created by the first schema step. Applying never fails on a
//! table that exists, every operation is counted once (applied or skipped with a
//! reason), and the app's column metadata agrees with SQLite's tables after each step.
//!
//! A step `{"propose": {"type": ..., "data": ...}, "decisions": ["accept", "dismiss",
//! {"rows": [..]}, ...]}` stores the payload as a turn's proposal and decides it again
//! and again: at most one decision succeeds, every one after it is refused as already
//! decided and changes no table, and a failed one leaves the payload `proposed`.
//! Recording a proposal for that turn again is refused and changes nothing.

use crate::SqliteConn;
use crate::Tables;
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::CustomPayload;
use payload_serve::{Db, DecideError, Decision, ProposalKey};
use serde_json::{Value, json};

/// Reads `data` as a JSON list of steps and applies them, panicking when a guarantee
/// (above) is broken; bytes that are not such a list do nothing.
pub fn apply(data: &[u8]) {
    let Ok(Value::Array(steps)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    // The store is async; one thread runs it here as it does under the server.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(apply_steps(&steps));
}

/// Applies `steps` (see [`apply`]).
async fn apply_steps(steps: &[Value]) {
    let db = crate::open_db(None).unwrap();
    let handlers = crate::handlers();
    db.ensure_conversation("c").await.unwrap();
    let mut table = None;
    for (turn, step) in steps.iter().take(16).enumerate() {
        if let Some(proposed) = step.get("propose") {
            let kind = proposed.get("type").and_then(Value::as_str).unwrap_or("x");
            let payload =
                CustomPayload::new(kind, proposed.get("data").cloned().unwrap_or(Value::Null));
            let context = table.map_or(Value::Null, |id| json!({ "table_id": id }));
            db.add_payload("c", turn, 0, &payload, &context)
                .await
                .unwrap();
            let mut decided = false;
            let decisions = step
                .get("decisions")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for decision in decisions.iter().take(4) {
                let decision = match decision {
                    Value::String(s) if s == "dismiss" => Decision::Dismiss,
                    other => Decision::Accept {
                        options: match other.get("rows") {
                            Some(rows) => json!({ "rows": rows }),
                            None => json!({}),
                        },
                    },
                };
                let tables_before = db.check().map(|()| tables(&db));
                let key = ProposalKey {
                    conversation: "c",
                    turn,
                    index: 0,
                };
                match db.decide(key, &decision, &handlers).await {
                    Ok(_) => {
                        assert!(!decided, "a payload was decided twice");
                        decided = true;
                    }
                    Err(DecideError::AlreadyDecided(_)) => {
                        assert!(decided, "refused as decided before any decision");
                        assert_eq!(db.check().map(|()| tables(&db)), tables_before);
                    }
                    Err(_) => {
                        assert!(!decided);
                        let status = db
                            .payloads("c")
                            .await
                            .unwrap()
                            .into_iter()
                            .find(|p| p.turn == turn)
                            .unwrap()
                            .status;
                        assert_eq!(
                            status.as_str(),
                            "proposed",
                            "a failed decision left its mark"
                        );
                        assert_eq!(db.check().map(|()| tables(&db)), tables_before);
                    }
                }
            }
            // A turn proposes once: a second record is an error, never a silent
            // replacement nor a decided payload set back to `proposed`.
            let before = db.payloads("c").await.unwrap();
            assert!(
                db.add_payload("c", turn, 0, &payload, &context)
                    .await
                    .is_err()
            );
            assert_eq!(db.payloads("c").await.unwrap(), before);
        } else if let Some(proposal) = step.get("schema") {
            let Ok(proposal) = serde_json::from_value::<SchemaProposal>(proposal.clone()) else {
                continue;
            };
            match db.apply_schema(&proposal, table) {
                Ok(applied) => {
                    assert_eq!(
                        applied.applied + applied.skipped.len(),
                        proposal.operations.len()
                    );
                    table.get_or_insert(applied.table_id);
                }
                // Only an update with no table may fail.
                Err(e) => assert!(table.is_none(), "{e}"),
            }
        } else if let (Some(proposal), Some(id)) = (step.get("data"), table) {
            let Ok(proposal) = serde_json::from_value::<DataProposal>(proposal.clone()) else {
                continue;
            };
            let keep: Option<Vec<usize>> = step
                .get("keep")
                .and_then(|k| serde_json::from_value(k.clone()).ok());
            let applied = db.apply_data(&proposal, id, keep.as_deref()).unwrap();
            let considered = (0..proposal.operations.len())
                .filter(|i| keep.as_ref().is_none_or(|k| k.contains(i)))
                .count();
            assert_eq!(applied.applied + applied.skipped.len(), considered);
        }
        assert_eq!(db.check(), Ok(()));
    }
}

/// How many tables there are and how many columns and rows each has.
fn tables(db: &Db) -> Vec<(i64, usize, usize)> {
    let conn = db.conn();
    let mut statement = conn
        .prepare("SELECT id FROM app_tables ORDER BY id")
        .unwrap();
    let ids: Vec<i64> = statement
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    ids.into_iter()
        .map(|id| {
            let columns: usize = conn
                .query_row(
                    "SELECT COUNT(*) FROM app_columns WHERE table_id = ?1",
                    [id],
                    |r| r.get(0),
                )
                .unwrap();
            let rows: usize = conn
                .query_row(&format!("SELECT COUNT(*) FROM data_{id}"), [], |r| r.get(0))
                .unwrap();
            (id, columns, rows)
        })
        .collect()
}
