//! docs/spec.md §1.2, §1.9, §1.11-1.13, §2.4 and §5.5: where a marker is not a marker, the
//! spellings models use, responses cut off early, paragraphs, accounting, previews and error
//! locations — each checked one-shot and, where it matters, streamed one character at a time.

use payload_benches::table_view_options;
use payload_core::{ErrorKind, Location, ParsedResponse, WarningKind};
use payload_core::{stream::StreamEvent, stream::StreamParser};
use payload_tests::parse;

const DELETE: &str = r#"{"operations": [{"action": "delete", "row_id": 7}]}"#;
const ADD: &str = r#"{"operations": [{"action": "add", "data": {"Title": "Dune"}}]}"#;

/// The one-shot parse on the table view page, checked against a stream fed one
/// character at a time (same result, deltas are the message).
fn both(text: &str) -> ParsedResponse {
    let parsed = parse("table_view", text);
    let mut stream = StreamParser::new(&table_view_options());
    let mut shown = String::new();
    let mut cut = 0;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        for event in stream.push(&text[cut..end]) {
            if let StreamEvent::TextDelta { text, .. } = event {
                shown.push_str(&text);
            }
        }
        cut = end;
    }
    let (events, streamed) = stream.finish();
    for event in events {
        if let StreamEvent::TextDelta { text, .. } = event {
            shown.push_str(&text);
        }
    }
    assert_eq!(streamed, parsed, "stream equals one-shot for {text:?}");
    assert_eq!(shown, parsed.message, "deltas are the message for {text:?}");
    parsed
}

/// A response in which the marker must stay prose: nothing accepted, nothing
/// rejected, the message is the text.
fn assert_prose(text: &str) {
    let parsed = both(text);
    assert!(parsed.custom_payload.is_none(), "{text:?}: {parsed:?}");
    assert!(parsed.rejected.is_empty(), "{text:?}: {parsed:?}");
    assert_eq!(parsed.message, text.trim(), "{text:?}");
}

// §1.11 Where a marker is not a marker ------------------------------------------------

#[test]
fn a_marker_in_an_inline_code_span_is_prose() {
    assert_prose(&format!(
        "To remove a row, you could send `DATA_PROPOSAL: {DELETE}` yourself."
    ));
    assert_prose(&format!("Send ``DATA_PROPOSAL: {DELETE}`` to delete it."));
    assert_prose(&format!("Like ```DATA_PROPOSAL: {DELETE}``` this."));
    // After a closed span, a marker counts again.
    let parsed = both(&format!("Use `code` then\nDATA_PROPOSAL: {ADD}"));
    assert!(parsed.custom_payload.is_some());
}

#[test]
fn a_marker_in_a_code_fence_with_other_content_is_prose() {
    assert_prose(&format!(
        "Here is how a client would do it:\n\n```python\nprint('sending')\nDATA_PROPOSAL: {DELETE}\nsend(x)\n```\n\nNothing was changed."
    ));
    assert_prose(&format!(
        "The format:\n\n```\nDATA_PROPOSAL: {DELETE}\n// then wait\n```"
    ));
    assert_prose(&format!(
        "```text\nExplanation first\nDATA_PROPOSAL: {DELETE}\n```"
    ));
}

#[test]
fn a_fence_holding_only_blocks_goes_with_them() {
    let parsed = both(&format!(
        "Adding it.\n\n```json\nDATA_PROPOSAL: {ADD}\n\nSUGGESTED_VALUES: [{{\"label\": \"Yes\", \"value\": \"Yes\"}}]\n```\n\nDone."
    ));
    assert!(parsed.custom_payload.is_some(), "{parsed:?}");
    // Both blocks were read; table.that's page keeps a proposal alone, so the chips
    // are taken out by its combination rule (docs/spec.md §1.18), named in a warning.
    assert!(parsed.suggested_values.is_none(), "{parsed:?}");
    assert_eq!(parsed.warnings.len(), 1, "{parsed:?}");
    assert_eq!(parsed.warnings[0].kind, WarningKind::Combination);
    assert_eq!(parsed.message, "Adding it.\n\nDone.");
}

