//! Text inside a value is the value's (docs/spec.md §1.19): a marker written inside a
//! JSON string never starts a block, and a value sent inside a JSON string is read as
//! the value wherever a value may stand (docs/values.md); every character a removal
//! takes is accounted for (docs/spec.md §1.9, §1.13).

use payload_benches::invariants;
use payload_core::{ErrorKind, LlmPayload, WarningKind};
use payload_tests::parse;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const ACTIONS: &str = r#"SUGGESTED_ACTIONS: [{\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"client\"}]"#;

/// A data proposal whose row value holds, after a raw line break, a line that starts
/// with a marker: the user's own cell text, pasted as it was.
fn proposal_with_marker_line(line: &str) -> String {
    format!(
        "Here is the row.\n\nDATA_PROPOSAL: {{\"operations\": [{{\"action\": \"add\", \"data\": {{\"Notes\": \"first line\n{line}\nlast line\"}}}}]}}\n\nShall I add it?"
    )
}

#[test]
fn a_marker_line_inside_a_string_is_the_strings_text() {
    let text = proposal_with_marker_line(ACTIONS);
    let parsed = parse("table_view", &text);
    let payload = parsed
        .custom_payload
        .as_ref()
        .expect("the proposal is kept");
    assert_eq!(payload.kind, "data_proposal");
    let notes = &payload.data()["operations"][0]["data"]["Notes"];
    assert!(
        notes.as_str().unwrap().contains("close_chat"),
        "the cell keeps its text: {notes}"
    );
    assert!(parsed.suggested_actions.is_none(), "{parsed:#?}");
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    assert_eq!(parsed.message, "Here is the row.\n\nShall I add it?");
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::Repaired),
        "the raw line breaks are repaired: {:?}",
        parsed.warnings
    );
    let options = payload_benches::table_view_options();
    for sizes in [&[1][..], &[3, 7], &[64]] {
        assert_eq!(invariants::stream_checked(&options, &text, sizes), parsed);
    }
}

#[test]
fn a_value_left_open_in_a_string_still_ends_at_the_marker_line() {
    // The draft's string never closes the value: the corrected block is read.
    let text = "DATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"note\": \"draft\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 7}]}\n\nThanks.";
    let parsed = parse("table_view", text);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].errors[0].kind(), ErrorKind::Unclosed);
    assert_eq!(parsed.message, "Thanks.");
    // It closes, but what it closes does not read: the same.
    let text = "DATA_PROPOSAL: {\"note\": \"draft\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 7}]}\n\nThanks.";
    let parsed = parse("table_view", text);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    assert_eq!(parsed.rejected[0].errors[0].kind(), ErrorKind::Unclosed);
    let options = payload_benches::table_view_options();
    assert_eq!(invariants::stream_checked(&options, text, &[2, 5]), parsed);
}

#[test]
fn a_marker_followed_by_a_string_holding_a_value_reads_the_value() {
    let value = serde_json::json!({"operations": [{"action": "delete", "row_id": 7}]});
    let held = serde_json::to_string(&value.to_string()).unwrap();
    for text in [
        format!("DATA_PROPOSAL: {held}"),
        format!("Here it is.\n\nDATA_PROPOSAL: {held}\n\nThanks."),
        format!("Here it is: DATA_PROPOSAL: {held} thanks."),
        format!("DATA_PROPOSAL:\n```json\n{held}\n```\nThanks."),
    ] {
        let parsed = parse("table_view", &text);
        let payload = parsed.custom_payload.as_ref().unwrap_or_else(|| {
            panic!("{text:?}: {parsed:#?}");
        });
        assert_eq!(payload.data(), &value, "{text:?}");
        assert!(
            parsed
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::Repaired
                    && w.message.contains("inside a JSON string")),
            "{text:?}: {:?}",
            parsed.warnings
        );
        assert!(!parsed.message.contains("DATA_PROPOSAL"), "{text:?}");
        let options = payload_benches::table_view_options();
        invariants::check_marker_mode(&payload_core::Parser::new(&options), &options, &text, &[3]);
    }
}

