//! A2UI's own parser conformance suites (`conformance/parser.yaml`,
//! `conformance/streaming_parser.yaml`, copied unmodified from the A2UI repository; see
//! `conformance/SOURCE.md`), run as A2UI's Python SDK runs them
//! (`agent_sdks/python/tests/conformance/test_conformance.py`): each case's input read
//! by this example, its result compared with the case's expectation.
//!
//! The streaming suite runs on the progressive stream ([`A2uiStream::progressive`]) of
//! the version each case's catalog names, with that catalog, as A2UI's streaming parser
//! draws each surface as it grows; what the stream refuses ([`StreamPart::Refused`], or
//! an error) is the error A2UI's parser raises.
//!
//! Every case runs. The cases that pass are listed in [`PARSER_PASSES`] and
//! [`STREAMING_PASSES`], and the test holds the run to those lists both ways: a case on
//! a list that fails, or a case off the lists that passes, fails the test, so the lists
//! (and the README, which explains each case that does not pass) stay true.

use a2ui::agent::{Ordered, ordered};
use a2ui::{A2uiAgent, A2uiStream, Catalog, Protocol, StreamPart, Surfaces};
use payload_core::runtime::RuntimeOptions;
use payload_core::{
    ErrorKind, ParseOptions, ParsedResponse, Parser, PayloadCount, PayloadError, PayloadType,
};
use serde_json::{Value, json};

/// The `parser.yaml` cases that pass, by name.
const PARSER_PASSES: &[&str] = &[
    "test_parse_empty_response",
    "test_parse_response_only_text_no_tags",
    "test_parse_response_empty_tags",
    "test_parse_response_only_json_with_tags",
    "test_parse_response_with_text_and_tags",
    "test_parse_response_with_trailing_text",
    "test_parse_response_multiple_blocks",
    "test_parse_response_with_markdown_blocks",
    "test_parse_response_invalid_json",
    "test_fix_payload_trailing_comma_list",
    "test_fix_payload_trailing_comma_object",
    "test_fix_payload_auto_wrap",
    "test_has_a2ui_parts_true",
    "test_has_a2ui_parts_false_no_tags",
    "test_has_a2ui_parts_false_only_open",
    "test_fix_payload_commas_in_strings",
];

