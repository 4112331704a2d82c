//! Invariants of applying proposals, over random sequences of them (names hostile to
//! SQL included): applying never fails on a table that exists, every operation is
//! counted once (applied or skipped with a reason), and the app's column metadata
//! always agrees with SQLite's tables.

use payload_builtin::{DataProposal, SchemaProposal};
use payload_serve::Db;
use proptest::prelude::*;
use serde_json::{Value, json};
use table_that_web::Tables;

const NAMES: &[&str] = &[
    "Name",
    "name",
    "Stage",
    "c1",
    "row_id",
    "\"; DROP TABLE app_tables; --",
    "Ünïcode ✓",
    "a'b",
    "",
];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(NAMES).prop_map(str::to_string)
}

/// Ids of columns that may or may not exist.
fn column_id() -> impl Strategy<Value = String> {
    prop_oneof![
        name().prop_map(|n| format!("col_{}", n.to_lowercase())),
        Just("col_name_2".to_string()),
        Just("nope".to_string()),
    ]
}

fn column() -> impl Strategy<Value = Value> {
    (
        name(),
        prop::sample::select(&["text", "number", "date", "boolean", "select"][..]),
    )
        .prop_map(|(name, kind)| json!({"name": name, "type": kind, "options": ["A", "B"]}))
}

fn schema_operation() -> impl Strategy<Value = Value> {
    prop_oneof![
        (column(), prop::option::of(column_id())).prop_map(|(column, after)| json!({"action": "add", "column": column, "after_column_id": after})),
        (column_id(), name()).prop_map(|(id, name)| json!({"action": "modify", "column_id": id, "changes": {"name": name, "type": "select", "options": ["x"]}})),
        column_id().prop_map(|id| json!({"action": "remove", "column_id": id})),
        (column_id(), prop::option::of(column_id())).prop_map(|(id, after)| json!({"action": "reorder", "column_id": id, "after_column_id": after})),
    ]
}

fn cell() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!({"nested": [1, 2]})),
    ]
}

fn row() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(name(), cell(), 0..4).prop_map(|m| json!(m))
}

fn data_operation() -> impl Strategy<Value = Value> {
    prop_oneof![
        row().prop_map(|data| json!({"action": "add", "data": data})),
        (0u64..8, row()).prop_map(
            |(id, changes)| json!({"action": "update", "row_id": id, "changes": changes})
        ),
        prop_oneof![0u64..8, Just(u64::MAX)]
            .prop_map(|id| json!({"action": "delete", "row_id": id})),
    ]
}

