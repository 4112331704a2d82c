//! docs/spec.md §1, rule by rule, on responses written the way models write them.

use payload_core::suggestions::Combination;
use payload_core::{ErrorKind, WarningKind};
use payload_tests::parse;
use serde_json::json;

const CREATE: &str = r#"{
  "mode": "create",
  "table_name": "Books",
  "table_description": "Books I want to read",
  "operations": [
    {"action": "add", "column": {"name": "Title", "type": "text", "required": true}},
    {"action": "add", "column": {"name": "Status", "type": "select", "options": ["To read", "Read"]}}
  ],
  "sample_rows": [{"Title": "Dune", "Status": "Read"}, {"Title": "Emma", "Status": "To read"}]
}"#;

fn response(before: &str, block: &str, after: &str) -> String {
    format!("{before}{block}{after}")
}

// 1.1 Elements -------------------------------------------------------------------

#[test]
fn every_element_is_found_in_one_response() {
    let text = format!(
        "Here is the table.\n\nSCHEMA_PROPOSAL: {CREATE}\n\nSUGGESTED_VALUES: [{{\"label\": \"Yes\", \"value\": \"Yes, go ahead\"}}]\n\nSUGGESTED_ACTIONS: [{{\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"client\"}}]"
    );
    // On a page whose combination rule lets every block go with every other.
    let free = payload_benches::table_view_options().combination(Combination::FREE);
    let parsed = payload_core::parse(&text, &free);
    assert_eq!(parsed.message, "Here is the table.");
    assert_eq!(
        parsed.custom_payload.as_ref().unwrap().kind,
        "schema_proposal"
    );
    assert_eq!(
        parsed.suggested_values.as_ref().unwrap()[0].value,
        "Yes, go ahead"
    );
    assert_eq!(
        parsed.suggested_actions.as_ref().unwrap()[0].action,
        "close_chat"
    );
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}

// 1.18 Blocks that go together -----------------------------------------------------

