//! The storage layer's invariants under any sequence of what clients do: conversations
//! started from the client's history (a page open across a restart), turns on them
//! with whatever history the client claims, turns recorded at once on one
//! conversation (two processes on one file), turns without an answer, and decisions.
//! Whatever the sequence, turns are unique within a conversation, every proposal is
//! stored under its turn (none lost), and each decision applies exactly the proposal
//! its card names, once.

use crate::app::ShoppingList;
use payload_core::{CustomPayload, LlmPayload};
use payload_prompt::PayloadStatus;
use payload_serve::{Db, DecideError, Decision, Handlers};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// What a turn ends with.
#[derive(Debug, Clone, Copy)]
enum Outcome {
    /// An answer proposing a list.
    Proposal,
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
        3 => Just(Outcome::Proposal),
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
    store: String,
    status: PayloadStatus,
}

/// Saves an accepted list in `lists`, answering its store.
fn handlers() -> Handlers {
    Handlers::new().on_accept::<ShoppingList, _>(|tx, accepted| {
        tx.execute(
            "INSERT INTO lists (store, items) VALUES (?1, ?2)",
            (&accepted.payload.store, accepted.payload.items.len() as i64),
        )?;
        Ok(json!({ "store": accepted.payload.store }))
    })
}

/// A list named `store`.
fn list(store: &str) -> CustomPayload {
    CustomPayload::new(
        ShoppingList::NAME,
        json!({"store": store, "items": [{"name": "milk", "count": 1, "aisle": "dairy"}]}),
    )
}

/// One turn as the server records it: the user's message (numbered by the database),
/// then its outcome. The card, when it proposed.
fn turn(
    db: &Db,
    conversation: &str,
    claimed: usize,
    outcome: Outcome,
    store: &str,
) -> Option<Card> {
    let turn = db
        .add_user_message(conversation, claimed, store)
        .expect("a turn is always numbered");
    match outcome {
        Outcome::Proposal => {
            db.add_answer(
                conversation,
                turn,
                "Here.",
                &json!({}),
                Some((&list(store), &Value::Null)),
            )
            .expect("a proposal is always stored");
            return Some(Card {
                conversation: conversation.to_string(),
                turn,
                store: store.to_string(),
                status: PayloadStatus::Proposed,
            });
        }
        Outcome::Answer => db
            .add_answer(conversation, turn, "Sure.", &json!({}), None)
            .unwrap(),
        Outcome::Interrupted => db
            .add_interrupted(conversation, turn, "the client went away")
            .unwrap(),
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn each_decision_applies_its_cards_proposal_and_none_is_lost(
        steps in prop::collection::vec(step(), 1..40),
    ) {
        let db = Db::open_with(
            None,
            &["CREATE TABLE IF NOT EXISTS lists (store TEXT NOT NULL, items INTEGER NOT NULL)"],
        )
        .unwrap();
        let handlers = handlers();
        let mut conversations: Vec<String> = Vec::new();
        let mut cards: Vec<Card> = Vec::new();
        let mut applied: Vec<String> = Vec::new();
        let mut labels = 0usize;
        let mut label = || {
            labels += 1;
            format!("list {labels}")
        };
        for step in steps {
            match step {
                Step::Start { history, outcome } => {
                    let id = format!("conversation-{}", conversations.len());
                    conversations.push(id.clone());
                    cards.extend(turn(&db, &id, history, outcome, &label()));
                }
                Step::Turn { .. } | Step::AtOnce { .. } if conversations.is_empty() => {}
                Step::Turn { conversation, claimed, outcome } => {
                    let id = conversations[conversation % conversations.len()].clone();
                    cards.extend(turn(&db, &id, claimed, outcome, &label()));
                }
                Step::AtOnce { conversation, count } => {
                    let id = conversations[conversation % conversations.len()].clone();
                    let stores: Vec<String> = (0..count).map(|_| label()).collect();
                    let made: Vec<Card> = std::thread::scope(|scope| {
                        let running: Vec<_> = stores
                            .iter()
                            .map(|store| {
                                let (db, id) = (&db, &id);
                                scope.spawn(move || turn(db, id, 0, Outcome::Proposal, store))
                            })
                            .collect();
                        running.into_iter().filter_map(|t| t.join().unwrap()).collect()
                    });
                    prop_assert_eq!(made.len(), count);
                    cards.extend(made);
                }
                Step::Decide { .. } if cards.is_empty() => {}
                Step::Decide { card, accept } => {
                    let index = card % cards.len();
                    let card = cards[index].clone();
                    let decision = if accept { Decision::accept() } else { Decision::Dismiss };
                    let decided = db.decide(&card.conversation, card.turn, &decision, &handlers);
                    if card.status != PayloadStatus::Proposed {
                        prop_assert!(
                            matches!(&decided, Err(DecideError::AlreadyDecided(s)) if *s == card.status),
                            "{:?}", decided
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
                    cards[index].status = decided.status;
                }
            }
        }
        for id in &conversations {
            let turns: Vec<usize> = db
                .messages(id)
                .unwrap()
                .into_iter()
                .filter(|m| m.role == "user")
                .map(|m| m.turn)
                .collect();
            let unique: BTreeSet<usize> = turns.iter().copied().collect();
            prop_assert_eq!(unique.len(), turns.len(), "turns repeat in {}: {:?}", id, turns);
            // Every card's proposal is stored under its turn, as the card shows it.
            let stored = db.payloads(id).unwrap();
            let mine: Vec<&Card> = cards.iter().filter(|c| &c.conversation == id).collect();
            prop_assert_eq!(stored.len(), mine.len());
            for card in mine {
                let kept = stored.iter().find(|p| p.turn == card.turn).expect("the card's proposal is stored");
                prop_assert_eq!(&kept.payload.data()["store"], &json!(card.store));
                prop_assert_eq!(kept.status, card.status);
            }
        }
        let saved: Vec<String> = {
            let conn = db.conn();
            let mut statement = conn.prepare("SELECT store FROM lists ORDER BY rowid").unwrap();
            statement.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
        };
        prop_assert_eq!(saved, applied);
    }
}
