//! How accepting a proposal scales: the time to apply a create of n columns, an update
//! adding n columns, and an update moving n columns, for n and 4n. Linear work gives
//! ratios near 4; the old apply (every position rewritten per operation, ids probed
//! one by one) gave about 16. `cargo bench -p table-that-web --bench apply`.

use payload_builtin::SchemaProposal;
use payload_serve::Db;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use table_that_web::Tables;

fn add(i: usize) -> Value {
    // Names that collapse to one id: the worst case for id numbering.
    json!({"action": "add", "column": {"name": if i % 2 == 0 { "Name" } else { "name!" }, "type": "text"}})
}

fn proposal(value: Value) -> SchemaProposal {
    serde_json::from_value(value).unwrap()
}

/// The best of nine runs of `apply` on a fresh database prepared by `setup`.
fn time(setup: impl Fn(&Db) -> Option<i64>, apply: impl Fn(&Db, Option<i64>)) -> Duration {
    (0..9)
        .map(|_| {
            let db = table_that_web::open_db(None).unwrap();
            let table = setup(&db);
            let started = Instant::now();
            apply(&db, table);
            started.elapsed()
        })
        .min()
        .unwrap()
}

fn create(n: usize) -> Duration {
    let p = proposal(json!({
        "mode": "create", "table_name": "t", "table_description": "d",
        "operations": (0..n).map(add).collect::<Vec<_>>(),
    }));
    time(|_| None, |db, _| drop(db.apply_schema(&p, None).unwrap()))
}

fn with_rows(db: &Db, columns: usize) -> Option<i64> {
    let p = proposal(json!({
        "mode": "create", "table_name": "t", "table_description": "d",
        "operations": (0..columns).map(add).collect::<Vec<_>>(),
        "sample_rows": [{"Name": "a"}, {"Name": "b"}],
    }));
    Some(db.apply_schema(&p, None).unwrap().table_id)
}

fn update_adding(n: usize) -> Duration {
    let p = proposal(json!({"mode": "update", "operations": (0..n).map(add).collect::<Vec<_>>()}));
    time(
        |db| with_rows(db, 1),
        |db, t| drop(db.apply_schema(&p, t).unwrap()),
    )
}

fn update_moving(n: usize) -> Duration {
    let moves: Vec<Value> = (0..n)
        .map(|i| {
            let id = if i == 0 {
                "col_name".to_string()
            } else {
                format!("col_name_{}", i + 1)
            };
            json!({"action": "reorder", "column_id": id})
        })
        .collect();
    let p = proposal(json!({"mode": "update", "operations": moves}));
    time(
        |db| with_rows(db, n),
        |db, t| drop(db.apply_schema(&p, t).unwrap()),
    )
}

/// The floor: SQLite itself creating a table of n columns (what a create must do).
fn sqlite_create(n: usize) -> Duration {
    (0..9)
        .map(|_| {
            let conn = rusqlite::Connection::open_in_memory().unwrap();
            let columns: String = (0..n).map(|i| format!(", c{i}")).collect();
            let started = Instant::now();
            conn.execute_batch(&format!(
                "CREATE TABLE t (row_id INTEGER PRIMARY KEY{columns})"
            ))
            .unwrap();
            started.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let n = 250;
    println!(
        "{:<16} {:>10} {:>10} {:>6}",
        "apply",
        format!("{n} ops"),
        format!("{} ops", 4 * n),
        "ratio"
    );
    for (name, run) in [
        ("sqlite alone", sqlite_create as fn(usize) -> Duration),
        ("create", create),
        ("update adding", update_adding),
        ("update moving", update_moving),
    ] {
        let (small, large) = (run(n), run(4 * n - 1));
        println!(
            "{name:<16} {:>8.1}ms {:>8.1}ms {:>6.1}",
            small.as_secs_f64() * 1e3,
            large.as_secs_f64() * 1e3,
            large.as_secs_f64() / small.as_secs_f64()
        );
    }
}