/// table.that keeps a proposal alone: beside it, chips and buttons are read, then
/// taken out with a `combination` warning each that quotes their items; the payload,
/// the message and nothing else change.
#[test]
fn a_page_that_keeps_a_payload_alone_takes_the_suggestions_out_with_a_warning() {
    let text = format!(
        "Here is the table.\n\nSCHEMA_PROPOSAL: {CREATE}\n\nSUGGESTED_VALUES: [{{\"label\": \"Yes\", \"value\": \"Yes, go ahead\"}}]\n\nSUGGESTED_ACTIONS: [{{\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"client\"}}]"
    );
    let parsed = parse("table_view", &text);
    assert_eq!(parsed.message, "Here is the table.");
    assert!(parsed.custom_payload.is_some());
    assert!(parsed.suggested_values.is_none() && parsed.suggested_actions.is_none());
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    let kinds: Vec<WarningKind> = parsed.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(kinds, [WarningKind::Combination, WarningKind::Combination]);
    assert!(
        parsed.warnings[0]
            .message
            .contains(r#""value":"Yes, go ahead""#)
    );
    assert!(
        parsed.warnings[1]
            .message
            .contains(r#""action":"close_chat""#)
    );
    let options = payload_benches::table_view_options();
    let parser = payload_core::Parser::new(&options);
    payload_benches::invariants::check_marker_mode(&parser, &options, &text, &[1, 5, 64]);
}

#[test]
fn absent_elements_are_null_in_json() {
    let parsed = parse("table_view", "Just a plain answer.");
    let json = serde_json::to_value(&parsed).unwrap();
    assert_eq!(
        json,
        json!({"message": "Just a plain answer.", "suggested_values": null,
               "suggested_actions": null, "custom_payload": null,
               "rejected": [], "warnings": [],
               "parts": [{"text": "Just a plain answer.", "span": [0, 20]}]})
    );
}

// 1.2 Markers ----------------------------------------------------------------------

#[test]
fn markers_may_be_bold_italic_or_hold_the_colon_inside() {
    for marker in [
        "SCHEMA_PROPOSAL:",
        "**SCHEMA_PROPOSAL**:",
        "*SCHEMA_PROPOSAL*:",
        "**SCHEMA_PROPOSAL:**",
        "_SCHEMA_PROPOSAL_:",
        "__SCHEMA_PROPOSAL__ :",
        "SCHEMA_PROPOSAL :",
    ] {
        let text = response(
            "Proposal below.\n\n",
            &format!("{marker} {CREATE}"),
            "\n\nThoughts?",
        );
        let parsed = parse("tables_list", &text);
        assert!(parsed.custom_payload.is_some(), "{marker}: {parsed:?}");
        assert_eq!(parsed.message, "Proposal below.\n\nThoughts?", "{marker}");
    }
}

#[test]
fn markers_are_case_sensitive() {
    let text = format!("schema_proposal: {CREATE}");
    let parsed = parse("tables_list", &text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.message, text);
}

#[test]
fn heading_and_bullet_prefixes_are_removed_with_the_marker() {
    for prefix in ["## ", "### ", "- ", "* ", "1. "] {
        let text = format!("Intro.\n\n{prefix}SCHEMA_PROPOSAL: {CREATE}\n\nOutro.");
        let parsed = parse("tables_list", &text);
        assert!(parsed.custom_payload.is_some(), "{prefix}");
        assert_eq!(parsed.message, "Intro.\n\nOutro.", "{prefix:?}");
    }
}

#[test]
fn a_quoted_marker_is_text_never_a_payload() {
    let text = "You wrote:\n\n> SCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": []}\n\nThat isn't valid yet.";
    let parsed = parse("tables_list", text);
    assert!(parsed.custom_payload.is_none());
    assert!(parsed.rejected.is_empty());
    assert_eq!(parsed.message, text);
}

#[test]
fn a_marker_inside_a_longer_name_is_text() {
    let text = format!("MY_SCHEMA_PROPOSAL: {CREATE}");
    let parsed = parse("tables_list", &text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.message, text);
}

// 1.3 What may follow a marker -------------------------------------------------------

#[test]
fn prose_after_a_marker_keeps_it_in_the_message() {
    let text = "I'll send a SCHEMA_PROPOSAL: once you confirm the columns {and the name}.";
    let parsed = parse("tables_list", text);
    assert_eq!(parsed.message, text);
    assert!(parsed.custom_payload.is_none() && parsed.rejected.is_empty());
}

#[test]
fn a_fence_opener_after_the_marker_and_its_closer_are_removed() {
    let text = format!("Here you go:\n\nSCHEMA_PROPOSAL:\n```json\n{CREATE}\n```\n\nLet me know.");
    let parsed = parse("tables_list", &text);
    assert!(parsed.custom_payload.is_some());
    assert_eq!(parsed.message, "Here you go:\n\nLet me know.");
}

#[test]
fn a_fence_holding_only_the_block_is_removed() {
    let text = format!("Here you go:\n\n```json\nSCHEMA_PROPOSAL: {CREATE}\n```\n\nLet me know.");
    let parsed = parse("tables_list", &text);
    assert!(parsed.custom_payload.is_some());
    assert_eq!(parsed.message, "Here you go:\n\nLet me know.");
}

#[test]
fn two_fence_openers_make_it_prose() {
    let text = format!("SCHEMA_PROPOSAL: ```json ```json\n{CREATE}");
    let parsed = parse("tables_list", &text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.message, text);
}

// 1.4 Extraction ----------------------------------------------------------------------

#[test]
fn brackets_inside_strings_do_not_end_the_block() {
    let text = r#"SCHEMA_PROPOSAL: {"mode": "create", "reasoning": "Use } and ] freely, even \"quoted}\"", "table_name": "T", "table_description": "D", "operations": [{"action": "add", "column": {"name": "A", "type": "text"}}], "sample_rows": [{"A": "x"}, {"A": "y"}]} trailing words"#;
    let parsed = parse("tables_list", text);
    assert!(parsed.custom_payload.is_some(), "{parsed:?}");
    assert_eq!(parsed.message, "trailing words");
}

#[test]
fn invalid_json_is_rejected_with_its_text_kept() {
    let text = "Proposal:\n\nSCHEMA_PROPOSAL: {\"mode\": \"create\" \"operations\" [}\n\nDone.";
    let parsed = parse("tables_list", text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.rejected.len(), 1);
    let rejected = &parsed.rejected[0];
    assert_eq!(rejected.kind, "schema_proposal");
    assert!(rejected.raw.contains("\"mode\": \"create\""));
    assert_eq!(rejected.errors[0].kind, ErrorKind::Parsing);
    assert!(rejected.errors[0].location.is_some());
    assert_eq!(parsed.message, "Proposal:\n\nDone.");
}

#[test]
fn a_truncated_block_is_removed_and_rejected_never_accepted() {
    let text = "Here is the table:\n\nSCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": [{\"action\": \"add\", \"column\": {\"name\": \"Ti";
    let parsed = parse("tables_list", text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.message, "Here is the table:");
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].errors[0].kind, ErrorKind::Truncated);
    assert!(parsed.rejected[0].raw.ends_with("\"Ti"));
}

#[test]
fn repaired_json_is_accepted_with_a_warning() {
    let text = "SCHEMA_PROPOSAL: {\"mode\": \"create\", \"table_name\": \"T\", \"table_description\": \"D\", \"operations\": [{\"action\": \"add\", \"column\": {\"name\": \"A\", \"type\": \"text\"}},], \"sample_rows\": [{\"A\": \"x\"}, {\"A\": \"y\"},],}";
    let parsed = parse("tables_list", text);
    assert!(parsed.custom_payload.is_some(), "{parsed:?}");
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::Repaired)
    );
}

