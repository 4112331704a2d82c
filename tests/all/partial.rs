//! Typed partial values while a payload streams: `#[payload(partial)]` and
//! `#[derive(Partial)]`. The invariant, checked for every chunking of generated
//! payloads: a partial value never shows what the model did not write (every string is
//! a prefix of the final one, every complete member equals the final one, lists only
//! grow), and once the block closes the partial value is complete and equals the final.

use payload_core::{
    LlmPayload, ParseOptions, Partial, partial::Growing, partial::PartialType, stream::StreamEvent,
    stream::StreamParser,
};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A card the client fills while its rows arrive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "card", marker = "CARD", partial)]
struct Card {
    /// The title.
    title: String,
    /// How it looks.
    kind: Kind,
    /// The rows.
    rows: Vec<Row>,
    /// What to do.
    ops: Vec<Op>,
    /// A note.
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "remark")]
    note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Row {
    name: String,
    count: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Simple,
    Fancy,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(tag = "action", rename_all = "lowercase")]
enum Op {
    Add { name: String },
    Remove { id: u32 },
    Clear,
}

/// Adjacently and externally tagged enums and a newtype, read the same way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Text(String),
    Pair { a: u8, b: u8 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
enum External {
    Word(String),
    Nothing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Tags(Vec<String>);

fn options() -> ParseOptions {
    ParseOptions {
        payloads: vec![Card::TYPE],
        ..ParseOptions::new()
    }
}

/// Every typed partial of `text` streamed in `size`-byte chunks (moved to char
/// boundaries), and the final card.
fn stream(text: &str, size: usize) -> (Vec<Growing<CardPartial>>, Option<Card>) {
    let mut parser = StreamParser::new(&options());
    let mut partials = Vec::new();
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            if let Some(partial) = event.partial::<Card>() {
                partials.push(partial);
            }
        }
    };
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        take(parser.push(&text[at..end]));
        at = end;
    }
    let (events, parsed) = parser.finish();
    take(events);
    (partials, parsed.into_payload::<Card>())
}

fn prefix(shown: &Growing<String>, full: &str) -> bool {
    if shown.complete {
        shown.value == full
    } else {
        full.starts_with(&shown.value)
    }
}

/// The invariant: nothing shown that the final card does not have.
fn consistent(partial: &Growing<CardPartial>, card: &Card) -> Result<(), String> {
    let p = &partial.value;
    if let Some(title) = &p.title {
        prop_assert_ok(prefix(title, &card.title), "title")?;
    }
    if let Some(kind) = p.kind {
        prop_assert_ok(kind == card.kind, "kind")?;
    }
    if let Some(rows) = &p.rows {
        prop_assert_ok(rows.value.len() <= card.rows.len(), "rows count")?;
        for (shown, row) in rows.value.iter().zip(&card.rows) {
            if let Some(name) = &shown.value.name {
                prop_assert_ok(prefix(name, &row.name), "row name")?;
            }
            if let Some(count) = shown.value.count {
                prop_assert_ok(count == row.count, "row count")?;
            }
            if shown.complete {
                prop_assert_ok(
                    shown.value.name.as_ref().is_some_and(|n| n.complete),
                    "row complete",
                )?;
            }
        }
    }
    if let Some(ops) = &p.ops {
        for (shown, op) in ops.value.iter().zip(&card.ops) {
            let same = match (&shown.value, op) {
                (OpPartial::Add { name }, Op::Add { name: full }) => {
                    name.as_ref().is_none_or(|n| prefix(n, full))
                }
                (OpPartial::Remove { id }, Op::Remove { id: full }) => {
                    id.is_none_or(|id| id == *full)
                }
                (OpPartial::Clear, Op::Clear) => true,
                _ => false,
            };
            prop_assert_ok(same, "op")?;
        }
    }
    if let Some(note) = &p.note {
        match (note, &card.note) {
            (Some(shown), Some(full)) => prop_assert_ok(prefix(shown, full), "note")?,
            (None, None) => {}
            _ => return Err("note".into()),
        }
    }
    Ok(())
}

fn prop_assert_ok(ok: bool, what: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{what} shows what the model did not write"))
    }
}

/// The last partial, once the block closed, is the whole card, complete.
fn complete_equals(partial: &Growing<CardPartial>, card: &Card) {
    assert!(partial.complete);
    let p = &partial.value;
    assert_eq!(
        p.title,
        Some(Growing {
            value: card.title.clone(),
            complete: true
        })
    );
    assert_eq!(p.kind, Some(card.kind));
    let rows = p.rows.as_ref().unwrap();
    assert!(rows.complete);
    assert_eq!(rows.value.len(), card.rows.len());
    assert_eq!(p.ops.as_ref().unwrap().value.len(), card.ops.len());
}

