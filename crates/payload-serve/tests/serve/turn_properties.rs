//! The storage layer's invariants under any sequence of what clients do: conversations
//! started from the client's history (a page open across a restart), turns on them
//! with whatever history the client claims, turns recorded at once on one
//! conversation (two processes on one file), turns without an answer, and decisions.
//! Whatever the sequence, turns are unique within a conversation, every proposal is
//! stored under its (turn, index) (none lost), and each decision applies exactly the
//! proposal its card names, once. The same sequences run on SQLite and on a PostgreSQL
//! server of the test's own (skipped, saying so, when PostgreSQL is not installed).

use crate::app::ShoppingList;
use payload_core::{CustomPayload, LlmPayload};
use payload_prompt::PayloadStatus;
use payload_serve::{Accepted, Db, DecideError, Decision, Handlers, ProposalKey, Tx, TxMode};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// What a turn ends with.
#[derive(Debug, Clone, Copy)]
enum Outcome {
    /// An answer proposing lists (one to three).
    Proposal(usize),
    /// An answer with no payload.
    Answer,
    /// No answer (the client went away, the deadline passed).
    Interrupted,
}

/// One thing a client does.
#[derive(Debug, Clone)]
enum Step {
    /// A conversation the server does not know starts, the client's history holding
    /// `history` earlier user messages, with a first turn.
    Start { history: usize, outcome: Outcome },
    /// A turn on a conversation, the client claiming `claimed` earlier messages.
    Turn {
        conversation: usize,
        claimed: usize,
        outcome: Outcome,
    },
    /// `count` turns proposing at once on one conversation.
    AtOnce { conversation: usize, count: usize },
    /// A decision on a card.
    Decide { card: usize, accept: bool },
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        3 => (1..=3usize).prop_map(Outcome::Proposal),
        1 => Just(Outcome::Answer),
        1 => Just(Outcome::Interrupted),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => (0..5usize, outcome()).prop_map(|(history, outcome)| Step::Start { history, outcome }),
        4 => (any::<usize>(), 0..6usize, outcome()).prop_map(|(conversation, claimed, outcome)| {
            Step::Turn { conversation, claimed, outcome }
        }),
        1 => (any::<usize>(), 2..4usize).prop_map(|(conversation, count)| Step::AtOnce { conversation, count }),
        3 => (any::<usize>(), any::<bool>()).prop_map(|(card, accept)| Step::Decide { card, accept }),
    ]
}

/// A card as the client holds it: where its proposal is, what it says, and what the
/// user did with it.
#[derive(Debug, Clone)]
struct Card {
    conversation: String,
    turn: usize,
    index: usize,
    store: String,
    status: PayloadStatus,
}

/// Saves an accepted list in `lists`, answering its store.
async fn save(tx: Tx, accepted: Accepted<ShoppingList>) -> Result<Value, payload_serve::ApiError> {
    let items = accepted.payload.items.len() as i64;
    tx.execute(
        "INSERT INTO lists (store, items) VALUES ($1, $2)",
        &[&accepted.payload.store, &items],
    )
    .await?;
    Ok(json!({ "store": accepted.payload.store }))
}

fn handlers() -> Handlers {
    Handlers::new().on_accept(save)
}

/// The app's table, on either database.
const LISTS: &str =
    "CREATE TABLE IF NOT EXISTS lists (store TEXT NOT NULL, items INTEGER NOT NULL)";

/// A list named `store`.
fn list(store: &str) -> CustomPayload {
    CustomPayload::new(
        ShoppingList::NAME,
        json!({"store": store, "items": [{"name": "milk", "count": 1, "aisle": "dairy"}]}),
    )
}

/// One turn as the server records it: the user's message (numbered by the database),
/// then its outcome. The cards, when it proposed (`stores`, one a proposal).
async fn turn(
    db: &Db,
    conversation: &str,
    claimed: usize,
    outcome: Outcome,
    stores: &[String],
) -> Vec<Card> {
    let turn = db
        .add_user_message(conversation, claimed, "a question")
        .await
        .expect("a turn is always numbered");
    match outcome {
        Outcome::Proposal(_) => {
            let proposals: Vec<CustomPayload> = stores.iter().map(|s| list(s)).collect();
            db.add_answer(
                conversation,
                turn,
                "Here.",
                &json!({}),
                &proposals,
                &Value::Null,
            )
            .await
            .expect("the proposals are always stored");
            return stores
                .iter()
                .enumerate()
                .map(|(index, store)| Card {
                    conversation: conversation.to_string(),
                    turn,
                    index,
                    store: store.clone(),
                    status: PayloadStatus::Proposed,
                })
                .collect();
        }
        Outcome::Answer => db
            .add_answer(conversation, turn, "Sure.", &json!({}), &[], &Value::Null)
            .await
            .unwrap(),
        Outcome::Interrupted => db
            .add_interrupted(conversation, turn, "the client went away")
            .await
            .unwrap(),
    }
    Vec::new()
}