// 1.5 Validation ------------------------------------------------------------------------

#[test]
fn an_invalid_payload_is_rejected_with_every_error() {
    // create mode with a remove operation, no table_description, no sample rows.
    let text = r#"SCHEMA_PROPOSAL: {"mode": "create", "table_name": "T", "operations": [{"action": "remove", "column_id": "col_1"}]}"#;
    let parsed = parse("tables_list", text);
    assert!(parsed.custom_payload.is_none());
    let errors = &parsed.rejected[0].errors;
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert!(paths.contains(&"/operations/0/action"), "{paths:?}");
    assert!(paths.contains(&"/table_description"), "{paths:?}");
    assert!(paths.contains(&"/sample_rows"), "{paths:?}");
    assert_eq!(parsed.message, "");
}

#[test]
fn schema_errors_point_at_the_member() {
    let text = r#"DATA_PROPOSAL: {"operations": [{"action": "add", "data": {"A": 1}}, {"action": "update", "changes": {"A": 2}}]}"#;
    let parsed = parse("table_view", text);
    let errors = &parsed.rejected[0].errors;
    assert!(
        errors
            .iter()
            .any(|e| e.path == "/operations/1/row_id" && e.kind == ErrorKind::Missing),
        "{errors:#?}"
    );
}

#[test]
fn an_unknown_enum_value_names_the_allowed_ones() {
    let text = r#"SCHEMA_PROPOSAL: {"mode": "update", "operations": [{"action": "add", "column": {"name": "Colour", "type": "colour"}}]}"#;
    let parsed = parse("table_view", text);
    let error = &parsed.rejected[0].errors[0];
    assert_eq!(error.path, "/operations/0/column/type");
    let expected = error.expected.as_deref().unwrap();
    for value in ["text", "number", "date", "boolean", "select"] {
        assert!(expected.contains(value), "{expected}");
    }
}

// 1.6 One custom payload ------------------------------------------------------------------

#[test]
fn the_first_valid_block_wins_and_later_valid_ones_are_extra() {
    let update =
        r#"{"mode": "update", "operations": [{"action": "remove", "column_id": "col_2"}]}"#;
    let data = r#"{"operations": [{"action": "delete", "row_id": 4}]}"#;
    let text = format!("First:\nSCHEMA_PROPOSAL: {update}\nSecond:\nDATA_PROPOSAL: {data}\nEnd.");
    let parsed = parse("table_view", &text);
    assert_eq!(
        parsed.custom_payload.as_ref().unwrap().kind,
        "schema_proposal"
    );
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].kind, "data_proposal");
    assert_eq!(parsed.rejected[0].errors[0].kind, ErrorKind::ExtraPayload);
    // Blocks on lines of their own leave paragraph breaks (docs/spec.md §1.9).
    assert_eq!(parsed.message, "First:\n\nSecond:\n\nEnd.");
}

