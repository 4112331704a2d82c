//! Properties of marker-mode parsing over generated responses: text without markers is
//! the message unchanged, and any built-in payload rendered into a response the way
//! models write it parses back to itself, with the prose around it as the message; an
//! abandoned draft never hides the block and words after it (docs/spec.md §1.14); and CRLF line
//! endings read as LF ones do.

use payload_builtin::{
    ColumnChanges, ColumnSpec, ColumnType, DataOperation, DataProposal, SchemaMode,
    SchemaOperation, SchemaProposal,
};
use payload_core::suggestions::Handler;
use payload_core::{suggestions::SuggestedAction, suggestions::SuggestedValue};
use payload_tests::parse;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Prose a model writes around payloads, with no marker in it (markers are upper case
/// and these are lower case), and nothing that could turn into a fence or quote.
fn prose() -> impl Strategy<Value = String> {
    "[a-z0-9 ,.!?'\"(){}\\[\\]:;\n\t\u{e9}\u{4e2d}]{0,120}"
}

fn text() -> impl Strategy<Value = String> {
    // Any characters, markers excepted: the message must be the text, trimmed.
    any::<String>().prop_filter("no marker", |s| {
        !s.contains("SUGGESTED_")
            && !s.contains("_PROPOSAL")
            && !s.contains("SELFHELP")
            && !s.contains("COMMAND")
            && !s.contains("SEARCH_REFINEMENT")
    })
}

fn words() -> impl Strategy<Value = String> {
    // Values with every character JSON must escape.
    "[a-zA-Z0-9 \"\\\\{}\\[\\]:,\n\u{e9}]{1,24}"
}

fn column_type() -> impl Strategy<Value = ColumnType> {
    prop_oneof![
        Just(ColumnType::Text),
        Just(ColumnType::Number),
        Just(ColumnType::Date),
        Just(ColumnType::Boolean),
    ]
}

fn schema_operation() -> impl Strategy<Value = SchemaOperation> {
    prop_oneof![
        (words(), column_type()).prop_map(|(name, column_type)| SchemaOperation::Add {
            column: ColumnSpec {
                name,
                column_type,
                required: None,
                options: None,
                filter_display: None,
            },
            after_column_id: None,
        }),
        (words(), words()).prop_map(|(column_id, name)| SchemaOperation::Modify {
            column_id,
            changes: ColumnChanges {
                name: Some(name),
                ..ColumnChanges::default()
            },
        }),
        words().prop_map(|column_id| SchemaOperation::Remove { column_id }),
        (words(), proptest::option::of(words())).prop_map(|(column_id, after_column_id)| {
            SchemaOperation::Reorder {
                column_id,
                after_column_id,
            }
        }),
    ]
}

fn schema_proposal() -> impl Strategy<Value = SchemaProposal> {
    (
        proptest::collection::vec(schema_operation(), 1..5),
        proptest::option::of(words()),
    )
        .prop_map(|(operations, reasoning)| SchemaProposal {
            mode: SchemaMode::Update,
            reasoning,
            table_name: None,
            table_description: None,
            operations,
            sample_rows: None,
        })
}

fn data_proposal() -> impl Strategy<Value = DataProposal> {
    proptest::collection::vec((0u8..3, words(), words()), 1..6).prop_map(|ops| {
        let operations = ops
            .into_iter()
            .enumerate()
            .map(|(i, (kind, key, value))| {
                let mut map = Map::new();
                map.insert(key, Value::String(value));
                let row_id = i as u64 + 1;
                match kind {
                    0 => DataOperation::Add { data: map },
                    1 => DataOperation::Update {
                        row_id,
                        changes: map,
                    },
                    _ => DataOperation::Delete { row_id },
                }
            })
            .collect();
        DataProposal {
            reasoning: None,
            operations,
        }
    })
}

fn chips() -> impl Strategy<Value = Vec<SuggestedValue>> {
    proptest::collection::vec(
        (words(), words()).prop_map(|(label, value)| SuggestedValue { label, value }),
        1..5,
    )
}

fn buttons() -> impl Strategy<Value = Vec<SuggestedAction>> {
    proptest::collection::vec(
        (
            words(),
            prop_oneof![Just("close_chat"), Just("open_filters"), Just("export_csv")],
        )
            .prop_map(|(label, action)| SuggestedAction {
                label,
                action: action.to_string(),
                handler: Handler::Client,
            }),
        1..4,
    )
}

/// How a model writes the marker line and the JSON after it.
fn render(marker: &str, json: &Value, style: u8, pretty: bool) -> String {
    let body = if pretty {
        serde_json::to_string_pretty(json).unwrap()
    } else {
        serde_json::to_string(json).unwrap()
    };
    match style {
        0 => format!("{marker}: {body}"),
        1 => format!("**{marker}:**\n{body}"),
        2 => format!("**{marker}**: {body}"),
        3 => format!("## {marker}:\n{body}"),
        4 => format!("{marker}:\n```json\n{body}\n```"),
        5 => format!("```json\n{marker}: {body}\n```"),
        6 => format!("- *{marker}*:\n{body}"),
        7 => format!("{marker}:\n~~~json\n{body}\n~~~~"),
        8 => format!("**\u{200B}{marker}:**\u{2060} {body}"),
        _ => format!("````\n{marker}: {body}\n````"),
    }
}

fn expected_message(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The marker `DATA_PROPOSAL` as models spell it at a line's start: its own spelling or
/// another case, spaces or hyphens for the underscore; a heading, bullet or emphasis
/// around it; with or without its colon; the value on its line or the next, fenced or
/// not. Returns the text and whether it is the marker exactly, with its colon.
fn label_before_value(
    spelling: u8,
    prefix: u8,
    colon: bool,
    layout: u8,
    value: &str,
) -> (String, bool) {
    let name = match spelling {
        0 => "DATA_PROPOSAL",
        1 => "data_proposal",
        2 => "Data Proposal",
        3 => "DATA-PROPOSAL",
        _ => "Data_Proposal",
    };
    let label = match prefix {
        0 => name.to_string(),
        1 => format!("### {name}"),
        2 => format!("- {name}"),
        3 => format!("**{name}**"),
        _ => format!("1. *{name}*"),
    };
    let colon_text = if colon { ":" } else { "" };
    let body = match layout {
        0 => format!(" {value}"),
        1 => format!("\n{value}"),
        2 => format!("\n```json\n{value}\n```"),
        _ => format!(" ```json\n{value}\n```"),
    };
    (format!("{label}{colon_text}{body}"), spelling == 0 && colon)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// docs/spec.md §1.16: a value after something written as the marker, at a line's
    /// start, is never left in the message in silence: it is the block (the marker
    /// exactly, with its colon), or it stays with a `near_miss_marker` warning and a
    /// missed block the agent re-asks for.
    #[test]
    fn a_value_after_a_marker_like_label_is_read_or_reported(
        spelling in 0u8..5, prefix in 0u8..5, colon: bool, layout in 0u8..4,
        before in prose(), after in prose(),
    ) {
        let value = r#"{"operations": [{"action": "delete", "row_id": 7}]}"#;
        let (block, exact) = label_before_value(spelling, prefix, colon, layout, value);
        let text = format!("{before}\n\n{block}\n\n{after}");
        let parsed = parse("table_view", &text);
        if exact {
            prop_assert!(parsed.custom_payload.is_some(), "{text:?}: {:?}", parsed.rejected);
        } else {
            prop_assert!(parsed.custom_payload.is_none());
            prop_assert!(
                parsed.warnings.iter().any(|w| w.kind == payload_core::WarningKind::NearMissMarker),
                "{text:?}: {:?}", parsed.warnings
            );
            prop_assert!(parsed.missed_blocks().iter().any(|m| m.kind == "data_proposal"), "{text:?}");
            prop_assert!(parsed.message.contains("delete"), "the value stays in the message");
        }
    }

    /// The marker plainly meant, in a form that is not a marker (docs/markers.md, "Near
    /// misses"): written as a tag around the value, with a note before its colon, or as
    /// the info string of the fence that holds the value, in any spelling. The value is
    /// never read and never left in silence: it stays in the message with a
    /// `near_miss_marker` warning and a missed block the agent re-asks for.
    #[test]
    fn a_tag_a_note_or_an_info_string_before_a_value_is_reported(
        spelling in 0u8..5, form in 0u8..3, colon: bool, layout in 0u8..4,
        before in prose(), after in prose(),
    ) {
        let value = r#"{"operations": [{"action": "delete", "row_id": 7}]}"#;
        let (label, _) = label_before_value(spelling, 0, false, 0, "");
        let label = label.trim_end();
        let colon_text = if colon { ":" } else { "" };
        let block = match form {
            0 => format!("<{label}>{value}</{label}>"),
            1 => {
                let (noted, _) = label_before_value(spelling, 3, true, layout, value);
                noted.replacen(':', " (a first draft):", 1)
            }
            _ => format!("```{label}{colon_text}\n{value}\n```"),
        };
        let text = format!("{before}\n\n{block}\n\n{after}");
        let parsed = parse("table_view", &text);
        prop_assert!(parsed.custom_payload.is_none(), "{text:?}");
        prop_assert!(
            parsed.warnings.iter().any(|w| w.kind == payload_core::WarningKind::NearMissMarker),
            "{text:?}: {:?}", parsed.warnings
        );
        prop_assert!(parsed.missed_blocks().iter().any(|m| m.kind == "data_proposal"), "{text:?}");
        prop_assert!(parsed.message.contains("delete"), "the value stays in the message");
    }

    #[test]
    fn text_without_markers_is_the_message(text in text()) {
        let parsed = parse("table_view", &text);
        prop_assert_eq!(parsed.message, text.trim());
        prop_assert!(parsed.custom_payload.is_none() && parsed.rejected.is_empty());
    }

    #[test]
    fn schema_proposals_parse_back(
        proposal in schema_proposal(), before in prose(), after in prose(),
        style in 0u8..10, pretty: bool,
    ) {
        let json = serde_json::to_value(&proposal).unwrap();
        let text = format!("{before}\n\n{}\n\n{after}", render("SCHEMA_PROPOSAL", &json, style, pretty));
        let parsed = parse("table_view", &text);
        prop_assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
        prop_assert_eq!(parsed.payload::<SchemaProposal>(), Some(&proposal));
        prop_assert_eq!(parsed.message, expected_message(&[&before, &after]));
    }

    #[test]
    fn data_proposals_parse_back(
        proposal in data_proposal(), before in prose(), after in prose(),
        style in 0u8..10, pretty: bool,
    ) {
        let json = serde_json::to_value(&proposal).unwrap();
        let text = format!("{before}\n\n{}\n\n{after}", render("DATA_PROPOSAL", &json, style, pretty));
        let parsed = parse("table_view", &text);
        prop_assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
        prop_assert_eq!(parsed.payload::<DataProposal>(), Some(&proposal));
        prop_assert_eq!(parsed.message, expected_message(&[&before, &after]));
    }

    #[test]
    fn suggestions_parse_back(
        values in chips(), actions in buttons(), before in prose(), middle in prose(),
        style in 0u8..10, pretty: bool,
    ) {
        let text = format!(
            "{before}\n\n{}\n\n{middle}\n\n{}",
            render("SUGGESTED_VALUES", &serde_json::to_value(&values).unwrap(), style, pretty),
            render("SUGGESTED_ACTIONS", &serde_json::to_value(&actions).unwrap(), style, pretty),
        );
        let parsed = parse("table_view", &text);
        prop_assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        prop_assert_eq!(parsed.suggested_values, Some(values));
        prop_assert_eq!(parsed.suggested_actions, Some(actions));
        prop_assert_eq!(parsed.message, expected_message(&[&before, &middle]));
    }
}

/// A line of a response, for the line-ending property: prose, quotes, list items (with
/// blocks indented under them), fences and blocks.
fn response_line() -> impl Strategy<Value = String> {
    let chips = r#"[{"label": "Yes", "value": "Yes"}]"#;
    prop_oneof![
        prose().prop_map(|p| p.replace('\n', " ")),
        Just(String::new()),
        Just(format!("> SUGGESTED_VALUES: {chips}")),
        Just(format!("SUGGESTED_VALUES: {chips}")),
        Just(format!("    SUGGESTED_VALUES: {chips}")),
        Just(format!(
            "- SUGGESTED_ACTIONS: {}",
            r#"[{"label": "Close", "action": "close_chat", "handler": "client"}]"#
        )),
        Just("- item".to_string()),
        Just("  - nested item".to_string()),
        Just("```".to_string()),
        Just("~~~json".to_string()),
        Just("SUGGESTED_VALUES:".to_string()),
        Just("DATA_PROPOSAL: {\"operations\": [".to_string()),
        Just(r#"DATA_PROPOSAL: {"operations": [{"action": "delete", "row_id": 7}]}"#.to_string()),
        Just("<blockquote>".to_string()),
        Just("</blockquote>".to_string()),
    ]
}

/// The parse with its line endings made LF, for comparing.
fn as_lf(parsed: &payload_core::ParsedResponse) -> Value {
    let mut json = serde_json::to_value(parsed).unwrap();
    fn fold(value: &mut Value) {
        match value {
            Value::String(s) => *s = s.replace("\r\n", "\n"),
            Value::Array(items) => items.iter_mut().for_each(fold),
            Value::Object(members) => members.values_mut().for_each(fold),
            _ => {}
        }
    }
    fold(&mut json);
    // Parts' spans count bytes, which each carriage return adds one to: left out here
    // (the parts' own checks run on both texts).
    for part in json["parts"].as_array_mut().into_iter().flatten() {
        part.as_object_mut().map(|part| part.remove("span"));
    }
    // Locations count columns, which a carriage return does not change on the line;
    // lines are the same. Everything else must be equal.
    json
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// docs/spec.md §1.14: a draft cut anywhere (or any JSON-like scribble) followed by prose, the
    /// corrected block and closing words: the block is accepted, the words are shown,
    /// and every marker-mode invariant holds, streamed too.
    #[test]
    fn an_abandoned_draft_never_hides_what_follows(
        proposal in data_proposal(),
        cut in any::<prop::sample::Index>(),
        scribble in proptest::collection::vec(any::<u8>(), 0..60),
        pretty: bool,
        which: bool,
        size in 1usize..9,
    ) {
        let options = payload_benches::table_view_options();
        let parser = payload_core::Parser::new(&options);
        let draft = if which {
            let json = serde_json::to_value(&proposal).unwrap();
            let body = if pretty {
                serde_json::to_string_pretty(&json).unwrap()
            } else {
                serde_json::to_string(&json).unwrap()
            };
            let ends: Vec<usize> = body.char_indices().map(|(i, _)| i).skip(1).collect();
            body[1..ends[cut.index(ends.len())]].to_string()
        } else {
            payload_benches::invariants::draft_from_bytes(&scribble)
        };
        payload_benches::invariants::check_abandoned_draft(&parser, &options, &draft, &[size]);
    }

    /// Line endings: a response with CRLF line endings parses as the same response
    /// with LF ones (same payloads, rejections, warnings; the message equal once its
    /// line endings are made LF).
    #[test]
    fn crlf_reads_as_lf(lines in proptest::collection::vec(response_line(), 1..12)) {
        let lf = lines.join("\n");
        let crlf = lines.join("\r\n");
        let options = payload_benches::table_view_options();
        let parser = payload_core::Parser::new(&options);
        payload_benches::invariants::check_marker_mode(&parser, &options, &crlf, &[3]);
        let (from_lf, from_crlf) = (parser.parse(&lf), parser.parse(&crlf));
        prop_assert_eq!(from_crlf.message.replace("\r\n", "\n"), from_lf.message.clone());
        prop_assert_eq!(as_lf(&from_crlf), as_lf(&from_lf));
    }
}
