//! Properties of marker-mode parsing over generated responses: text without markers is
//! the message unchanged, and any built-in payload rendered into a response the way
//! models write it parses back to itself, with the prose around it as the message.

use payload_builtin::{
    ColumnChanges, ColumnSpec, ColumnType, DataOperation, DataProposal, SchemaMode,
    SchemaOperation, SchemaProposal,
};
use payload_core::Handler;
use payload_core::{SuggestedAction, SuggestedValue};
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
        _ => format!("- *{marker}*:\n{body}"),
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn text_without_markers_is_the_message(text in text()) {
        let parsed = parse("table_view", &text);
        prop_assert_eq!(parsed.message, text.trim());
        prop_assert!(parsed.custom_payload.is_none() && parsed.rejected.is_empty());
    }

    #[test]
    fn schema_proposals_parse_back(
        proposal in schema_proposal(), before in prose(), after in prose(),
        style in 0u8..7, pretty: bool,
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
        style in 0u8..7, pretty: bool,
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
        style in 0u8..7, pretty: bool,
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