#[test]
fn an_invalid_first_block_lets_a_later_valid_one_win() {
    let bad = r#"{"mode": "upsert", "operations": []}"#;
    let good = r#"{"operations": [{"action": "delete", "row_id": 4}]}"#;
    let text = format!("SCHEMA_PROPOSAL: {bad}\n\nDATA_PROPOSAL: {good}");
    let parsed = parse("table_view", &text);
    assert_eq!(
        parsed.custom_payload.as_ref().unwrap().kind,
        "data_proposal"
    );
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].kind, "schema_proposal");
}

// 1.7 Not on this page ------------------------------------------------------------------------

#[test]
fn a_block_of_a_type_the_page_does_not_offer_is_rejected() {
    let text = "Sure.\n\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 3}]}\n\nAnything else?";
    let parsed = parse("tables_list", text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.rejected[0].kind, "data_proposal");
    assert_eq!(parsed.rejected[0].errors[0].kind, ErrorKind::NotOnPage);
    assert_eq!(parsed.message, "Sure.\n\nAnything else?");
}

// 1.8 Suggestions -----------------------------------------------------------------------------

#[test]
fn invalid_suggestion_items_are_dropped_with_a_warning() {
    let text = r#"Pick one.
SUGGESTED_VALUES: [{"label": "Yes", "value": "Yes please"}, {"label": "No"}, "Maybe", {"label": "Later", "value": "Remind me later"}]"#;
    let parsed = parse("table_view", text);
    let values = parsed.suggested_values.unwrap();
    assert_eq!(values.len(), 2);
    assert_eq!(values[1].label, "Later");
    let dropped = parsed
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::DroppedItem)
        .count();
    assert_eq!(dropped, 2);
    assert_eq!(parsed.message, "Pick one.");
}

#[test]
fn the_model_can_never_invent_an_action() {
    let text = r#"SUGGESTED_ACTIONS: [
  {"label": "Filters", "action": "open_filters", "handler": "client"},
  {"label": "Delete all", "action": "delete_everything", "handler": "client"},
  {"label": "Filters on server", "action": "open_filters", "handler": "server"},
  {"label": "Close", "action": "close_chat", "handler": "client"}
]"#;
    let parsed = parse("table_view", text);
    let actions: Vec<String> = parsed
        .suggested_actions
        .unwrap()
        .into_iter()
        .map(|a| a.action)
        .collect();
    assert_eq!(actions, ["open_filters", "close_chat"]);
    let unknown = parsed
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownAction)
        .count();
    assert_eq!(unknown, 2);
}

#[test]
fn page_actions_are_not_offered_on_other_pages() {
    let text = r#"SUGGESTED_ACTIONS: [{"label": "Filters", "action": "open_filters", "handler": "client"}]"#;
    let parsed = parse("tables_list", text);
    assert!(parsed.suggested_actions.is_none());
    assert_eq!(parsed.warnings[0].kind, WarningKind::UnknownAction);
}

#[test]
fn the_first_suggestion_block_wins_and_later_ones_are_removed() {
    let text = "A\nSUGGESTED_VALUES: [{\"label\": \"One\", \"value\": \"1\"}]\nB\nSUGGESTED_VALUES: [{\"label\": \"Two\", \"value\": \"2\"}]\nC";
    let parsed = parse("table_view", text);
    assert_eq!(parsed.suggested_values.unwrap()[0].label, "One");
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::DuplicateBlock)
    );
    assert_eq!(parsed.message, "A\n\nB\n\nC");
    // The removed block's text is kept.
    assert!(parsed.rejected.iter().any(|r| r.raw.contains("\"Two\"")));
}

#[test]
fn a_suggestion_block_that_is_not_an_array_is_rejected() {
    let text = "SUGGESTED_VALUES: {\"label\": \"Yes\", \"value\": \"y\"}";
    let parsed = parse("table_view", text);
    assert!(parsed.suggested_values.is_none());
    assert_eq!(parsed.rejected[0].kind, "suggested_values");
}

// 1.9 Message -----------------------------------------------------------------------------------

#[test]
fn removal_folds_blank_runs_and_keeps_everything_else_byte_for_byte() {
    let text = format!(
        "  Line one,  with  spaces.\n\n\n\nSCHEMA_PROPOSAL: {CREATE}\n\n\n\n*Keep* this   exactly.\n"
    );
    let parsed = parse("tables_list", &text);
    assert_eq!(
        parsed.message,
        "Line one,  with  spaces.\n\n*Keep* this   exactly."
    );
}