#[test]
fn a_string_holding_a_string_is_an_error_and_a_plain_string_is_prose() {
    let value = serde_json::json!({"operations": []}).to_string();
    // Cut before it closes: truncated, as any value the text ends inside.
    let text = format!(
        "DATA_PROPOSAL: {}",
        &serde_json::to_string(&value).unwrap()[..8]
    );
    let parsed = parse("table_view", &text);
    assert_eq!(parsed.rejected[0].errors[0].kind(), ErrorKind::Truncated);
    // A quote not followed by a bracket is prose, as before.
    let parsed = parse("table_view", "I'll send a DATA_PROPOSAL: \"soon\".");
    assert_eq!(parsed.message, "I'll send a DATA_PROPOSAL: \"soon\".");
}

#[test]
fn whitespace_a_block_takes_from_a_shared_line_is_in_its_seam() {
    let text =
        "Hi DATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 7}]}\t\tthere";
    let parsed = parse("table_view", text);
    assert_eq!(parsed.message, "Hi there");
    let seams = parsed.removed_spans();
    assert_eq!(seams.len(), 1);
    let removed = &text[seams[0].clone()];
    assert!(
        removed.ends_with("}\t\t"),
        "the tabs go with the block: {removed:?}"
    );
    invariants::check_accounting(text, &parsed);
}

/// A row with an id and a note, read whole-response.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "NOTED_ROW")]
struct NotedRow {
    /// The row.
    row_id: u64,
    /// A note on it.
    note: String,
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Prose around a value: no bracket, quote, backtick or marker (lower case).
    fn prose() -> impl Strategy<Value = String> {
        "[a-z0-9 ,.!?:;\n\t\u{e9}\u{4e2d}]{0,60}"
    }

    /// A line that starts with a marker of the table view page, as a model or a user
    /// would write it, JSON-escaped as it stands inside a string.
    fn marker_line() -> impl Strategy<Value = String> {
        let lines = prop::sample::select(vec![
            r#"SUGGESTED_ACTIONS: [{"label": "Close", "action": "close_chat", "handler": "client"}]"#,
            r#"SUGGESTED_VALUES: [{"label": "Yes", "value": "Yes"}]"#,
            r#"**DATA_PROPOSAL:** {"operations": [{"action": "delete", "row_id": 7}]}"#,
            r#"- SCHEMA_PROPOSAL: {"mode": "create"}"#,
            "SUGGESTED_ACTIONS: [",
            "DATA_PROPOSAL:",
            "### SUGGESTED_VALUES: []",
        ]);
        (lines, "[a-z ]{0,8}").prop_map(|(line, tail)| {
            let escaped = serde_json::to_string(&format!("{line}{tail}")).unwrap();
            escaped[1..escaped.len() - 1].to_string()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// No block starts inside a string (docs/spec.md §1.19), one-shot and streamed.
        #[test]
        fn a_marker_line_in_a_string_never_starts_a_block(
            before in prose(),
            after in prose(),
            cell in "[a-z ]{0,12}",
            line in marker_line(),
            size in 1usize..40,
        ) {
            let block = format!(
                "DATA_PROPOSAL: {{\"operations\": [{{\"action\": \"add\", \"data\": {{\"Notes\": \"{cell}{}{cell}\"}}}}]}}",
                invariants::LINE_SLOT
            );
            let options = payload_benches::table_view_options();
            let parser = payload_core::Parser::new(&options);
            let before = format!("{before}\n\n");
            let after = format!("\n\n{after}");
            invariants::check_marker_in_string(
                &parser,
                &options,
                (&before, &block, &after),
                &line,
                &[size],
            );
        }

        /// Text that does not end inside a value is never truncated, and a value sent
        /// inside a string reads as the value wherever it stands.
        #[test]
        fn a_value_held_in_a_string_reads_as_the_value(
            before in prose(),
            after in prose(),
            row_id in 0u64..1000,
            note in "[a-zA-Z0-9 \"\\\\{}\\[\\]:,\n\u{e9}]{0,24}",
        ) {
            let value = serde_json::json!({"row_id": row_id, "note": note});
            payload_benches::json_invariants::check_held_value(
                &before,
                &value,
                &after,
                &NotedRow::TYPE,
            );
        }
    }
}
