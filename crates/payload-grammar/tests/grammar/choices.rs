//! A block required, allowed or refused (`Choice`, like a provider's `tool_choice`) in
//! every target, checked with the llguidance engine byte by byte (GBNF through the
//! translation `other_targets` uses): a required grammar accepts a short lead, one
//! expected block and a short tail, and refuses an answer without a block, a long
//! lead or tail, a lead that would make the marker prose, a second block and a marker
//! in the text; a refusing grammar accepts prose and no
//! marker; whole-response whitespace and the app's length hints are bounded.

use crate::llguidance::accepts;
use crate::other_targets::gbnf_to_lark;
use payload_core::LlmPayload;
use payload_grammar::{
    Choice, Hints, LEAD_LINES, LINE_CHARS, PageOptions, TAIL_LINES, Target, page_grammar_with,
    type_grammar_with,
};
use payload_registry::Registry;
use serde_json::Value;

/// The page's grammar as Lark the engine reads (GBNF translated).
fn grammar(target: Target, options: &PageOptions) -> String {
    let grammar = page_grammar_with(Registry::global(), "table_view", target, options).unwrap();
    match target {
        Target::Gbnf => gbnf_to_lark(&grammar.text),
        _ => grammar.text,
    }
}

fn required() -> PageOptions {
    PageOptions {
        choice: Choice::Required,
        ..PageOptions::default()
    }
}

fn proposal() -> String {
    let example = payload_builtin::SchemaProposal::TYPE.example().unwrap();
    format!(
        "SCHEMA_PROPOSAL: {}",
        serde_json::to_string(&example).unwrap()
    )
}

#[test]
fn a_required_block_comes_after_a_short_lead_and_nothing_else_is_a_block() {
    let block = proposal();
    for target in [Target::Gbnf, Target::Lark] {
        let lark = grammar(target, &required());
        for good in [
            format!("I'll set that up for you.\n\n{block}"),
            format!("{block}\n\nTell me if you want more columns."),
            block.clone(),
        ] {
            accepts(&lark, &good).unwrap_or_else(|e| panic!("{target}: {e}\n{good}"));
        }
        let long_lead = "A line.\n".repeat(LEAD_LINES + 2);
        let long_tail = "\nMore.".repeat(TAIL_LINES + 1);
        for bad in [
            "Here is the table you asked for, in prose.".to_string(),
            format!("{long_lead}{block}"),
            // A lead after which the marker would be prose (docs/spec.md §1.11).
            format!("```json\n{block}\n```"),
            format!("~~~\n{block}"),
            format!("> Quoted.\n{block}"),
            format!("<blockquote>\n{block}"),
            // The answer ends soon after the block.
            format!("{block}{long_tail}"),
            format!("{block}\n\nSUGGESTED_VALUES: [{{\"label\": \"a\", \"value\": \"a\"}}]"),
            format!("{block}\n{block}"),
            "SCHEMA_PROPOSAL: {\"mode\": \"upsert\"}".to_string(),
        ] {
            assert!(
                accepts(&lark, &bad).is_err(),
                "{target} accepted:\n{bad}\n{lark}"
            );
        }
    }
    // GBNF bounds each line's length too (Lark lists it as unsupported): this is
    // longer than any bounded line, whatever the markers' shortest run.
    let long_line = "a".repeat(LINE_CHARS * 20);
    let gbnf = grammar(Target::Gbnf, &required());
    for bad in [
        format!("{long_line}\n{block}"),
        format!("{block}\n{long_line}"),
    ] {
        assert!(accepts(&gbnf, &bad).is_err(), "a long line was accepted");
    }
}

