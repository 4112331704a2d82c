//! The page's combination rule (`Page::combination`) held the same way by the parser and
//! every grammar: over each rule and every order of a proposal, chips and buttons, the
//! Lark grammar and the GBNF grammar (through the engine) accept a response exactly when
//! the parser keeps all its blocks, with no `combination` warning.

use crate::llguidance::accepts;
use crate::other_targets::gbnf_to_lark;
use payload_builtin::SchemaProposal;
use payload_core::suggestions::{ActionSpec, Combination};
use payload_core::{LlmPayload, WarningKind};
use payload_grammar::{Target, page_grammar};
use payload_registry::{Page, PayloadEntry, Registry};

const SAVE: ActionSpec = ActionSpec::client("save", "Save the proposal");

/// One page per rule, each offering the schema proposal and the save button.
const RULES: [(&str, Combination); 4] = [
    ("free", Combination::FREE),
    ("alone", Combination::PAYLOAD_ALONE),
    ("buttons", Combination::PAYLOAD_ALONE.allow_actions()),
    ("chips", Combination::PAYLOAD_ALONE.allow_values()),
];

fn registry() -> Registry {
    let pages = RULES
        .iter()
        .map(|(name, combination)| {
            Page::new(name)
                .payloads(&[<SchemaProposal as LlmPayload>::TYPE])
                .actions(&[SAVE])
                .combination(*combination)
        })
        .collect();
    Registry::from_parts(
        vec![PayloadEntry::new(SchemaProposal::TYPE, &[])],
        pages,
        Vec::new(),
    )
}

/// Every order of each subset of the three blocks, written between lines of prose.
fn responses() -> Vec<(Vec<&'static str>, String)> {
    let example = SchemaProposal::TYPE.example().expect("an example");
    let proposal = format!(
        "SCHEMA_PROPOSAL: {}",
        serde_json::to_string(&example).unwrap()
    );
    let chips = r#"SUGGESTED_VALUES: [{"label": "More", "value": "Add more columns"}]"#;
    let buttons =
        r#"SUGGESTED_ACTIONS: [{"label": "Save", "action": "save", "handler": "client"}]"#;
    let block = |name: &str| match name {
        "proposal" => proposal.clone(),
        "chips" => chips.to_string(),
        _ => buttons.to_string(),
    };
    let mut orders: Vec<Vec<&'static str>> = vec![Vec::new()];
    let mut frontier = orders.clone();
    for _ in 0..3 {
        let mut longer = Vec::new();
        for order in &frontier {
            for name in ["proposal", "chips", "buttons"] {
                if !order.contains(&name) {
                    let mut next = order.clone();
                    next.push(name);
                    longer.push(next);
                }
            }
        }
        orders.extend(longer.iter().cloned());
        frontier = longer;
    }
    orders
        .into_iter()
        .map(|order| {
            let mut text = String::from("Here is what I suggest.");
            for name in &order {
                text.push_str("\n\n");
                text.push_str(&block(name));
            }
            text.push_str("\n\nTell me what you think.");
            (order, text)
        })
        .collect()
}

#[test]
fn the_parser_and_every_grammar_allow_the_same_combinations() {
    let registry = registry();
    let responses = responses();
    assert_eq!(responses.len(), 16, "every order of every subset");
    for (page, combination) in RULES {
        let grammars = [Target::Lark, Target::Gbnf].map(|target| {
            let grammar = page_grammar(&registry, page, target).expect("a page");
            let text = match target {
                Target::Gbnf => gbnf_to_lark(&grammar.text),
                _ => grammar.text,
            };
            (target, text)
        });
        for (order, text) in &responses {
            let parsed = registry.parse_response(page, text).expect("a page");
            assert!(parsed.rejected.is_empty(), "{page} {order:?}: {parsed:#?}");
            let broken = parsed
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::Combination);
            let with_payload = order.contains(&"proposal");
            let expected_broken = with_payload
                && ((order.contains(&"chips") && !combination.values_with_payload)
                    || (order.contains(&"buttons") && !combination.actions_with_payload));
            assert_eq!(broken, expected_broken, "{page} {order:?}: {parsed:#?}");
            for (target, grammar) in &grammars {
                assert_eq!(
                    accepts(grammar, text).is_ok(),
                    !broken,
                    "{target} on page {page} with {order:?}: the grammar and the parser \
                     disagree\n{text}"
                );
            }
        }
    }
}