fn sample() -> Card {
    Card {
        title: "Quarterly \"numbers\" ✓".into(),
        kind: Kind::Fancy,
        rows: vec![
            Row {
                name: "alpha".into(),
                count: 12,
            },
            Row {
                name: "beta".into(),
                count: 3,
            },
        ],
        ops: vec![
            Op::Add {
                name: "gamma".into(),
            },
            Op::Remove { id: 7 },
            Op::Clear,
        ],
        note: Some("checked".into()),
    }
}

#[test]
fn a_card_fills_in_while_it_streams_and_ends_complete() {
    let card = sample();
    let text = format!(
        "Here is the card.\nCARD: {}\nDone.",
        serde_json::to_string(&card).unwrap()
    );
    for size in [1, 3, 7, 64] {
        let (partials, parsed) = stream(&text, size);
        assert_eq!(parsed.as_ref(), Some(&card));
        assert!(partials.len() >= 2, "{size}: {}", partials.len());
        for partial in &partials {
            consistent(partial, &card).unwrap();
        }
        complete_equals(partials.last().unwrap(), &card);
    }
    // Byte by byte, a string is seen growing before it is seen complete.
    let (partials, _) = stream(&text, 1);
    assert!(
        partials
            .iter()
            .any(|p| p.value.title.as_ref().is_some_and(|t| !t.complete))
    );
}