#[test]
fn a_refused_block_leaves_prose_free_and_no_marker_in_it() {
    let none = PageOptions {
        choice: Choice::None,
        ..PageOptions::default()
    };
    for target in [Target::Gbnf, Target::Lark] {
        let lark = grammar(target, &none);
        accepts(
            &lark,
            "Sure: the table has 3 rows (NASA, ESA).\n\nAnything else?",
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        assert!(accepts(&lark, &proposal()).is_err(), "{target}");
        assert!(
            accepts(&lark, "See SCHEMA_PROPOSAL: above").is_err(),
            "{target}"
        );
    }
    let tag = page_grammar_with(
        Registry::global(),
        "table_view",
        Target::StructuralTag,
        &none,
    )
    .unwrap();
    let tag: Value = serde_json::from_str(&tag.text).unwrap();
    assert_eq!(tag["format"]["type"], "any_text");
}

#[test]
fn the_auto_gbnf_keeps_markers_out_of_free_text() {
    let lark = grammar(Target::Gbnf, &PageOptions::default());
    accepts(&lark, &format!("Here you go.\n\n{}\n\nMore?", proposal())).unwrap();
    assert!(accepts(&lark, "See SCHEMA_PROPOSAL: nothing here").is_err());
}

#[test]
fn the_expected_types_narrow_a_required_block_and_must_be_on_the_page() {
    let values = PageOptions {
        choice: Choice::Required,
        expected: vec!["suggested_values".into()],
        ..PageOptions::default()
    };
    let lark = grammar(Target::Gbnf, &values);
    accepts(
        &lark,
        "Pick one.\nSUGGESTED_VALUES: [{\"label\": \"Open\", \"value\": \"Open\"}]",
    )
    .unwrap();
    assert!(accepts(&lark, &proposal()).is_err());
    let tag = page_grammar_with(
        Registry::global(),
        "table_view",
        Target::StructuralTag,
        &values,
    )
    .unwrap();
    let tag: Value = serde_json::from_str(&tag.text).unwrap();
    assert_eq!(tag["format"]["at_least_one"], true);
    assert_eq!(tag["format"]["stop_after_first"], true);
    assert_eq!(
        tag["format"]["triggers"],
        serde_json::json!(["SUGGESTED_VALUES:"])
    );
    let unknown = PageOptions {
        expected: vec!["send_email".into()],
        ..values.clone()
    };
    let error = page_grammar_with(Registry::global(), "table_view", Target::Gbnf, &unknown)
        .unwrap_err()
        .to_string();
    assert!(error.contains("schema_proposal"), "{error}");
    let auto_with_types = PageOptions {
        choice: Choice::Auto,
        ..values
    };
    assert!(
        page_grammar_with(
            Registry::global(),
            "table_view",
            Target::Lark,
            &auto_with_types
        )
        .is_err()
    );
}

#[test]
fn a_lazy_gbnf_is_rooted_at_the_marker_and_names_its_triggers() {
    let lazy = PageOptions {
        lazy: true,
        ..PageOptions::default()
    };
    let grammar = page_grammar_with(Registry::global(), "table_view", Target::Gbnf, &lazy).unwrap();
    assert_eq!(
        grammar.triggers,
        [
            "SCHEMA_PROPOSAL:",
            "DATA_PROPOSAL:",
            "SUGGESTED_VALUES:",
            "SUGGESTED_ACTIONS:"
        ]
    );
    let lark = gbnf_to_lark(&grammar.text);
    accepts(&lark, &format!("{}\n\nDone.", proposal())).unwrap();
    assert!(accepts(&lark, "Prose first is the engine's part.").is_err());
    assert!(page_grammar_with(Registry::global(), "table_view", Target::Lark, &lazy).is_err());
}

#[test]
fn whole_response_whitespace_and_hinted_lengths_are_bounded() {
    let payload = &payload_builtin::SchemaProposal::TYPE;
    let plain = type_grammar_with(payload, Target::Gbnf, "json", &Hints::default()).unwrap();
    assert!(!plain.text.contains("[ \\t\\n]*"), "{}", plain.text);
    let lark = gbnf_to_lark(&plain.text);
    let example = serde_json::to_string(&payload.example().unwrap()).unwrap();
    accepts(&lark, &example).unwrap();
    accepts(&lark, &format!("\n{example}\n")).unwrap();
    let padded = example.replacen('{', &format!("{{{}", " ".repeat(40)), 1);
    assert!(accepts(&lark, &padded).is_err(), "40 spaces were accepted");
    let hinted = type_grammar_with(
        payload,
        Target::Gbnf,
        "json",
        &Hints {
            max_length: Some(8),
            max_items: None,
        },
    )
    .unwrap();
    assert!(
        hinted
            .unsupported
            .iter()
            .any(|u| u.feature.contains("maxLength 8"))
    );
    let lark = gbnf_to_lark(&hinted.text);
    let long = r#"{"mode": "create", "table_name": "A name far longer than eight", "operations": [{"action": "add", "column": {"name": "x", "type": "text"}}]}"#;
    assert!(accepts(&lark, long).is_err());
}

#[test]
fn hinted_maps_hold_few_entries_with_short_keys() {
    let payload = &payload_builtin::DataProposal::TYPE;
    let hints = Hints {
        max_length: Some(12),
        max_items: Some(2),
    };
    let grammar = type_grammar_with(payload, Target::Gbnf, "json", &hints).unwrap();
    let lark = gbnf_to_lark(&grammar.text);
    let row = |data: &str| format!(r#"{{"operations": [{{"action": "add", "data": {data}}}]}}"#);
    accepts(&lark, &row(r#"{"Company": "Acme", "Stars": 4}"#)).unwrap();
    for bad in [
        r#"{"Company": "Acme", "Stars": 4, "Status": "Applied"}"#,
        r#"{"A key far longer than twelve": 1}"#,
    ] {
        assert!(accepts(&lark, &row(bad)).is_err(), "{bad}");
    }
}

#[test]
fn integer_bounds_are_kept_where_gbnf_can_say_them() {
    let schema = serde_json::json!({
        "title": "RateContext",
        "type": "object",
        "properties": {"context_score": {"type": "integer", "minimum": 0, "maximum": 5}},
        "required": ["context_score"]
    });
    let rate = payload_core::PayloadType::from_schema(&schema, Default::default()).unwrap();
    let grammar = type_grammar_with(rate, Target::Gbnf, "json", &Hints::default()).unwrap();
    assert!(
        !grammar.unsupported.iter().any(|u| u.feature == "maximum"),
        "a small range is enforced: {:#?}",
        grammar.unsupported
    );
    let lark = gbnf_to_lark(&grammar.text);
    accepts(&lark, r#"{"context_score": 5}"#).unwrap();
    for wrong in [r#"{"context_score": 6}"#, r#"{"context_score": -1}"#] {
        assert!(accepts(&lark, wrong).is_err(), "{wrong}");
    }
    let data = &payload_builtin::DataProposal::TYPE;
    let lark = gbnf_to_lark(
        &type_grammar_with(data, Target::Gbnf, "json", &Hints::default())
            .unwrap()
            .text,
    );
    let delete =
        |id: &str| format!(r#"{{"operations": [{{"action": "delete", "row_id": {id}}}]}}"#);
    accepts(&lark, &delete("7")).unwrap();
    for wrong in ["0", "-3", "18446744073709551616"] {
        assert!(accepts(&lark, &delete(wrong)).is_err(), "row id {wrong}");
    }
}