/// The `streaming_parser.yaml` cases that pass, by position and name (some names are
/// used twice in the file).
const STREAMING_PASSES: &[(usize, &str)] = &[
    (0, "test_incremental_yielding"),
    (2, "test_complete_surface_ignore_orphan_component"),
    (3, "test_circular_reference_detection"),
    (4, "test_self_reference_detection"),
    (5, "test_interleaved_conversational_text"),
    (6, "test_split_tag_handling_for_text"),
    (7, "test_only_begin_rendering"),
    (8, "test_multiple_a2ui_blocks"),
    (9, "test_partial_json_and_incremental_yielding"),
    (10, "test_partial_single_child_string"),
    (11, "test_partial_template_componentId"),
    (12, "test_partial_children_lists"),
    (15, "test_partial_paths"),
    (16, "test_url_placeholders_with_hints"),
    (19, "test_message_ordering_buffering"),
    (20, "test_delete_surface_buffering"),
    (21, "test_cut_path"),
    (22, "test_strict_begin_rendering_validation"),
    (23, "test_yield_validation_failure"),
    (24, "test_delta_streaming_correctness"),
    (26, "test_incremental_data_model_streaming"),
    (27, "test_sniff_partial_invalid_datamodel_fails_gracefully"),
    (28, "test_sniff_partial_datamodel_with_cut_key"),
    (
        29,
        "test_sniff_partial_datamodel_cumulative_unmodified_keys",
    ),
    (30, "test_sniff_partial_datamodel_prunes_empty_keys"),
    (
        32,
        "test_sniff_partial_component_discards_empty_children_dict",
    ),
    (33, "test_partial_empty_dict_discarded"),
    (34, "test_sniff_partial_component_enforces_required_fields"),
    (35, "test_multiple_concurrent_surfaces"),
    (36, "test_incremental_yielding_v09"),
    (37, "test_waiting_for_root_component_v09"),
    (38, "test_complete_surface_ignore_orphan_component_v09"),
    (39, "test_circular_reference_detection_v09"),
    (40, "test_self_reference_detection_v09"),
    (41, "test_interleaved_conversational_text_v09"),
    (42, "test_split_tag_handling_for_text_v09"),
    (43, "test_create_surface_missing_catalog_id_v09"),
    (44, "test_only_create_surface_v09"),
    (45, "test_multiple_a2ui_blocks_v09"),
    (46, "test_partial_json_and_incremental_yielding_v09"),
    (47, "test_partial_single_child_string_v09"),
    (50, "test_data_model_before_components_v09"),
    (51, "test_data_model_after_components_v09"),
    (52, "test_partial_paths_v09"),
    (53, "test_cut_atomic_id_v09"),
    (54, "test_cut_cuttable_text_v09"),
    (55, "test_message_ordering_buffering_v09"),
    (56, "test_data_model_after_components_v09"),
    (57, "test_partial_paths_v09"),
    (58, "test_cut_atomic_id_v09"),
    (59, "test_cut_cuttable_text_v09"),
    (60, "test_message_ordering_buffering_v09"),
    (61, "test_delete_surface_buffering_v09"),
    (62, "test_cut_path_v09"),
    (63, "test_strict_begin_rendering_validation_v09"),
    (64, "test_yield_validation_failure_v09"),
    (65, "test_delta_streaming_correctness_v09"),
    (66, "test_multiple_re_yielding_scenarios_v09"),
    (67, "test_incremental_data_model_streaming_v09"),
    (
        68,
        "test_sniff_partial_invalid_datamodel_fails_gracefully_v09",
    ),
    (71, "test_sniff_partial_datamodel_prunes_empty_keys_v09"),
    (
        72,
        "test_sniff_partial_datamodel_prunes_empty_trailing_dict_v09",
    ),
    (
        73,
        "test_sniff_partial_component_discards_empty_children_dict_v09",
    ),
    (74, "test_partial_empty_dict_discarded_v09"),
    (
        75,
        "test_sniff_partial_component_enforces_required_fields_v09",
    ),
    (76, "test_multiple_concurrent_surfaces_v09"),
    (79, "test_v09_path_heuristic_relative_path"),
];

fn suite(file: &str) -> Vec<Value> {
    let path = format!("{}/conformance/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: Value = serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    match cases {
        Value::Array(cases) => cases,
        other => panic!("{path} is not a list of cases: {other}"),
    }
}

/// A2UI's `parse_response` reads the JSON between the tags with no catalog: the same
/// tag, read as any JSON list or object (a single object is a list of one, as A2UI's
/// fixer wraps it).
fn untyped_parser() -> Parser {
    let schema = json!({"title": "A2UI JSON", "type": ["array", "object"]});
    let options = RuntimeOptions {
        name: Some("a2ui_json".to_string()),
        tag: Some("a2ui-json".to_string()),
        ..RuntimeOptions::default()
    };
    let payload = *PayloadType::from_schema(&schema, options).expect("a payload type");
    let options = ParseOptions {
        suggestions: false,
        ..ParseOptions::default()
    }
    .payload(payload)
    .payload_count(PayloadCount::at_most(64));
    Parser::new(&options)
}

/// A single object is a list of one (A2UI's `parse_and_fix`).
fn as_list(value: &Value) -> Value {
    match value {
        Value::Array(_) => value.clone(),
        other => Value::Array(vec![other.clone()]),
    }
}

/// A2UI's error for a parse, if it raises one: no block at all; a block with nothing
/// between its tags; a block whose JSON does not read.
fn parse_error(parsed: &ParsedResponse) -> Option<String> {
    if let Some(missed) = parsed.missed_blocks().first() {
        let inside = missed
            .raw
            .trim()
            .trim_start_matches("<a2ui-json>")
            .trim_end_matches("</a2ui-json>")
            .trim();
        return Some(if inside.is_empty() {
            "A2UI JSON part is empty.".to_string()
        } else {
            format!("Failed to parse JSON: {}", missed.error.message())
        });
    }
    if let Some(rejected) = parsed.rejected.first() {
        return Some(format!(
            "Failed to parse JSON: {}",
            rejected.errors[0].message()
        ));
    }
    if parsed.payloads().next().is_none() {
        return Some("A2UI tags '<a2ui-json>' and '</a2ui-json>' not found in response.".into());
    }
    None
}