#[derive(Debug, Clone)]
enum Step {
    Schema(Value),
    Data(Value, Option<Vec<usize>>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        prop::collection::vec(schema_operation(), 0..5)
            .prop_map(|ops| Step::Schema(json!({"mode": "update", "operations": ops}))),
        (
            prop::collection::vec(data_operation(), 0..6),
            prop::option::of(prop::collection::vec(0usize..6, 0..4))
        )
            .prop_map(|(ops, keep)| Step::Data(json!({"operations": ops}), keep)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_operation_is_counted_and_the_metadata_agrees_with_sqlite(
        columns in prop::collection::vec(column(), 0..4),
        samples in prop::collection::vec(row(), 0..3),
        steps in prop::collection::vec(step(), 0..8),
    ) {
        let db = table_that_web::open_db(None).unwrap();
        let create = json!({
            "mode": "create", "table_name": "\"t\"; --", "table_description": "d",
            "operations": columns.iter().map(|c| json!({"action": "add", "column": c})).collect::<Vec<_>>(),
            "sample_rows": samples,
        });
        let create: SchemaProposal = serde_json::from_value(create).unwrap();
        let applied = db.apply_schema(&create, None).unwrap();
        prop_assert_eq!(applied.applied + applied.skipped.len(), columns.len());
        let table = applied.table_id;
        prop_assert_eq!(db.check(), Ok(()));
        for step in steps {
            match step {
                Step::Schema(proposal) => {
                    let proposal: SchemaProposal = serde_json::from_value(proposal).unwrap();
                    let applied = db.apply_schema(&proposal, Some(table)).unwrap();
                    prop_assert_eq!(applied.applied + applied.skipped.len(), proposal.operations.len());
                }
                Step::Data(proposal, keep) => {
                    let proposal: DataProposal = serde_json::from_value(proposal).unwrap();
                    let applied = db.apply_data(&proposal, table, keep.as_deref()).unwrap();
                    let considered = (0..proposal.operations.len())
                        .filter(|i| keep.as_ref().is_none_or(|k| k.contains(i)))
                        .count();
                    prop_assert_eq!(applied.applied + applied.skipped.len(), considered);
                    for skipped in &applied.skipped {
                        prop_assert!(!skipped.reason.is_empty());
                    }
                }
            }
            prop_assert_eq!(db.check(), Ok(()));
        }
        prop_assert!(db.apply_data(&DataProposal { reasoning: None, operations: vec![] }, table + 1, None).is_err(), "no such table");
    }
}

/// A decision on a stored proposal.
fn decision() -> impl Strategy<Value = payload_serve::Decision> {
    prop_oneof![
        prop::option::of(prop::collection::vec(0usize..6, 0..4)).prop_map(|rows| {
            payload_serve::Decision::Accept {
                options: match rows {
                    Some(rows) => json!({ "rows": rows }),
                    None => json!({}),
                },
            }
        }),
        Just(payload_serve::Decision::Dismiss),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// However a stored proposal is decided, and however often, the first decision is
    /// the only one: it applies the proposal at most once (an accept), and every later
    /// one is refused as already decided and changes nothing.
    #[test]
    fn a_proposal_is_decided_and_applied_at_most_once(
        columns in prop::collection::vec(column(), 1..4),
        rows in prop::collection::vec(data_operation(), 1..6),
        decisions in prop::collection::vec(decision(), 1..5),
        data in any::<bool>(),
    ) {
        use payload_core::CustomPayload;
        use payload_serve::{DecideError, Decision, ProposalKey};
        use table_that_web::SqliteConn;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let db = table_that_web::open_db(None).unwrap();
        let create = json!({
            "mode": "create", "table_name": "t", "table_description": "d",
            "operations": columns.iter().map(|c| json!({"action": "add", "column": c})).collect::<Vec<_>>(),
        });
        let table = db.apply_schema(&serde_json::from_value(create.clone()).unwrap(), None).unwrap().table_id;
        let payload = if data {
            CustomPayload::new("data_proposal", json!({"operations": rows}))
        } else {
            CustomPayload::new("schema_proposal", create)
        };
        runtime.block_on(db.ensure_conversation("c")).unwrap();
        runtime.block_on(db.add_payload("c", 0, 0, &payload, &json!({ "table_id": table }))).unwrap();
        let key = ProposalKey { conversation: "c", turn: 0, index: 0 };
        let snapshot = |db: &Db| payload_serve_tables(&db.conn());
        let before = snapshot(&db);
        let handlers = table_that_web::handlers();
        let first = runtime.block_on(db.decide(key, &decisions[0], &handlers));
        prop_assert!(first.is_ok(), "{:?}", first);
        let after_first = snapshot(&db);
        if decisions[0] == Decision::Dismiss {
            prop_assert_eq!(&before, &after_first, "a dismissal applies nothing");
        }
        for later in &decisions[1..] {
            let again = runtime.block_on(db.decide(key, later, &handlers));
            prop_assert!(matches!(again, Err(DecideError::AlreadyDecided(_))), "{:?}", again);
            prop_assert_eq!(&snapshot(&db), &after_first, "a later decision changed nothing");
            // Recording the proposal again is refused, and does not make it decidable again.
            let again = runtime.block_on(db.add_payload("c", 0, 0, &payload, &json!({ "table_id": table })));
            prop_assert!(again.is_err(), "{:?}", again);
        }
        prop_assert_eq!(db.check(), Ok(()));
    }
}

/// Every table's name and SQLite contents, as text: what an application changes.
fn payload_serve_tables(conn: &rusqlite::Connection) -> String {
    let mut out = String::new();
    let mut statement = conn
        .prepare("SELECT id FROM app_tables ORDER BY id")
        .unwrap();
    let ids: Vec<i64> = statement
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for id in ids {
        let mut rows = conn.prepare(&format!("SELECT * FROM data_{id}")).unwrap();
        let width = rows.column_count();
        let values: Vec<String> = rows
            .query_map([], |r| {
                Ok((0..width)
                    .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                    .collect::<Vec<_>>()
                    .join(","))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        out.push_str(&format!("{id}: {width} columns, rows {values:?}\n"));
    }
    out
}

/// The `apply` fuzz target's body (`table_that_web::fuzz::apply`) on its seeds
/// (`fuzz/corpus/apply`) and on every saved finding of any target
/// (`fuzz/artifacts-replay`): what a fuzzer checks on a machine with a nightly compiler,
/// checked by `cargo test` everywhere.
#[test]
fn the_fuzz_seeds_and_findings_hold_the_apply_targets_checks() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut seeds = 0;
    for dir in ["corpus/apply", "artifacts-replay"] {
        let entries = std::fs::read_dir(fuzz.join(dir)).expect("the fuzz folders are checked in");
        for entry in entries.flatten() {
            table_that_web::fuzz::apply(&std::fs::read(entry.path()).unwrap());
            seeds += usize::from(dir == "corpus/apply");
        }
    }
    assert!(seeds >= 1, "the apply seeds are checked in");
}
