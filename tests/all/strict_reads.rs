//! The segmenter's strict reads (`payload_core::scan::segmenter`, ARCHITECTURE.md): with the
//! whole text at hand, a block's value read by serde_json from its bracket gives both the
//! value and where it ends, and the scanner is not run. These properties hold the fast
//! path to the path it skips: wherever a strict read succeeds, the scanner ends the value
//! at the same byte, and every parse equals the parse that scans every block
//! (`payload_benches::invariants::check_strict_reads`).

use payload_benches::invariants::{check_marker_mode, check_strict_reads};
use payload_benches::table_view_options;
use payload_core::Parser;
use payload_tests::proptest_cases;
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::sync::OnceLock;

fn parser() -> &'static Parser {
    static PARSER: OnceLock<Parser> = OnceLock::new();
    PARSER.get_or_init(|| Parser::new(&table_view_options()))
}

/// Strings that look like what ends a value to the scanner: markers, fences, quotes,
/// brackets, line breaks (escaped in JSON), comments and prose after a blank line.
fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("DATA_PROPOSAL: {".to_string()),
        Just("**SUGGESTED_VALUES:** [".to_string()),
        Just("\n```\n".to_string()),
        Just("\n\nAnd then prose.\n".to_string()),
        Just("he said \"hi\" to me".to_string()),
        Just("it's // not /* a comment".to_string()),
        Just("\u{201C}curly\u{201D} and \u{2018}single\u{2019}".to_string()),
        Just("back\\slash\\".to_string()),
        Just("} ] { [".to_string()),
        Just("\u{200B}\u{FEFF}é漢🙂".to_string()),
        "[a-z \"'`{}\\[\\]:,\\\\\n#>*_-]{0,16}",
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        tricky_string().prop_map(Value::String),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,6}",
        Just("DATA_PROPOSAL".to_string()),
        Just("SUGGESTED_ACTIONS:".to_string()),
        tricky_string(),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A bracketed value as a model writes it: compact, pretty, or pretty with blank lines
/// and tabs between its lines.
fn written() -> impl Strategy<Value = String> {
    let container = prop_oneof![
        prop::collection::vec(value(), 0..4).prop_map(Value::Array),
        prop::collection::vec((key(), value()), 0..4)
            .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
    ];
    (container, 0..4u8).prop_map(|(value, style)| match style {
        0 => value.to_string(),
        1 => serde_json::to_string_pretty(&value).unwrap(),
        2 => serde_json::to_string_pretty(&value)
            .unwrap()
            .replace('\n', "\n\n"),
        _ => serde_json::to_string_pretty(&value)
            .unwrap()
            .replace("\n  ", "\n\t"),
    })
}

/// What stands around a value: the markers of the page, fences, prose, and pieces that
/// are not JSON (a cut-off value, a repairable one, a duplicate key).
fn around() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("DATA_PROPOSAL: ".to_string()),
        Just("SCHEMA_PROPOSAL:\n".to_string()),
        Just("**SUGGESTED_VALUES:**\n```json\n".to_string()),
        Just("SUGGESTED_ACTIONS: ".to_string()),
        Just("## DATA_PROPOSAL:\n```\n".to_string()),
        Just("\n```\n".to_string()),
        Just("\n\n".to_string()),
        Just("Here you go. ".to_string()),
        Just("{\"a\": 1, \"a\": 2}".to_string()),
        Just("{'a': [1, 2,],}".to_string()),
        Just("{\"x\": 1e-400}".to_string()),
        Just("[1e-400, {\"label\": \"a\", \"value\": \"b\"}]".to_string()),
        Just("{\"open\": [".to_string()),
        "[a-z .\n]{0,10}",
    ]
}

fn response() -> impl Strategy<Value = String> {
    prop::collection::vec(prop_oneof![around(), written()], 1..8).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(1000)))]

    /// Any value serde_json writes, at any bracket of a response around it: the scanner
    /// ends it where the strict read does, and the parse is the scanning one.
    #[test]
    fn a_strict_read_ends_where_the_scanner_does(text in response()) {
        check_strict_reads(parser(), &text, &parser().parse(&text));
    }

    /// The same responses hold every marker-mode guarantee, the stream (which scans
    /// while the text arrives) equal to the one-shot parse (which reads strictly).
    #[test]
    fn responses_with_strictly_read_blocks_hold_every_guarantee(text in response()) {
        check_marker_mode(parser(), &table_view_options(), &text, &[1, 7, 64]);
    }
}

#[test]
fn a_value_is_read_once_and_its_block_ends_after_it() {
    let text = "Done.\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 7}]} and more";
    let parsed = parser().parse(text);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    check_strict_reads(parser(), text, &parsed);
}