/// A2UI's response parts: each block with the text before it, then the trailing text.
fn response_parts(parsed: &ParsedResponse) -> Vec<Value> {
    let mut parts = Vec::new();
    let mut before = String::new();
    for piece in ordered(parsed) {
        match piece {
            Ordered::Text(prose) => before.push_str(prose),
            Ordered::Payload(payload) => {
                parts.push(json!({"text": before.trim(), "a2ui": as_list(payload.data())}));
                before.clear();
            }
        }
    }
    if !before.trim().is_empty() {
        parts.push(json!({"text": before.trim(), "a2ui": null}));
    }
    parts
}

/// An expected part as the runner compares it: its text (default "") and its `a2ui`
/// (default none).
fn expected_part(part: &Value) -> Value {
    json!({
        "text": part.get("text").and_then(Value::as_str).unwrap_or("").trim(),
        "a2ui": part.get("a2ui").cloned().unwrap_or(Value::Null),
    })
}

/// Runs one `parser.yaml` case: `Ok` when the result is the expected one.
fn run_parser_case(parser: &Parser, case: &Value) -> Result<(), String> {
    let input = case["input"].as_str().ok_or("no input")?;
    match case["action"].as_str().unwrap_or("parse_full") {
        "parse_full" => {
            let parsed = parser.parse(input);
            match (case.get("expect_error"), parse_error(&parsed)) {
                (Some(expected), Some(error)) => {
                    let expected = expected.as_str().unwrap_or_default();
                    if error.contains(expected) {
                        Ok(())
                    } else {
                        Err(format!("error {error:?}, expected {expected:?}"))
                    }
                }
                (Some(expected), None) => Err(format!("no error, expected {expected}")),
                (None, Some(error)) => Err(format!("error {error:?}")),
                (None, None) => {
                    let got = response_parts(&parsed);
                    let expected: Vec<Value> = case["expect"]
                        .as_array()
                        .ok_or("no expect")?
                        .iter()
                        .map(expected_part)
                        .collect();
                    if got == expected {
                        Ok(())
                    } else {
                        Err(format!("parts {got:?}, expected {expected:?}"))
                    }
                }
            }
        }
        "fix_payload" => {
            // The framework's reading of the JSON between the tags, repairs included.
            let parsed = parser.parse(&format!("<a2ui-json>{input}</a2ui-json>"));
            let got = parsed.payloads().next().map(|p| as_list(p.data()));
            if got.as_ref() == Some(&case["expect"]) {
                Ok(())
            } else {
                Err(format!("read {got:?}, expected {}", case["expect"]))
            }
        }
        "has_parts" => {
            // A block whose tags both stand in the text: any block not cut off.
            let parsed = parser.parse(input);
            let truncated = |kinds: &[ErrorKind]| kinds.contains(&ErrorKind::Truncated);
            let closed = parsed.payloads().next().is_some()
                || !parsed.missed_blocks().is_empty()
                || parsed
                    .rejected
                    .iter()
                    .any(|r| !truncated(&r.errors.iter().map(|e| e.kind()).collect::<Vec<_>>()));
            if Value::Bool(closed) == case["expect"] {
                Ok(())
            } else {
                Err(format!("has parts: {closed}"))
            }
        }
        other => Err(format!("unknown action {other}")),
    }
}

/// A2UI's error for what the stream refused: a block whose JSON does not read is
/// "Failed to parse JSON", any other refusal "Validation failed", with a missing member
/// said in the words of A2UI's validator (Python's `jsonschema`).
fn refusal(errors: &[PayloadError]) -> String {
    let reasons: Vec<String> = errors
        .iter()
        .map(|e| match e.kind() {
            ErrorKind::Missing => format!(
                "{} ('{}' is a required property)",
                e.message(),
                member(e.path())
            ),
            _ => e.message().to_string(),
        })
        .collect();
    if errors.iter().any(|e| e.kind() == ErrorKind::Parsing) {
        format!("Failed to parse JSON: {}", reasons.join("; "))
    } else {
        format!("Validation failed: {}", reasons.join("; "))
    }
}

