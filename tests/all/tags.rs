//! Types written in tags (docs/spec.md §1.21): `<tag>` before the value and `</tag>`
//! after it, read by the same scanner as markers, one-shot and streamed at every
//! chunking, with every marker-mode invariant held (`payload_benches::invariants`).

use payload_benches::invariants::check_marker_mode;
use payload_benches::{tagged_options, tagged_type};
use payload_core::{ErrorKind, ParsedResponse, Parser};
use proptest::prelude::*;
use serde_json::json;

fn parse(text: &str) -> ParsedResponse {
    let options = tagged_options();
    let parser = Parser::new(&options);
    // Every chunking of the small cases below, and a few for the rest.
    let sizes: &[&[usize]] = &[&[1], &[2], &[3, 1], &[7], &[4096]];
    for sizes in sizes {
        check_marker_mode(&parser, &options, text, sizes);
    }
    parser.parse(text)
}

fn surface(parsed: &ParsedResponse) -> Option<&serde_json::Value> {
    parsed
        .custom_payload
        .as_ref()
        .filter(|p| p.kind == tagged_type().name)
        .map(|p| p.data())
}

fn error_kinds(parsed: &ParsedResponse) -> Vec<ErrorKind> {
    parsed
        .rejected
        .iter()
        .flat_map(|r| r.errors.iter().map(|e| e.kind()))
        .collect()
}

#[test]
fn a_tag_pair_around_a_value_is_a_block_wherever_it_stands() {
    for text in [
        "<ui-json>[{\"id\": \"a\"}]</ui-json>",
        "Here it is: <ui-json>[{\"id\": \"a\"}]</ui-json>",
        "Here it is.\n<ui-json>\n[{\"id\": \"a\"}]\n</ui-json>",
        "Here it is.\n<ui-json>\n```json\n[{\"id\": \"a\"}]\n```\n</ui-json>",
        "Here it is.\n<ui-json>```json\n[{\"id\": \"a\"}]```</ui-json>",
        "- <ui-json>[{\"id\": \"a\"}]</ui-json>",
    ] {
        let parsed = parse(text);
        assert_eq!(surface(&parsed), Some(&json!([{"id": "a"}])), "{text:?}");
        assert!(
            !parsed.message.contains("ui-json"),
            "{text:?} -> {parsed:#?}"
        );
        assert!(parsed.rejected.is_empty(), "{text:?} -> {parsed:#?}");
    }
}

#[test]
fn the_text_around_the_tags_is_the_message() {
    let parsed = parse("Hello\n<ui-json>[{\"id\": \"a\"}]</ui-json>\nGoodbye");
    assert_eq!(parsed.message, "Hello\n\nGoodbye");
    let parsed = parse("Talking <ui-json>[{\"id\": \"a\"}] </ui-json> End.");
    assert_eq!(parsed.message, "Talking End.");
}

#[test]
fn tags_in_code_quotes_and_fences_of_other_text_stay_prose() {
    for text in [
        "Write `<ui-json>[{\"id\": \"a\"}]</ui-json>` to show one.",
        "> <ui-json>[{\"id\": \"a\"}]</ui-json>",
        "```html\n<p>an example</p>\n<ui-json>[{\"id\": \"a\"}]</ui-json>\n```",
    ] {
        let parsed = parse(text);
        assert_eq!(surface(&parsed), None, "{text:?}");
        assert!(parsed.rejected.is_empty(), "{text:?}");
        assert!(parsed.message.contains("<ui-json>"), "{text:?}");
    }
}

#[test]
fn text_between_the_value_and_the_closing_tag_on_its_line_goes_with_the_block() {
    // The closing tag on the first line of text after the value takes what stands
    // before it on that line; the value is read as it is.
    let parsed = parse("<ui-json>[{\"id\": \"a\"}]}} </ui-json> after");
    assert_eq!(surface(&parsed), Some(&json!([{"id": "a"}])));
    assert_eq!(parsed.message, "after");
    assert_eq!(parsed.accepted_blocks().count(), 1);
    let (_, raw) = parsed.accepted_blocks().next().unwrap();
    assert!(raw.ends_with("}} </ui-json>"), "{raw:?}");
    // Further away, the tag is not the block's: the block ends after its value and
    // the prose after it, the stray tag included, is the message's.
    let parsed = parse("<ui-json>[{\"id\": \"a\"}]\nand more words\n</ui-json>");
    assert_eq!(surface(&parsed), Some(&json!([{"id": "a"}])));
    assert_eq!(parsed.message, "and more words\n</ui-json>");
}