/// Runs `steps` on `db`, checking every invariant.
async fn run(db: Db, steps: Vec<Step>) -> Result<(), TestCaseError> {
    let handlers = handlers();
    let mut conversations: Vec<String> = Vec::new();
    let mut cards: Vec<Card> = Vec::new();
    let mut applied: Vec<String> = Vec::new();
    let mut labels = 0usize;
    let mut label = |outcome: Outcome| -> Vec<String> {
        let count = match outcome {
            Outcome::Proposal(count) => count,
            _ => 0,
        };
        (0..count)
            .map(|_| {
                labels += 1;
                format!("list {labels}")
            })
            .collect()
    };
    for step in steps {
        match step {
            Step::Start { history, outcome } => {
                let id = format!("conversation-{}", conversations.len());
                conversations.push(id.clone());
                cards.extend(turn(&db, &id, history, outcome, &label(outcome)).await);
            }
            Step::Turn { .. } | Step::AtOnce { .. } if conversations.is_empty() => {}
            Step::Turn {
                conversation,
                claimed,
                outcome,
            } => {
                let id = conversations[conversation % conversations.len()].clone();
                cards.extend(turn(&db, &id, claimed, outcome, &label(outcome)).await);
            }
            Step::AtOnce {
                conversation,
                count,
            } => {
                let id = conversations[conversation % conversations.len()].clone();
                let running: Vec<_> = (0..count)
                    .map(|_| {
                        let (db, id, stores) =
                            (db.clone(), id.clone(), label(Outcome::Proposal(1)));
                        tokio::spawn(async move {
                            turn(&db, &id, 0, Outcome::Proposal(1), &stores).await
                        })
                    })
                    .collect();
                let mut made = Vec::new();
                for one in running {
                    made.extend(one.await.unwrap());
                }
                prop_assert_eq!(made.len(), count);
                cards.extend(made);
            }
            Step::Decide { .. } if cards.is_empty() => {}
            Step::Decide { card, accept } => {
                let position = card % cards.len();
                let card = cards[position].clone();
                let decision = if accept {
                    Decision::accept()
                } else {
                    Decision::Dismiss
                };
                let key = ProposalKey {
                    conversation: &card.conversation,
                    turn: card.turn,
                    index: card.index,
                };
                let decided = db.decide(key, &decision, &handlers).await;
                if card.status != PayloadStatus::Proposed {
                    prop_assert!(
                        matches!(&decided, Err(DecideError::AlreadyDecided(s)) if *s == card.status),
                        "{:?}",
                        decided
                    );
                    continue;
                }
                let decided = decided.expect("a proposed card is decided");
                if accept {
                    // The decision applied exactly the proposal its card shows.
                    prop_assert_eq!(&decided.applied, &Some(json!({ "store": card.store })));
                    applied.push(card.store.clone());
                } else {
                    prop_assert_eq!(&decided.applied, &None);
                }
                cards[position].status = decided.status;
            }
        }
    }
    for id in &conversations {
        let turns: Vec<usize> = db
            .messages(id)
            .await
            .unwrap()
            .into_iter()
            .filter(|m| m.role == "user")
            .map(|m| m.turn)
            .collect();
        let unique: BTreeSet<usize> = turns.iter().copied().collect();
        prop_assert_eq!(
            unique.len(),
            turns.len(),
            "turns repeat in {}: {:?}",
            id,
            turns
        );
        // Every card's proposal is stored under its (turn, index), as the card shows it.
        let stored = db.payloads(id).await.unwrap();
        let mine: Vec<&Card> = cards.iter().filter(|c| &c.conversation == id).collect();
        prop_assert_eq!(stored.len(), mine.len());
        for card in mine {
            let kept = stored
                .iter()
                .find(|p| p.turn == card.turn && p.index == card.index)
                .expect("the card's proposal is stored");
            prop_assert_eq!(&kept.payload.data()["store"], &json!(card.store));
            prop_assert_eq!(kept.status, card.status);
        }
    }
    let tx = db.begin(TxMode::Read).await.unwrap();
    let mut saved: Vec<String> = Vec::new();
    for row in tx.query("SELECT store FROM lists", &[]).await.unwrap() {
        saved.push(row.get(0).unwrap());
    }
    // Each accepted card saved once (the order of rows is not kept by PostgreSQL).
    saved.sort();
    applied.sort();
    prop_assert_eq!(saved, applied);
    Ok(())
}

/// A runtime for one case.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn each_decision_applies_its_cards_proposal_and_none_is_lost(
        steps in prop::collection::vec(step(), 1..40),
    ) {
        let db = Db::open_with(None, &[LISTS]).unwrap();
        runtime().block_on(run(db, steps))?;
    }
}

