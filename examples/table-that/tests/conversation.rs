//! The recorded conversation: every turn parsed on its page, checked against what the
//! turn is about. Together the turns cover every element of table.that: chips, actions,
//! both proposals, repairs, invented actions, quoted markers, prose mentions,
//! off-page payloads and a truncated block.

use payload_builtin::{DataOperation, DataProposal, SchemaMode, SchemaProposal};
use payload_core::{ErrorKind, ParsedResponse, WarningKind};
use std::path::Path;

// Linked for its page registrations.
use table_that as _;

fn turn(file: &str) -> (String, ParsedResponse) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conversation")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let page = file
        .trim_end_matches(".md")
        .split_once('-')
        .map(|(_, page)| page)
        .unwrap();
    let parsed = payload_registry::parse_response(page, &text).unwrap();
    (text, parsed)
}

#[test]
fn turn_1_asks_questions_with_chips() {
    let (_, parsed) = turn("01-tables_list.md");
    assert_eq!(parsed.suggested_values.as_ref().unwrap().len(), 3);
    assert!(parsed.message.ends_with("job posting URL?"));
    assert!(parsed.custom_payload.is_none() && parsed.rejected.is_empty());
}

#[test]
fn turn_2_proposes_the_table() {
    let (_, parsed) = turn("02-tables_list.md");
    let proposal: &SchemaProposal = parsed.payload().unwrap();
    assert_eq!(proposal.mode, SchemaMode::Create);
    assert_eq!(proposal.operations.len(), 4);
    assert_eq!(proposal.sample_rows.as_ref().unwrap().len(), 2);
    assert!(!parsed.message.contains("```"));
    assert!(parsed.message.ends_with("how it looks."));
}

#[test]
fn turn_3_adds_rows_after_a_repair() {
    let (_, parsed) = turn("03-table_view.md");
    let proposal: &DataProposal = parsed.payload().unwrap();
    assert_eq!(proposal.operations.len(), 5);
    assert!(matches!(
        proposal.operations[4],
        DataOperation::Delete { row_id: 7 }
    ));
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::Repaired)
    );
    assert!(parsed.message.ends_with("called you back."));
}

#[test]
fn turn_4_updates_columns_inside_a_fence() {
    let (_, parsed) = turn("04-table_view.md");
    let proposal: &SchemaProposal = parsed.payload().unwrap();
    assert_eq!(proposal.mode, SchemaMode::Update);
    assert!(
        parsed.message.ends_with("going after:"),
        "{}",
        parsed.message
    );
}

#[test]
fn turn_5_keeps_valid_chips_and_registered_actions_only() {
    let (_, parsed) = turn("05-table_view.md");
    assert_eq!(parsed.suggested_values.as_ref().unwrap().len(), 2);
    let actions: Vec<&str> = parsed
        .suggested_actions
        .as_ref()
        .unwrap()
        .iter()
        .map(|a| a.action.as_str())
        .collect();
    assert_eq!(actions, ["open_filters", "close_chat"]);
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::DroppedItem)
    );
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::UnknownAction)
    );
    assert!(!parsed.message.contains("SUGGESTED"));
}

#[test]
fn turn_6_rejects_a_payload_the_page_does_not_offer() {
    let (text, parsed) = turn("06-table_edit.md");
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].errors[0].kind(), ErrorKind::NotOnPage);
    // The quoted block and the prose mention stay in the message.
    assert!(parsed.message.contains("> DATA_PROPOSAL: {\"operations\""));
    assert!(
        parsed
            .message
            .contains("I'll send a SCHEMA_PROPOSAL: once you confirm")
    );
    assert_eq!(text.matches("DATA_PROPOSAL").count(), 2);
    assert_eq!(parsed.message.matches("DATA_PROPOSAL").count(), 1);
}

#[test]
fn turn_7_never_accepts_a_truncated_proposal() {
    let (_, parsed) = turn("07-tables_list.md");
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.rejected[0].errors[0].kind(), ErrorKind::Truncated);
    assert_eq!(
        parsed.message,
        "Sure, let's set up a reading list. Here's the proposal:"
    );
}

#[test]
fn turn_8_offers_to_close_the_chat() {
    let (_, parsed) = turn("08-table_view.md");
    assert_eq!(parsed.suggested_actions.unwrap()[0].action, "close_chat");
    assert!(parsed.suggested_values.is_none());
}

#[test]
fn the_recording_lists_every_file_on_its_page() {
    let mut files: Vec<_> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("conversation"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
    files.sort();
    assert_eq!(files.len(), table_that::CONVERSATION.len());
    for (file, recorded) in files.iter().zip(table_that::CONVERSATION) {
        let (text, parsed) = turn(file);
        assert_eq!(recorded.text, text, "{file}");
        assert!(file.ends_with(&format!("-{}.md", recorded.page)), "{file}");
        let truncated = parsed
            .rejected
            .iter()
            .any(|r| r.errors.iter().any(|e| e.kind() == ErrorKind::Truncated));
        assert_eq!(recorded.cut, truncated, "{file}");
    }
}