// 1.10 Tool payloads ------------------------------------------------------------------------------

#[test]
fn a_tool_payload_supersedes_the_parsed_one() {
    let text = format!("SCHEMA_PROPOSAL: {CREATE}");
    let tool =
        payload_core::CustomPayload::new("search_results", json!({"query": "x", "hits": []}));
    let parsed =
        payload_registry::parse_turn("tables_list", &text, std::slice::from_ref(&tool)).unwrap();
    assert_eq!(parsed.custom_payload, Some(tool));
    assert_eq!(parsed.rejected[0].kind, "schema_proposal");
    assert_eq!(
        parsed.rejected[0].errors[0].kind,
        ErrorKind::SupersededByTool
    );
    assert!(parsed.rejected[0].raw.starts_with("SCHEMA_PROPOSAL:"));
}

#[test]
fn the_last_tool_payload_wins() {
    let first = payload_core::CustomPayload::new("a", json!(1));
    let last = payload_core::CustomPayload::new("b", json!(2));
    let parsed =
        payload_registry::parse_turn("tables_list", "Done.", &[first, last.clone()]).unwrap();
    assert_eq!(parsed.custom_payload, Some(last));
    assert!(parsed.rejected.is_empty());
}

#[test]
fn unknown_pages_are_an_error() {
    let error = payload_registry::parse_response("no_such_page", "x").unwrap_err();
    assert!(error.to_string().contains("table_view"), "{error}");
}

#[test]
fn the_registry_has_no_conflicts() {
    payload_registry::Registry::global().check().unwrap();
}

// How models really write (docs/spec.md §1.14-1.17, §9.2, §9.3, line endings) -----

const DELETE: &str = r#"{"operations": [{"action": "delete", "row_id": 7}]}"#;

/// The one-shot parse on the table view page, with every marker-mode invariant checked
/// (stream equals one-shot under one-byte and uneven chunks, accounting, allow-lists).
fn checked(text: &str) -> payload_core::ParsedResponse {
    let options = payload_benches::table_view_options();
    let parser = payload_core::Parser::new(&options);
    for sizes in [&[1usize][..], &[3, 1, 7], &[64]] {
        payload_benches::invariants::check_marker_mode(&parser, &options, text, sizes);
    }
    parser.parse(text)
}

fn kinds(parsed: &payload_core::ParsedResponse) -> Vec<ErrorKind> {
    parsed
        .rejected
        .iter()
        .flat_map(|r| r.errors.iter().map(|e| e.kind))
        .collect()
}

fn warned(parsed: &payload_core::ParsedResponse, kind: WarningKind) -> Vec<String> {
    parsed
        .warnings
        .iter()
        .filter(|w| w.kind == kind)
        .map(|w| w.message.clone())
        .collect()
}

#[test]
fn an_abandoned_draft_ends_at_the_next_marker_line() {
    let text = format!(
        "Let me fix that.\n\nDATA_PROPOSAL: {{\"operations\": [{{\"action\": \"delete\",\nDATA_PROPOSAL: {DELETE}\n\nThanks."
    );
    let parsed = checked(&text);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    assert_eq!(kinds(&parsed), [ErrorKind::Unclosed]);
    assert_eq!(parsed.message, "Let me fix that.\n\nThanks.");
}

#[test]
fn an_unclosed_block_ends_at_a_blank_line_before_prose() {
    let text = format!(
        "Draft:\n\nDATA_PROPOSAL: {{\"operations\": [\n  {{\"action\": \"delete\"\n\nSorry, let me start over.\n\nDATA_PROPOSAL: {DELETE}\n\nThanks."
    );
    let parsed = checked(&text);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    assert_eq!(kinds(&parsed), [ErrorKind::Unclosed]);
    assert_eq!(
        parsed.message,
        "Draft:\n\nSorry, let me start over.\n\nThanks."
    );
    // A blank line inside the value, before JSON that goes on, does not end it.
    let text = "DATA_PROPOSAL: {\"operations\": [\n\n  {\"action\": \"delete\", \"row_id\": 7}\n\n]}\n\nDone.";
    let parsed = checked(text);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    assert_eq!(parsed.message, "Done.");
}

