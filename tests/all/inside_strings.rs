//! Text inside a value is the value's (docs/spec.md §1.19): a marker written inside a
//! JSON string never starts a block, and a value sent inside a JSON string is read as
//! the value wherever a value may stand (docs/values.md); every character a removal
//! takes is accounted for (docs/spec.md §1.9, §1.13).

use payload_benches::invariants;
use payload_core::{ErrorKind, WarningKind};
use payload_tests::parse;

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
    assert_eq!(parsed.rejected[0].errors[0].kind, ErrorKind::Unclosed);
    assert_eq!(parsed.message, "Thanks.");
    // It closes, but what it closes does not read: the same.
    let text = "DATA_PROPOSAL: {\"note\": \"draft\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 7}]}\n\nThanks.";
    let parsed = parse("table_view", text);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    assert_eq!(parsed.rejected[0].errors[0].kind, ErrorKind::Unclosed);
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
    assert_eq!(parsed.rejected[0].errors[0].kind, ErrorKind::Truncated);
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
