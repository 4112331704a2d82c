//! A page's payload count (docs/spec.md §1.18), one-shot and streamed: the blocks past
//! it are rejected as `extra_payload` naming the count, those before it kept in text
//! order, and every chunking gives the one-shot parse.

use super::tests::{Proposal, SchemaProposal, check};
use super::*;
use crate::error::ErrorKind;
use crate::marker::count::PayloadCount;

const A: &str = r#"{"mode": "create", "table_name": "A", "operations": []}"#;
const B: &str = r#"{"mode": "create", "table_name": "B", "operations": []}"#;
const C: &str = r#"{"mode": "create", "table_name": "C", "operations": []}"#;

fn page(count: PayloadCount) -> ParseOptions {
    ParseOptions::new()
        .payload(SchemaProposal::TYPE)
        .payload(Proposal::TYPE)
        .payload_count(count)
}

fn three() -> String {
    format!(
        "Pick one.\n\nSCHEMA_PROPOSAL: {A}\n\nOr:\n\nPROPOSAL: {{\"title\": \"x\"}}\n\n\
         SCHEMA_PROPOSAL: {B}\n\nOr else:\n\nSCHEMA_PROPOSAL: {C}\n\nDone."
    )
}

fn tables(parsed: &ParsedResponse) -> Vec<String> {
    parsed
        .payloads()
        .map(|payload| {
            let name = payload
                .data()
                .get("table_name")
                .or(payload.data().get("title"));
            format!(
                "{}:{}",
                payload.kind,
                name.and_then(Value::as_str).unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn blocks_past_the_count_in_all_are_extra_and_those_before_are_kept_in_order() {
    let parsed = Parser::new(&page(PayloadCount::at_most(3))).parse(&three());
    assert_eq!(
        tables(&parsed),
        ["schema_proposal:A", "proposal:x", "schema_proposal:B"]
    );
    assert_eq!(
        parsed.custom_payload.as_ref().unwrap().kind,
        "schema_proposal"
    );
    let [extra] = parsed.rejected.as_slice() else {
        panic!("{parsed:#?}");
    };
    assert!(extra.raw.contains("\"C\""), "{extra:?}");
    assert_eq!(extra.errors[0].kind, ErrorKind::ExtraPayload);
    assert!(extra.errors[0].message.contains("at most 3"), "{extra:?}");
    assert_eq!(parsed.message, "Pick one.\n\nOr:\n\nOr else:\n\nDone.");
}

#[test]
fn a_per_type_count_rejects_only_its_own_type() {
    let count = PayloadCount::at_most(3).per_type(&[("schema_proposal", 1)]);
    let parsed = Parser::new(&page(count)).parse(&three());
    assert_eq!(tables(&parsed), ["schema_proposal:A", "proposal:x"]);
    let kinds: Vec<&str> = parsed.rejected.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds, ["schema_proposal", "schema_proposal"]);
    for rejected in &parsed.rejected {
        assert_eq!(rejected.errors[0].kind, ErrorKind::ExtraPayload);
        assert!(
            rejected.errors[0].message.contains("one `schema_proposal`"),
            "{rejected:?}"
        );
    }
}

#[test]
fn the_default_keeps_the_first_and_its_wording() {
    let parsed = Parser::new(&page(PayloadCount::ONE)).parse(&three());
    assert_eq!(tables(&parsed), ["schema_proposal:A"]);
    assert_eq!(parsed.rejected.len(), 3);
    assert!(parsed.rejected.iter().all(|r| r.errors[0].message
        == "only one structured payload is accepted per response; an earlier one was"));
}

#[test]
fn a_count_of_zero_accepts_no_payload() {
    let parsed = Parser::new(&page(PayloadCount::at_most(0))).parse(&three());
    assert_eq!(tables(&parsed), Vec::<String>::new());
    assert_eq!(parsed.rejected.len(), 4);
}

#[test]
fn tool_payloads_supersede_every_payload_of_the_text() {
    let mut parsed = Parser::new(&page(PayloadCount::at_most(3))).parse(&three());
    let tool = crate::CustomPayload::new("proposal", serde_json::json!({"title": "tool"}));
    parsed.apply_tool_payloads(std::slice::from_ref(&tool));
    assert_eq!(tables(&parsed), ["proposal:tool"]);
    let superseded = parsed
        .rejected
        .iter()
        .filter(|r| r.errors[0].kind == ErrorKind::SupersededByTool)
        .count();
    assert_eq!(superseded, 3);
    assert_eq!(parsed.accepted_blocks().count(), 0);
}

#[test]
fn streamed_at_every_chunking_the_count_gives_the_one_shot_parse() {
    let counts = [
        PayloadCount::ONE,
        PayloadCount::at_most(2),
        PayloadCount::at_most(3).per_type(&[("schema_proposal", 1)]),
        PayloadCount::at_most(0),
    ];
    for count in counts {
        for sizes in [&[usize::MAX][..], &[1], &[7], &[2, 3, 5]] {
            check(&page(count), &three(), sizes).unwrap();
        }
    }
}