#[test]
fn a_missing_brace_before_a_closing_fence_does_not_swallow_the_text_after_it() {
    for fence in ["```", "~~~", "````"] {
        let text = format!(
            "Here:\n\nDATA_PROPOSAL:\n{fence}json\n{{\"operations\": [{{\"action\": \"delete\", \"row_id\": 7}}]\n{fence}\n\nShall I go on?"
        );
        let parsed = checked(&text);
        assert_eq!(kinds(&parsed), [ErrorKind::Unclosed], "{fence}");
        assert_eq!(parsed.message, "Here:\n\nShall I go on?", "{fence}");
        assert!(!parsed.rejected[0].raw.contains("Shall"), "{fence}");
    }
}

#[test]
fn truncated_only_when_the_text_really_ends_inside_the_value() {
    let parsed = checked("Sure.\n\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"del");
    assert_eq!(kinds(&parsed), [ErrorKind::Truncated]);
    let parsed = checked("Sure.\n\nDATA_PROPOSAL: {\"operations\": [\n\n  {\"action\": 1,\n\n");
    assert_eq!(kinds(&parsed), [ErrorKind::Truncated]);
}

#[test]
fn tilde_and_long_backtick_fences_after_a_marker_are_fences() {
    for (open, close) in [("~~~json", "~~~"), ("````json", "````"), ("~~~~", "~~~~~")] {
        let text = format!("Deleting.\n\nDATA_PROPOSAL:\n{open}\n{DELETE}\n{close}\n\nOk?");
        let parsed = checked(&text);
        assert!(parsed.custom_payload.is_some(), "{open}: {parsed:#?}");
        assert_eq!(parsed.message, "Deleting.\n\nOk?", "{open}");
        // A fence around the marker and its block.
        let text = format!("Deleting.\n\n{open}\nDATA_PROPOSAL: {DELETE}\n{close}\n\nOk?");
        let parsed = checked(&text);
        assert!(parsed.custom_payload.is_some(), "{open}: {parsed:#?}");
        assert_eq!(parsed.message, "Deleting.\n\nOk?", "{open}");
    }
}

#[test]
fn a_fence_closed_by_fewer_characters_is_not_closed() {
    // The closer of three backticks does not close a four-backtick fence: the fence
    // holding the sample runs on, and the marker in it stays code.
    let text = format!("Sample:\n\n````\n```\nDATA_PROPOSAL: {DELETE}\n```\n````\n\nDone.");
    let parsed = checked(&text);
    assert!(parsed.custom_payload.is_none(), "{parsed:#?}");
    assert_eq!(parsed.message, text.trim());
    // After a marker, a short closer is not taken with the block.
    let text = format!("DATA_PROPOSAL:\n````json\n{DELETE}\n```\n````");
    let parsed = checked(&text);
    assert!(parsed.custom_payload.is_some());
    assert_eq!(parsed.message, "```\n````");
}

#[test]
fn cjk_emoji_and_punctuation_may_touch_a_marker() {
    for before in ["好的，这是表格。", "了解しました", "🙂", "(", "—", "。"] {
        let text = format!("{before}DATA_PROPOSAL: {DELETE}");
        let parsed = checked(&text);
        assert!(parsed.custom_payload.is_some(), "{before}: {parsed:#?}");
        assert_eq!(parsed.message, before, "{before}");
    }
    // (A `_` right before the name is emphasis: `_DATA_PROPOSAL_:` is italic.)
    for glued in ["X", "9", "MY_", "a_"] {
        let text = format!("{glued}DATA_PROPOSAL: {DELETE}");
        let parsed = checked(&text);
        assert!(parsed.custom_payload.is_none(), "{glued}");
        assert_eq!(parsed.message, text);
    }
}

#[test]
fn invisible_characters_are_space_around_a_marker_and_repaired_between_tokens() {
    for invisible in ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'] {
        for text in [
            format!("Ok.\nDATA_PROPOSAL:{invisible}{DELETE}"),
            format!("Ok.\nDATA_PROPOSAL{invisible}: {DELETE}"),
            format!("Ok.\n**{invisible}DATA_PROPOSAL:**{invisible} {DELETE}"),
            format!("Ok.\nword{invisible}DATA_PROPOSAL: {DELETE}"),
        ] {
            let parsed = checked(&text);
            assert!(parsed.custom_payload.is_some(), "{text:?}: {parsed:#?}");
        }
        let text = format!(
            "DATA_PROPOSAL: {{\"operations\":{invisible} [{{\"action\": \"delete\",{invisible}\"row_id\": 7}}]}}"
        );
        let parsed = checked(&text);
        assert!(parsed.custom_payload.is_some(), "{text:?}: {parsed:#?}");
        assert!(
            !warned(&parsed, WarningKind::Repaired).is_empty(),
            "{parsed:#?}"
        );
    }
}