#[test]
fn quoted_markers_are_prose() {
    for text in [
        format!("> DATA_PROPOSAL: {DELETE}"),
        format!("- > DATA_PROPOSAL: {DELETE}"),
        format!("1. > DATA_PROPOSAL: {DELETE}"),
        format!("You pasted:\n> This is what I got:\nDATA_PROPOSAL: {DELETE}"),
        format!("<blockquote>\nDATA_PROPOSAL: {DELETE}\n</blockquote>"),
        format!("<BLOCKQUOTE cite=\"x\">They said DATA_PROPOSAL: {DELETE}</BLOCKQUOTE>"),
    ] {
        assert_prose(&text);
    }
}

#[test]
fn a_quote_ends_at_a_blank_line_or_its_closing_tag() {
    let parsed = both(&format!("> quoted\n\nDATA_PROPOSAL: {ADD}"));
    assert!(parsed.custom_payload.is_some(), "{parsed:?}");
    let parsed = both(&format!(
        "<blockquote>quoted</blockquote>\nDATA_PROPOSAL: {ADD}"
    ));
    assert!(parsed.custom_payload.is_some(), "{parsed:?}");
    // A list item interrupts the quote's paragraph.
    let parsed = both(&format!("> quoted\n- DATA_PROPOSAL: {ADD}"));
    assert!(parsed.custom_payload.is_some(), "{parsed:?}");
}

// §1.2 Tolerated spellings ------------------------------------------------------------

#[test]
fn three_emphasis_characters_any_space_and_any_fence_info() {
    for text in [
        format!("***DATA_PROPOSAL:*** {ADD}"),
        format!("___DATA_PROPOSAL___: {ADD}"),
        format!("DATA_PROPOSAL\u{00A0}: {ADD}"),
        format!("DATA_PROPOSAL:\u{202F}{ADD}"),
        format!("DATA_PROPOSAL :\t{ADD}"),
        format!("DATA_PROPOSAL:\n```JSON\n{ADD}\n```"),
        format!("DATA_PROPOSAL:\n```jsonc\n{ADD}\n```"),
    ] {
        let parsed = both(&text);
        assert!(parsed.custom_payload.is_some(), "{text:?}: {parsed:?}");
        assert_eq!(parsed.message, "", "{text:?}");
    }
}

// §1.12 Cut off early -------------------------------------------------------------------

#[test]
fn a_text_that_ends_after_a_marker_is_truncated() {
    for (text, raw) in [
        ("Here it is.\n\nDATA_PROPOSAL:", "DATA_PROPOSAL:"),
        ("Here it is.\n\n**DATA_PROPOSAL:** ", "**DATA_PROPOSAL:**"),
        (
            "Here it is.\n\nDATA_PROPOSAL:\n```json\n",
            "DATA_PROPOSAL:\n```json",
        ),
        (
            "Here it is.\n\nDATA_PROPOSAL: {\"operations\": [",
            "DATA_PROPOSAL: {\"operations\": [",
        ),
    ] {
        let parsed = both(text);
        assert_eq!(parsed.message, "Here it is.", "{text:?}");
        assert_eq!(parsed.rejected.len(), 1, "{text:?}");
        assert_eq!(parsed.rejected[0].raw, raw);
        assert_eq!(parsed.rejected[0].errors[0].kind, ErrorKind::Truncated);
    }
}

// §1.9 Paragraphs survive removal -------------------------------------------------------

#[test]
fn a_block_on_its_own_line_leaves_the_paragraph_break() {
    let parsed = both(&format!("Renaming.\nDATA_PROPOSAL: {ADD}\nDone."));
    assert_eq!(parsed.message, "Renaming.\n\nDone.");
    let parsed = both(&format!("Renaming.\r\nDATA_PROPOSAL: {ADD}\r\nDone."));
    assert_eq!(parsed.message, "Renaming.\r\n\r\nDone.");
    let parsed = both(&format!(
        "Renaming.\r\n\r\n\r\nDATA_PROPOSAL: {ADD}\r\n\r\nDone."
    ));
    assert_eq!(parsed.message, "Renaming.\r\n\r\nDone.");
    let parsed = both(&format!("Inline DATA_PROPOSAL: {ADD} and on."));
    assert_eq!(parsed.message, "Inline and on.");
}