#[test]
fn a_member_is_none_until_begun_and_defaults_are_never_invented() {
    let (value, open) =
        payload_core::stream::partial_with_open(r#"{"title": "Hi", "kind": "fa"#).unwrap();
    let partial =
        Card::read_partial(&value, payload_core::partial::Cursor::root(open.as_deref())).unwrap();
    assert!(!partial.complete);
    assert_eq!(
        partial.value.title,
        Some(Growing {
            value: "Hi".into(),
            complete: true
        })
    );
    // "fa" is not yet a variant (it may be the start of "fancy").
    assert_eq!(partial.value.kind, None);
    assert_eq!(partial.value.rows, None);
    assert_eq!(partial.value.note, None);
    // An alias reads the same member.
    let value = serde_json::json!({"remark": "via alias"});
    let partial = Card::read_partial(&value, payload_core::partial::Cursor::root(None)).unwrap();
    assert_eq!(
        partial.value.note,
        Some(Some(Growing {
            value: "via alias".into(),
            complete: true
        }))
    );
}

#[test]
fn every_representation_of_an_enum_is_read_once_its_tag_is_complete() {
    let read = |text: &str| {
        let (value, open) = payload_core::stream::partial_with_open(text).unwrap();
        (value, open)
    };
    let (value, open) = read(r#"{"t": "Pair", "c": {"a": 1, "b""#);
    let adjacent =
        Adjacent::read_partial(&value, payload_core::partial::Cursor::root(open.as_deref()))
            .unwrap();
    assert_eq!(
        adjacent.value,
        AdjacentPartial::Pair {
            a: Some(1),
            b: None
        }
    );
    let (value, open) = read(r#"{"t": "Pa"#);
    assert_eq!(
        Adjacent::read_partial(&value, payload_core::partial::Cursor::root(open.as_deref())),
        None
    );
    let (value, open) = read(r#"{"Word": "hel"#);
    let external =
        External::read_partial(&value, payload_core::partial::Cursor::root(open.as_deref()))
            .unwrap();
    assert_eq!(
        external.value,
        ExternalPartial::Word(Some(Growing {
            value: "hel".into(),
            complete: false
        }))
    );
    let nothing = External::read_partial(
        &serde_json::json!("Nothing"),
        payload_core::partial::Cursor::root(None),
    );
    assert_eq!(nothing.map(|g| g.value), Some(ExternalPartial::Nothing));
    let tags = Tags::read_partial(
        &serde_json::json!(["a"]),
        payload_core::partial::Cursor::root(None),
    )
    .unwrap();
    assert_eq!(
        tags.value,
        [Growing {
            value: "a".into(),
            complete: true
        }]
    );
}

fn arb_text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 \"\\\\é✓/{}\\[\\]:,]{0,12}"
}

fn arb_card() -> impl Strategy<Value = Card> {
    let row = (arb_text(), any::<u32>()).prop_map(|(name, count)| Row { name, count });
    let op = prop_oneof![
        arb_text().prop_map(|name| Op::Add { name }),
        any::<u32>().prop_map(|id| Op::Remove { id }),
        Just(Op::Clear),
    ];
    (
        arb_text(),
        prop_oneof![Just(Kind::Simple), Just(Kind::Fancy)],
        prop::collection::vec(row, 0..4),
        prop::collection::vec(op, 0..4),
        prop::option::of(arb_text()),
    )
        .prop_map(|(title, kind, rows, ops, note)| Card {
            title,
            kind,
            rows,
            ops,
            note,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn a_partial_never_shows_what_the_model_did_not_write(
        card in arb_card(),
        size in 1usize..24,
        pretty in any::<bool>(),
    ) {
        let json = if pretty {
            serde_json::to_string_pretty(&card).unwrap()
        } else {
            serde_json::to_string(&card).unwrap()
        };
        let text = format!("Sure.\nCARD: {json}\nThanks.");
        let (partials, parsed) = stream(&text, size);
        prop_assert_eq!(parsed.as_ref(), Some(&card));
        for partial in &partials {
            if let Err(message) = consistent(partial, &card) {
                prop_assert!(false, "{} in {:?}", message, partial);
            }
        }
        let last = partials.last().expect("the closed block is previewed");
        complete_equals(last, &card);
    }
}

#[test]
fn a_data_proposal_card_gets_its_rows_while_they_arrive() {
    use payload_builtin::{DataOperationPartial, DataProposal};
    let proposal = DataProposal::example().expect("the built-in type has an example");
    let text = format!(
        "Here are the rows.\nDATA_PROPOSAL: {}",
        serde_json::to_string_pretty(&proposal).unwrap()
    );
    let options = ParseOptions {
        payloads: vec![DataProposal::TYPE],
        ..ParseOptions::new()
    };
    let parser = StreamParser::new(&options);
    let mut counts = Vec::new();
    let mut last_complete = false;
    // One character at a time, then the events `finish` gives: a closing line is decided
    // once it ends or the text does (docs/spec.md §1.14), so the closed preview may come last.
    let mut pieces: Vec<&str> = text
        .char_indices()
        .map(|(at, c)| &text[at..at + c.len_utf8()])
        .collect();
    pieces.push("");
    let mut parser = Some(parser);
    let mut parsed = None;
    for (i, piece) in pieces.iter().enumerate() {
        let events = if i + 1 < pieces.len() {
            parser.as_mut().unwrap().push(piece)
        } else {
            let (events, done) = parser.take().unwrap().finish();
            parsed = Some(done);
            events
        };
        for event in events {
            if let Some(partial) = event.partial::<DataProposal>() {
                last_complete = partial.complete;
                let operations = partial
                    .value
                    .operations
                    .map(|o| o.value)
                    .unwrap_or_default();
                // Every operation shown has its variant: the tag came first.
                assert!(operations.iter().all(|op| matches!(
                    op.value,
                    DataOperationPartial::Add { .. }
                        | DataOperationPartial::Update { .. }
                        | DataOperationPartial::Delete { .. }
                )));
                counts.push(operations.len());
            }
        }
    }
    let parsed = parsed.expect("the stream finished");
    assert_eq!(parsed.payload::<DataProposal>(), Some(&proposal));
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]),
        "rows only arrive: {counts:?}"
    );
    assert!(last_complete, "the closed block's preview is complete");
    assert_eq!(counts.last().copied(), Some(proposal.operations.len()));
    assert!(
        counts.iter().any(|&n| n < proposal.operations.len()),
        "{counts:?}"
    );
}

/// A host record holding members with no partial form of their own: a foreign type
/// with a blanket impl (`Ipv4Addr`), one read through serde's `with`, and an app type
/// marked `complete_only`. Each is absent until whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "host", marker = "HOST", partial)]
struct Host {
    /// The host's name.
    name: String,
    /// Its address.
    address: std::net::Ipv4Addr,
    /// How long a lease lasts, in whole seconds.
    #[serde(with = "seconds")]
    #[schemars(with = "u64")]
    lease: std::time::Duration,
    /// Its owner, an opaque record of another crate.
    #[payload(complete_only)]
    owner: Opaque,
}

/// Stands for a type of another crate: no `Partial` derive is possible on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Opaque {
    id: u32,
    team: String,
}

mod seconds {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_secs())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_secs)
    }
}