#[test]
fn near_miss_markers_stay_in_the_message_with_a_warning() {
    for written in [
        "data_proposal:",
        "Data Proposal:",
        "DATA PROPOSAL:",
        "**Data-Proposal:**",
    ] {
        let text = format!("Here.\n\n{written} {DELETE}");
        let parsed = checked(&text);
        assert!(parsed.custom_payload.is_none(), "{written}");
        assert_eq!(parsed.message, text, "{written}");
        let warnings = warned(&parsed, WarningKind::NearMissMarker);
        assert_eq!(warnings.len(), 1, "{written}: {parsed:#?}");
        assert!(warnings[0].contains("DATA_PROPOSAL"), "{warnings:?}");
        assert_eq!(parsed.missed_blocks().len(), 1);
        assert_eq!(parsed.missed_blocks()[0].kind, "data_proposal");
    }
    for prose in [
        "The data proposal: I will send it once you confirm.",
        "> data_proposal: {}",
        "`data proposal: {}`",
    ] {
        let parsed = checked(prose);
        assert!(
            warned(&parsed, WarningKind::NearMissMarker).is_empty(),
            "{prose}"
        );
    }
}

#[test]
fn a_marker_alone_on_its_line_is_removed_with_a_warning() {
    for line in [
        "SUGGESTED_VALUES:",
        "**SUGGESTED_VALUES:**",
        "- SUGGESTED_VALUES:",
        "### SUGGESTED_VALUES:  ",
    ] {
        let text = format!("Pick one of these.\n{line}\nTell me which you prefer.");
        let parsed = checked(&text);
        assert_eq!(
            parsed.message, "Pick one of these.\n\nTell me which you prefer.",
            "{line:?}"
        );
        let warnings = warned(&parsed, WarningKind::MissingValue);
        assert_eq!(warnings.len(), 1, "{line:?}");
        assert!(warnings[0].contains("SUGGESTED_VALUES:"), "{warnings:?}");
        assert!(parsed.rejected.is_empty());
        assert_eq!(parsed.missed_blocks()[0].kind, "suggested_values");
    }
    // Mid-sentence it is prose.
    for text in [
        "I'll send a DATA_PROPOSAL: once you confirm.",
        "I'll send a DATA_PROPOSAL:\nonce you confirm.",
    ] {
        let parsed = checked(text);
        assert_eq!(parsed.message, text);
        assert!(parsed.warnings.is_empty(), "{parsed:#?}");
    }
}

#[test]
fn crlf_blank_lines_end_quotes_as_lf_ones_do() {
    let text = "> SUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"a\"}]\r\n\r\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes\"}]\r\n\r\nOk?";
    let parsed = checked(text);
    assert_eq!(
        parsed.suggested_values.as_ref().map(Vec::len),
        Some(1),
        "{parsed:#?}"
    );
    assert_eq!(
        parsed.message,
        "> SUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"a\"}]\r\n\r\nOk?"
    );
}

#[test]
fn a_block_under_a_nested_bullet_leaves_no_blank_line() {
    for eol in ["\n", "\r\n"] {
        let text = format!(
            "- Books{eol}  - Dune{eol}    DATA_PROPOSAL: {DELETE}{eol}  - Emma{eol}- Films"
        );
        let parsed = checked(&text);
        assert!(parsed.custom_payload.is_some());
        assert_eq!(
            parsed.message,
            format!("- Books{eol}  - Dune{eol}  - Emma{eol}- Films"),
            "{eol:?}"
        );
    }
}
