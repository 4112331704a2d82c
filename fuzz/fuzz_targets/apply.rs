//! Accepting proposals keeps the database sound on any input: the bytes are read as a
//! JSON list of steps (`{"schema": proposal}` or `{"data": proposal, "keep": [..]}`)
//! applied to a table created by the first schema step. Applying never fails on a
//! table that exists, every operation is counted once (applied or skipped with a
//! reason), and the app's column metadata agrees with SQLite's tables after each step.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_builtin::{DataProposal, SchemaProposal};
use payload_serve::Db;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(steps)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let db = Db::open(None).unwrap();
    let mut table = None;
    for step in steps.iter().take(16) {
        if let Some(proposal) = step.get("schema") {
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
});