/// The last member name of a JSON pointer.
fn member(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A2UI's streamed parts of one chunk: text, and the messages ready after it, each
/// run of messages joined to the text before it (as A2UI's `ResponsePart` holds both);
/// `Err` with A2UI's error when the chunk refused something (A2UI's parser raises).
fn stream_parts(parts: Vec<StreamPart>) -> Result<Vec<Value>, String> {
    let mut out: Vec<Value> = Vec::new();
    for part in parts {
        match part {
            StreamPart::Refused(errors) => return Err(refusal(&errors)),
            StreamPart::Text(text) if text.trim().is_empty() => {}
            StreamPart::Text(text) => out.push(json!({"text": text.trim(), "a2ui": null})),
            StreamPart::Ui(messages) => {
                let messages = serde_json::to_value(messages).expect("messages serialize");
                match out.last_mut() {
                    Some(last) if last["a2ui"].is_null() => last["a2ui"] = messages,
                    _ => out.push(json!({"text": "", "a2ui": messages})),
                }
            }
        }
    }
    Ok(out)
}

/// Runs one `streaming_parser.yaml` case, chunk by chunk.
fn run_streaming_case(case: &Value) -> Result<(), String> {
    // The version the case's catalog names, as A2UI's SDK picks its parser (v0.8
    // unless the catalog says 0.9).
    let protocol = match case["catalog"]["version"].as_str() {
        Some("0.9") => Protocol::V09,
        _ => Protocol::V08,
    };
    let agent = A2uiAgent::with_protocol(protocol, 64);
    // The client's catalog the case gives, as A2UI's parser validates against it.
    let mut surfaces = Surfaces::default();
    if let Some(components) = case["catalog"]["catalog_schema"]["components"].as_object()
        && !components.is_empty()
    {
        let catalog = Catalog::new(components.clone()).map_err(|e| e.to_string())?;
        surfaces = surfaces.with_catalog(catalog);
    }
    // A2UI's streaming parser draws each surface as it grows.
    let mut stream = A2uiStream::progressive(&agent, surfaces);
    let steps = case["steps"].as_array().ok_or("no steps")?;
    for (i, step) in steps.iter().enumerate() {
        let input = step["input"].as_str().ok_or("no input")?;
        let expect_error = step
            .get("expect_error")
            .or_else(|| case.get("expect_error"))
            .and_then(Value::as_str);
        let parts = stream
            .push(input)
            .map_err(|error| error.to_string())
            .and_then(stream_parts);
        match (parts, expect_error) {
            (Err(error), Some(expected)) if error.contains(expected) => {
                return Ok(());
            }
            (Err(error), _) => return Err(format!("step {i}: error {error}")),
            (Ok(got), Some(expected)) => {
                return Err(format!(
                    "step {i}: no error, expected {expected:?}; got {got:?}"
                ));
            }
            (Ok(got), None) => {
                let expected: Vec<Value> = step["expect"]
                    .as_array()
                    .map(|parts| parts.iter().map(expected_part).collect())
                    .unwrap_or_default();
                if got != expected {
                    return Err(format!("step {i}: parts {got:?}, expected {expected:?}"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn parser_suite() {
    let parser = untyped_parser();
    let mut passed = Vec::new();
    let mut report = String::new();
    for case in suite("parser.yaml") {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        match run_parser_case(&parser, &case) {
            Ok(()) => passed.push(name),
            Err(why) => report.push_str(&format!("\n{name}: {why}")),
        }
    }
    println!("parser.yaml: {} passed{report}", passed.len());
    assert_eq!(passed, PARSER_PASSES, "{report}");
}

#[test]
fn streaming_parser_suite() {
    let mut passed = Vec::new();
    let mut report = String::new();
    for (i, case) in suite("streaming_parser.yaml").iter().enumerate() {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        match run_streaming_case(case) {
            Ok(()) => passed.push((i, name)),
            Err(why) => report.push_str(&format!("\n{i} {name}: {why}")),
        }
    }
    println!("streaming_parser.yaml: {} passed{report}", passed.len());
    let expected: Vec<(usize, String)> = STREAMING_PASSES
        .iter()
        .map(|(i, n)| (*i, n.to_string()))
        .collect();
    assert_eq!(passed, expected, "{report}");
}
