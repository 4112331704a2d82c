//! The page's count (`Page::payload_count`) held the same way by the parser and every
//! grammar: over counts in all and per type, and every sequence of up to four blocks
//! of two payload types (with and without a button), the Lark grammar and the GBNF
//! grammar (through the engine) accept a response exactly when the parser keeps all
//! its blocks (no `extra_payload`).

use crate::llguidance::accepts;
use crate::other_targets::gbnf_to_lark;
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::suggestions::ActionSpec;
use payload_core::{ErrorKind, LlmPayload, PayloadCount};
use payload_grammar::{Target, page_grammar};
use payload_registry::{Page, PayloadEntry, Registry};

const SAVE: ActionSpec = ActionSpec::client("save", "Save the proposal");

/// One page per count, each offering both proposals and the save button.
const COUNTS: [(&str, PayloadCount); 5] = [
    ("one", PayloadCount::ONE),
    ("two", PayloadCount::at_most(2)),
    ("three", PayloadCount::at_most(3)),
    (
        "one_schema",
        PayloadCount::at_most(3).per_type(&[("schema_proposal", 1)]),
    ),
    (
        "no_data",
        PayloadCount::at_most(2).per_type(&[("data_proposal", 0)]),
    ),
];

fn registry() -> Registry {
    let pages = COUNTS
        .iter()
        .map(|(name, count)| {
            Page::new(name)
                .payloads(&[
                    <SchemaProposal as LlmPayload>::TYPE,
                    <DataProposal as LlmPayload>::TYPE,
                ])
                .actions(&[SAVE])
                .payload_count(*count)
        })
        .collect();
    Registry::from_parts(
        vec![
            PayloadEntry::new(SchemaProposal::TYPE, &[]),
            PayloadEntry::new(DataProposal::TYPE, &[]),
        ],
        pages,
        Vec::new(),
    )
}

/// Every sequence of up to four proposals of either type, each with and without a
/// button at the end, written between lines of prose.
fn responses() -> Vec<(Vec<&'static str>, String)> {
    let block = |name: &str| -> String {
        let (marker, example) = match name {
            "schema" => ("SCHEMA_PROPOSAL", SchemaProposal::TYPE.example()),
            _ => ("DATA_PROPOSAL", DataProposal::TYPE.example()),
        };
        let example = example.expect("an example");
        format!("{marker}: {}", serde_json::to_string(&example).unwrap())
    };
    let button = r#"SUGGESTED_ACTIONS: [{"label": "Save", "action": "save", "handler": "client"}]"#;
    let mut sequences: Vec<Vec<&'static str>> = vec![Vec::new()];
    let mut frontier = sequences.clone();
    for _ in 0..4 {
        let mut longer = Vec::new();
        for sequence in &frontier {
            for name in ["schema", "data"] {
                let mut next = sequence.clone();
                next.push(name);
                longer.push(next);
            }
        }
        sequences.extend(longer.iter().cloned());
        frontier = longer;
    }
    let mut out = Vec::new();
    for sequence in sequences {
        for with_button in [false, true] {
            let mut text = String::from("Here are your options.");
            for (i, name) in sequence.iter().enumerate() {
                text.push_str(&format!("\n\nOption {}:\n\n", i + 1));
                text.push_str(&block(name));
            }
            let mut order = sequence.clone();
            if with_button {
                text.push_str("\n\n");
                text.push_str(button);
                order.push("button");
            }
            text.push_str("\n\nPick one.");
            out.push((order, text));
        }
    }
    out
}

#[test]
fn the_parser_and_every_grammar_allow_the_same_count() {
    let registry = registry();
    let responses = responses();
    assert_eq!(
        responses.len(),
        2 * 31,
        "every sequence of up to four blocks"
    );
    for (page, count) in COUNTS {
        let grammars = [Target::Lark, Target::Gbnf].map(|target| {
            let grammar = page_grammar(&registry, page, target).expect("a page");
            let text = match target {
                Target::Gbnf => gbnf_to_lark(&grammar.text),
                _ => grammar.text,
            };
            (target, text)
        });
        let mut accepted = 0;
        for (order, text) in &responses {
            let parsed = registry.parse_response(page, text).expect("a page");
            // What the count allows, counted here from the sequence.
            let schemas = order.iter().filter(|n| **n == "schema").count() as u32;
            let datas = order.iter().filter(|n| **n == "data").count() as u32;
            let within = schemas + datas <= count.in_all()
                && schemas <= count.of_type("schema_proposal")
                && datas <= count.of_type("data_proposal");
            let extra = parsed
                .rejected
                .iter()
                .any(|r| r.errors.iter().any(|e| e.kind() == ErrorKind::ExtraPayload));
            assert_eq!(
                parsed.rejected.is_empty(),
                within,
                "{page} {order:?}: {:#?}",
                parsed.rejected
            );
            assert_eq!(extra, !within, "{page} {order:?}");
            // Every block within the count is kept, in text order; past it, exactly the
            // count's worth.
            let kept = parsed.payloads().count() as u32;
            if within {
                assert_eq!(kept, schemas + datas, "{page} {order:?}");
            } else {
                assert!(kept <= count.in_all(), "{page} {order:?}");
            }
            accepted += usize::from(within);
            for (target, grammar) in &grammars {
                assert_eq!(
                    accepts(grammar, text).is_ok(),
                    within,
                    "{target} on page {page} with {order:?}: the grammar and the parser \
                     disagree\n{text}"
                );
            }
        }
        assert!(accepted > 0, "{page}: some response is within the count");
    }
}

/// A count whose orders of blocks a grammar cannot list (they grow with its cube) is
/// refused with a clear error after a bounded amount of work, in the targets that list
/// them; a structural tag, which lists none, is still made.
#[test]
fn a_count_too_large_to_list_is_refused_clearly() {
    let registry = Registry::from_parts(
        vec![PayloadEntry::new(SchemaProposal::TYPE, &[])],
        vec![
            Page::new("many")
                .payloads(&[<SchemaProposal as LlmPayload>::TYPE])
                .actions(&[SAVE])
                .payload_count(PayloadCount::at_most(1000)),
            Page::new("fifteen")
                .payloads(&[<SchemaProposal as LlmPayload>::TYPE])
                .actions(&[SAVE])
                .payload_count(PayloadCount::at_most(15)),
        ],
        Vec::new(),
    );
    for target in [Target::Lark, Target::Gbnf] {
        let started = std::time::Instant::now();
        let error = page_grammar(&registry, "many", target).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(
            matches!(&error, payload_grammar::GrammarError::Options(text)
                if text.contains("allows 1000 payloads") && text.contains("lower the page's count")),
            "{error}"
        );
        assert!(
            page_grammar(&registry, "fifteen", target).is_ok(),
            "{target}"
        );
    }
    assert!(page_grammar(&registry, "many", Target::StructuralTag).is_ok());
}