/// The same sequences on a PostgreSQL server of the test's own.
#[cfg(feature = "postgres")]
mod on_postgres {
    use super::*;
    use payload_loopback::postgres::TestPostgres;
    use payload_serve::{AppSchema, Database};

    /// A database in a fresh schema of `server`, so each case starts empty.
    async fn postgres_db(server: &TestPostgres, case: usize) -> Db {
        let schema = format!("case_{case}");
        let admin = Db::connect(
            &Database::parse(&server.url("postgres")).unwrap(),
            AppSchema::new(),
        )
        .unwrap();
        let tx = admin.begin(TxMode::Write).await.unwrap();
        tx.execute(&format!("CREATE SCHEMA {schema}"), &[])
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let url = server.url_in_schema(&schema);
        Db::connect(&Database::parse(&url).unwrap(), AppSchema::new().all(LISTS)).unwrap()
    }

    #[test]
    fn on_postgres_each_decision_applies_its_cards_proposal_and_none_is_lost() {
        let Some(server) = TestPostgres::start() else {
            return;
        };
        let runtime = runtime();
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::with_cases(32)
        });
        let cases = std::sync::atomic::AtomicUsize::new(0);
        let outcome = runner.run(&prop::collection::vec(step(), 1..40), |steps| {
            let case = cases.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let db = runtime.block_on(postgres_db(&server, case));
            runtime.block_on(run(db, steps))
        });
        if let Err(e) = outcome {
            panic!("{e}");
        }
    }

    /// Values cross to PostgreSQL as they are or not at all: a value bound where the
    /// column's type cannot hold it, or a column read as a type it does not fit, is an
    /// error; each supported type reads back equal.
    #[test]
    fn on_postgres_a_value_is_kept_exactly_or_refused() {
        let Some(server) = TestPostgres::start() else {
            return;
        };
        runtime().block_on(async {
            let db = postgres_db(&server, 0).await;
            let tx = db.begin(TxMode::Write).await.unwrap();
            tx.execute(
                "CREATE TABLE v (small INTEGER, big BIGINT, flag BOOLEAN, real DOUBLE PRECISION,
                 doc JSONB, raw BYTEA, amount NUMERIC)",
                &[],
            )
            .await
            .unwrap();
            tx.commit().await.unwrap();
            let refused = [
                (
                    "INSERT INTO v (small) VALUES ($1)",
                    payload_serve::SqlValue::Integer(1 << 40),
                ),
                (
                    "INSERT INTO v (small) VALUES ($1)",
                    payload_serve::SqlValue::Text("1".into()),
                ),
                (
                    "INSERT INTO v (flag) VALUES ($1)",
                    payload_serve::SqlValue::Integer(2),
                ),
                (
                    "INSERT INTO v (big) VALUES ($1)",
                    payload_serve::SqlValue::Real(1.5),
                ),
            ];
            for (sql, value) in refused {
                let tx = db.begin(TxMode::Write).await.unwrap();
                assert!(
                    tx.execute(sql, &[&value]).await.is_err(),
                    "{value:?} was bound"
                );
            }
            let tx = db.begin(TxMode::Write).await.unwrap();
            let doc = json!({"a": [1, "two"]});
            tx.execute(
                "INSERT INTO v (small, big, flag, real, doc, raw, amount)
                 VALUES ($1, $2, $3, $4, $5, $6, 1.25)",
                &[&7i32, &(1i64 << 40), &true, &0.1f64, &doc, &vec![0u8, 255]],
            )
            .await
            .unwrap();
            let row = tx
                .query_one("SELECT small, big, flag, real, doc, raw FROM v", &[])
                .await
                .unwrap();
            assert_eq!(row.get::<i32>(0).unwrap(), 7);
            assert_eq!(row.get::<i64>(1).unwrap(), 1 << 40);
            assert!(row.get::<bool>(2).unwrap());
            assert_eq!(row.get::<f64>(3).unwrap(), 0.1);
            assert_eq!(row.get::<Value>(4).unwrap(), doc);
            assert_eq!(row.get::<Vec<u8>>(5).unwrap(), [0, 255]);
            assert!(row.get::<i16>(1).is_err(), "a bigint read into i16");
            tx.commit().await.unwrap();
            // A type the store does not read is an error asking for a cast, and the
            // cast reads.
            let tx = db.begin(TxMode::Read).await.unwrap();
            let numeric = tx.query("SELECT amount FROM v", &[]).await.unwrap_err();
            assert!(
                std::error::Error::source(&numeric)
                    .is_some_and(|e| format!("{e:?}").contains("cast")),
                "{numeric:?}"
            );
            let tx = db.begin(TxMode::Read).await.unwrap();
            let row = tx
                .query_one("SELECT amount::text FROM v", &[])
                .await
                .unwrap();
            assert_eq!(row.get::<String>(0).unwrap(), "1.25");
        });
    }
}