#[test]
fn an_unclosed_tag_is_truncated_at_the_end_and_unclosed_where_the_text_goes_on() {
    let parsed = parse("Here:\n<ui-json>[{\"id\": \"a\"");
    assert_eq!(error_kinds(&parsed), [ErrorKind::Truncated]);
    assert_eq!(parsed.message, "Here:");
    let parsed = parse("Here:\n<ui-json>\n");
    assert_eq!(error_kinds(&parsed), [ErrorKind::Truncated]);
    // The closing tag arrives while the value is open: cut there, the text after read.
    let parsed = parse("<ui-json>[{\"id\": \"a\"}</ui-json> Done.");
    assert_eq!(error_kinds(&parsed), [ErrorKind::Unclosed]);
    assert_eq!(parsed.message, "Done.");
    let parsed = parse("<ui-json>[{\"id\": \"a\",\n</ui-json>\nDone.");
    assert_eq!(error_kinds(&parsed), [ErrorKind::Unclosed]);
    assert_eq!(parsed.message, "Done.");
    // A blank line and prose end it too, as they end a marker's value.
    let parsed = parse("<ui-json>[{\"id\": \"a\",\n\nSorry, let me start again.");
    assert_eq!(error_kinds(&parsed), [ErrorKind::Unclosed]);
    assert_eq!(parsed.message, "Sorry, let me start again.");
}

#[test]
fn tags_with_no_value_between_them_are_a_missing_block() {
    for (text, message) in [
        ("<ui-json></ui-json>", ""),
        ("Before <ui-json> not json </ui-json> after", "Before after"),
    ] {
        let parsed = parse(text);
        assert_eq!(surface(&parsed), None, "{text:?}");
        assert_eq!(parsed.message, message, "{text:?}");
        assert_eq!(parsed.missed_blocks().len(), 1, "{text:?} -> {parsed:#?}");
        assert_eq!(parsed.missed_blocks()[0].error.kind(), ErrorKind::Missing);
    }
    // With no closing tag at all, the rest of the text is a block that never opened.
    let parsed = parse("Hello <ui-json> World");
    assert_eq!(error_kinds(&parsed), [ErrorKind::Truncated]);
    assert_eq!(parsed.message, "Hello");
}

#[test]
fn an_opening_tag_at_a_line_start_ends_an_open_value() {
    let parsed = parse("<ui-json>[{\"id\": \"a\",\n<ui-json>[{\"id\": \"b\"}]</ui-json>");
    assert_eq!(error_kinds(&parsed), [ErrorKind::Unclosed]);
    assert_eq!(surface(&parsed), Some(&json!([{"id": "b"}])));
}

#[test]
fn the_marker_of_a_tagged_type_is_prose() {
    let marker = tagged_type().marker;
    let text = format!("{marker}: [{{\"id\": \"a\"}}]");
    let parsed = parse(&text);
    assert_eq!(surface(&parsed), None);
    assert_eq!(parsed.message, text);
}

/// Text that keeps a tag's decision open for long, read one byte at a time: the work
/// stays linear (a quadratic wait would take minutes here), and every invariant holds.
#[test]
fn long_open_decisions_after_a_tag_stay_linear() {
    let options = tagged_options();
    let parser = Parser::new(&options);
    let n = 32 * 1024;
    for text in [
        format!("<ui-json>{}", " ".repeat(n)),
        format!("<ui-json>[{{\"id\": \"a\"}}]{}", " x".repeat(n / 2)),
        format!("<ui-json> not a value {}", "y".repeat(n)),
        format!("<ui-json>[{{\"id\": \"{}", "z".repeat(n)),
        "<ui-json>[]</ui-json>".repeat(n / 20),
        format!("```\n<ui-json>[]{}", " w".repeat(n / 2)),
    ] {
        check_marker_mode(&parser, &options, &text, &[1]);
    }
}

/// A runtime type's tag is checked as the derive's is: its characters, not a reasoning
/// tag, and not beside a marker.
#[test]
fn a_bad_tag_is_a_schema_error() {
    use payload_core::PayloadType;
    use payload_core::runtime::RuntimeOptions;
    let schema = json!({"type": "object"});
    for (tag, marker) in [
        ("a2ui json", None),
        ("<a2ui-json>", None),
        ("think", None),
        ("a2ui-json", Some("A2UI")),
    ] {
        let options = RuntimeOptions {
            name: Some("surface_check".to_string()),
            tag: Some(tag.to_string()),
            marker: marker.map(str::to_string),
            ..RuntimeOptions::default()
        };
        let refused = PayloadType::from_schema(&schema, options);
        assert!(refused.is_err(), "{tag:?} with {marker:?} is accepted");
    }
}

/// Prose with pieces of tags and JSON in it, for the property below.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<ui-json>".to_string()),
        Just("</ui-json>".to_string()),
        Just("<ui-json>\n```json\n".to_string()),
        Just("\n```\n".to_string()),
        Just("[{\"id\": \"a\"}]".to_string()),
        Just("[{\"id\": \"b\", ".to_string()),
        Just("}}".to_string()),
        Just("DATA_PROPOSAL: {\"operations\": []}".to_string()),
        Just("`".to_string()),
        Just("> ".to_string()),
        Just("\n\n".to_string()),
        "[a-z <>/\\n\"{}\\[\\],:-]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Nothing removed is lost, and the stream equals the one-shot parse at every
    /// chunking, for texts made of tags, fences, values and prose in any order.
    #[test]
    fn tagged_blocks_keep_every_invariant(
        pieces in prop::collection::vec(piece(), 0..10),
        sizes in prop::collection::vec(1usize..9, 1..4),
    ) {
        let text: String = pieces.concat();
        let options = tagged_options();
        let parser = Parser::new(&options);
        check_marker_mode(&parser, &options, &text, &sizes);
    }
}