#[test]
fn members_with_no_partial_form_are_complete_only() {
    let host = Host {
        name: "db-1".to_string(),
        address: std::net::Ipv4Addr::new(10, 0, 0, 7),
        lease: std::time::Duration::from_secs(3600),
        owner: Opaque {
            id: 4,
            team: "storage".to_string(),
        },
    };
    let text = format!("HOST: {}", serde_json::to_string(&host).unwrap());
    let options = ParseOptions::new().payload(Host::TYPE);
    for size in [1, 2, 5] {
        let mut parser = StreamParser::new(&options);
        let mut partials = Vec::new();
        let bytes = text.as_bytes();
        for chunk in bytes.chunks(size) {
            let chunk = std::str::from_utf8(chunk).unwrap();
            partials.extend(
                parser
                    .push(chunk)
                    .iter()
                    .filter_map(StreamEvent::partial::<Host>),
            );
        }
        let (last, parsed) = parser.finish();
        partials.extend(last.iter().filter_map(StreamEvent::partial::<Host>));
        assert_eq!(parsed.payload::<Host>(), Some(&host));
        for partial in &partials {
            let value = &partial.value;
            assert!(value.address.is_none_or(|a| a == host.address));
            assert!(value.lease.is_none_or(|l| l == host.lease));
            assert!(value.owner.as_ref().is_none_or(|o| *o == host.owner));
        }
        let whole = partials.last().expect("a partial value");
        assert!(whole.complete, "chunks of {size}");
        assert_eq!(whole.value.address, Some(host.address));
        assert_eq!(whole.value.lease, Some(host.lease));
        assert_eq!(whole.value.owner.as_ref(), Some(&host.owner));
        let opened = partials
            .iter()
            .any(|p| p.value.name.is_some() && p.value.owner.is_none());
        assert!(opened, "chunks of {size}: the owner shows only once whole");
    }
}

/// A step shown only once the model has named it (`stream(not_null)`), as BAML's
/// `@stream.not_null` holds an object back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Step {
    detail: String,
    #[payload(stream(not_null))]
    title: Option<String>,
}

#[test]
fn a_struct_is_held_back_until_its_not_null_member_has_a_value() {
    let read = |text: &str| {
        let (value, open) = payload_core::stream::partial_with_open(text).unwrap();
        <Vec<Step>>::read_partial(&value, payload_core::partial::Cursor::root(open.as_deref()))
            .unwrap()
            .value
    };
    // The second step is begun, but has no title yet: the list shows only the first.
    let steps = read(r#"[{"title": "Boil", "detail": "10 min"}, {"detail": "then sa"#);
    assert_eq!(steps.len(), 1);
    // A title begun (even still arriving) is a value; `null` is not.
    assert_eq!(read(r#"[{"detail": "x", "title": "Sa"#).len(), 1);
    assert_eq!(read(r#"[{"detail": "x", "title": null, "#).len(), 0);
    // Once whole, a step shows whatever it holds.
    let steps = read(r#"[{"detail": "x"}, {"detail": "y", "title": null}]"#);
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1].value.title, Some(None));
}

#[test]
fn each_value_says_whether_it_is_pending_incomplete_or_complete() {
    use payload_core::partial::{PartialState, ValueState};
    let (value, open) = payload_core::stream::partial_with_open(
        r#"{"title": "Hi", "kind": "fancy", "rows": [{"name": "a", "count": 1}, {"name": "b"#,
    )
    .unwrap();
    let card =
        Card::read_partial(&value, payload_core::partial::Cursor::root(open.as_deref())).unwrap();
    assert_eq!(card.state(), ValueState::Incomplete);
    assert_eq!(ValueState::of(&card.value.title), ValueState::Complete);
    assert_eq!(ValueState::of(&card.value.kind), ValueState::Complete);
    assert_eq!(ValueState::of(&card.value.rows), ValueState::Incomplete);
    assert_eq!(ValueState::of(&card.value.ops), ValueState::Pending);
    assert_eq!(ValueState::of(&card.value.note), ValueState::Pending);
    let rows = &card.value.rows.as_ref().unwrap().value;
    assert_eq!(rows[0].state(), ValueState::Complete);
    assert_eq!(ValueState::of(&rows[1].value.name), ValueState::Incomplete);
    assert_eq!(ValueState::of(&rows[1].value.count), ValueState::Pending);
    // A member written as `null` is whole.
    let value = serde_json::json!({"note": null});
    let card = Card::read_partial(&value, payload_core::partial::Cursor::root(Some(""))).unwrap();
    assert_eq!(ValueState::of(&card.value.note), ValueState::Complete);
    assert_eq!(
        serde_json::to_value(ValueState::Incomplete).unwrap(),
        "incomplete"
    );
}
