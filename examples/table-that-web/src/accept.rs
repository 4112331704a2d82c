//! What accepting table.that's proposals does, run by the chat server inside the
//! transaction that records the decision (`payload_serve::Db::decide`): a
//! SCHEMA_PROPOSAL creates or alters a real table, a DATA_PROPOSAL changes the rows of
//! the table the page showed, only the operations the user left ticked. A failure
//! changes nothing and leaves the proposal proposed.

use crate::apply::{self, ApplyError};
use payload_builtin::{DataProposal, SchemaProposal};
use payload_serve::{Accepted, ApiError, Tx};
use serde::Deserialize;
use serde_json::Value;

/// What the user sends with an accept: a JSON object.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DataChoices {
    /// For a data proposal: the indices of the operations left ticked (all when absent).
    #[serde(default)]
    rows: Option<Vec<usize>>,
}

/// The table the page showed when the proposal was made.
fn table_of(context: &Value) -> Option<i64> {
    context.get("table_id").and_then(Value::as_i64)
}

/// Accepting a schema proposal: a new table (create mode) or changes to the columns of
/// the table the page showed (update mode).
/// table.that's tables are SQLite's (each user table is a real SQLite table), so it
/// applies through the transaction's SQLite connection; on another database the
/// decision fails, changing nothing.
pub async fn schema(tx: Tx, accepted: Accepted<SchemaProposal>) -> Result<Value, ApiError> {
    // The same choices as a data proposal's are read (and `rows` has nothing to pick
    // here), so one decision body fits both, as it always did; anything else is refused.
    choices(&accepted.options)?;
    let table = table_of(&accepted.context);
    let applied = tx
        .with_sqlite(move |conn| apply::schema(conn, &accepted.payload, table))
        .await?
        .map_err(api_error)?;
    Ok(serde_json::to_value(applied).unwrap_or_default())
}

/// Accepting a data proposal: its ticked operations on the table the page showed.
pub async fn data(tx: Tx, accepted: Accepted<DataProposal>) -> Result<Value, ApiError> {
    let choices = choices(&accepted.options)?;
    let table = table_of(&accepted.context).ok_or_else(|| api_error(ApplyError::NoTable))?;
    let applied = tx
        .with_sqlite(move |conn| {
            apply::data(conn, &accepted.payload, table, choices.rows.as_deref())
        })
        .await?
        .map_err(api_error)?;
    Ok(serde_json::to_value(applied).unwrap_or_default())
}

/// The user's choices sent with the decision.
fn choices(options: &Value) -> Result<DataChoices, ApiError> {
    DataChoices::deserialize(options)
        .map_err(|e| ApiError::bad_request(format!("the decision's options: {e}")))
}

/// The apply error as the API answers it: a proposal for a table that is gone, or one
/// that would make it too wide, is a conflict; a database failure is the server's.
fn api_error(e: ApplyError) -> ApiError {
    match e {
        ApplyError::NoTable | ApplyError::TooManyColumns { .. } => {
            ApiError::conflict(e.to_string())
        }
        ApplyError::Sql(e) => e.into(),
    }
}

#[cfg(test)]
mod tests {
    use crate::{SqliteConn, Tables};
    use payload_core::CustomPayload;
    use payload_prompt::PayloadStatus;
    use payload_serve::{Db, DecideError, Decision, ProposalKey};
    use serde_json::json;

    async fn accept(db: &Db) -> Result<payload_serve::Decided, DecideError> {
        let key = ProposalKey {
            conversation: "c",
            turn: 0,
            index: 0,
        };
        db.decide(key, &Decision::accept(), &crate::handlers())
            .await
    }

    /// A database with one table and a data proposal on it, proposed in turn 0.
    async fn proposed() -> (Db, i64) {
        let db = crate::open_db(None).unwrap();
        let create: payload_builtin::SchemaProposal = serde_json::from_value(json!({
            "mode": "create", "table_name": "t", "table_description": "d",
            "operations": [{"action": "add", "column": {"name": "A", "type": "text"}}],
        }))
        .unwrap();
        let table = db.apply_schema(&create, None).unwrap().table_id;
        db.ensure_conversation("c").await.unwrap();
        let rows = json!({"operations": [{"action": "add", "data": {"A": "x"}}]});
        db.add_payload(
            "c",
            0,
            0,
            &CustomPayload::new("data_proposal", rows),
            &json!({ "table_id": table }),
        )
        .await
        .unwrap();
        (db, table)
    }

    async fn status(db: &Db) -> PayloadStatus {
        db.payloads("c").await.unwrap()[0].status
    }

    #[tokio::test]
    async fn an_apply_that_fails_after_the_status_moved_leaves_it_proposed() {
        let (db, table) = proposed().await;
        // The apply fails after the compare-and-set has run (as a crash there would
        // stop it): the data table is gone.
        db.conn()
            .execute_batch(&format!("DROP TABLE data_{table}"))
            .unwrap();
        assert!(matches!(accept(&db).await, Err(DecideError::Handler(_))));
        assert_eq!(status(&db).await, PayloadStatus::Proposed);
        // Once the table is back, the same proposal is accepted, once.
        db.conn()
            .execute_batch(&format!(
                "CREATE TABLE data_{table} (row_id INTEGER PRIMARY KEY AUTOINCREMENT, c1)"
            ))
            .unwrap();
        assert_eq!(accept(&db).await.unwrap().status, PayloadStatus::Accepted);
        assert!(matches!(
            accept(&db).await,
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

    #[tokio::test]
    async fn a_decision_survives_reopening_the_file_or_is_not_there_at_all() {
        let dir = std::env::temp_dir().join(format!("payload-decide-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        {
            let db = crate::open_db(Some(&dir)).unwrap();
            db.ensure_conversation("c").await.unwrap();
            let create = json!({
                "mode": "create", "table_name": "t", "table_description": "d",
                "operations": [{"action": "add", "column": {"name": "A", "type": "text"}}],
                "sample_rows": [{"A": "x"}, {"A": "y"}],
            });
            db.add_payload(
                "c",
                0,
                0,
                &CustomPayload::new("schema_proposal", create),
                &serde_json::Value::Null,
            )
            .await
            .unwrap();
            accept(&db).await.unwrap();
        }
        let db = crate::open_db(Some(&dir)).unwrap();
        assert_eq!(status(&db).await, PayloadStatus::Accepted);
        assert_eq!(crate::tables::list(&db.conn()).unwrap().len(), 1);
        assert!(matches!(
            accept(&db).await,
            Err(DecideError::AlreadyDecided(_))
        ));
        drop(db);
        let _ = std::fs::remove_file(&dir);
    }
}