// §1.13 Nothing removed is lost ------------------------------------------------------------

#[test]
fn dropped_items_are_quoted_in_their_warnings() {
    let parsed = both(
        "Pick one.\n\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes\"}, {\"label\": \"Only a label here\"}]\n\nSUGGESTED_ACTIONS: [{\"label\": \"Print everything\", \"action\": \"print_all\", \"handler\": \"client\"}]",
    );
    assert_eq!(parsed.suggested_values.as_ref().unwrap().len(), 1);
    let warnings: Vec<&str> = parsed.warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(
        warnings.iter().any(|w| w.contains("Only a label here")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("Print everything")),
        "{warnings:?}"
    );
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::UnknownAction)
    );
    let kinds: Vec<&str> = parsed.accepted_blocks().map(|(kind, _)| kind).collect();
    assert_eq!(kinds, ["suggested_values", "suggested_actions"]);
}

#[test]
fn a_removed_prefix_is_in_the_blocks_raw() {
    let parsed = both("Intro\n\n## SCHEMA_PROPOSAL: {\"mode\": \"nope\"}\n\nOutro");
    assert_eq!(parsed.message, "Intro\n\nOutro");
    assert!(parsed.rejected[0].raw.starts_with("## SCHEMA_PROPOSAL"));
    let parsed = both(&format!("Intro\n- DATA_PROPOSAL: {ADD}\nOutro"));
    let (_, raw) = parsed.accepted_blocks().next().unwrap();
    assert!(raw.starts_with("- DATA_PROPOSAL"), "{raw}");
}

// §5.5 Previews obey the allow-lists ------------------------------------------------------

#[test]
fn previews_never_show_what_the_result_drops() {
    let text = "Done.\n\nSUGGESTED_ACTIONS: [{\"label\": \"Nuke\", \"action\": \"drop_database\", \"handler\": \"server\"}, {\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"server\"}, {\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"client\"}, {\"label\": \"Later\", \"action\": \"close_chat\", \"handler\": \"client\"}]\n\nSCHEMA_PROPOSAL: {\"mode\": \"create\"}";
    for size in [1, 3, 7, 40] {
        let mut stream = StreamParser::new(&table_view_options());
        let mut events = Vec::new();
        let chars: Vec<char> = text.chars().collect();
        for chunk in chars.chunks(size) {
            events.extend(stream.push(&chunk.iter().collect::<String>()));
        }
        let (last, parsed) = stream.finish();
        events.extend(last);
        let mut previews = 0;
        for event in &events {
            if let StreamEvent::PayloadProgress { kind, partial, .. } = event {
                if kind == "suggested_actions" {
                    previews += 1;
                    let shown = partial.to_string();
                    assert!(!shown.contains("drop_database"), "{shown}");
                    assert!(!shown.contains("\"server\""), "{shown}");
                }
            }
        }
        assert!(previews > 0, "actions were previewed");
        assert_eq!(parsed.suggested_actions.as_ref().unwrap().len(), 2);
    }
}

// §2.4 Error locations -------------------------------------------------------------------

#[test]
fn errors_point_at_the_member_at_fault() {
    let text = "Here:\n\nDATA_PROPOSAL: {\n  \"operations\": [\n    {\"action\": \"delete\", \"row_id\": \"seven\"}\n  ]\n}";
    let parsed = both(text);
    let error = &parsed.rejected[0].errors[0];
    assert!(error.path.starts_with("/operations/0"), "{error:?}");
    let location = error.location.unwrap();
    assert_eq!(location.line, 5, "{error:?}");
    assert!(location.column > 5, "{error:?}");
    assert_ne!(
        location,
        Location {
            line: 3,
            column: 16
        },
        "not the block's brace"
    );
}
