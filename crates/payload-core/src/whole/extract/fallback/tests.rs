use super::*;
use crate::LlmPayload;
use crate::whole::extract::extract_as;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A shell command to run.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Command {
    /// The program.
    program: String,
    /// Its arguments.
    args: Vec<String>,
}

impl LlmPayload for Command {
    const NAME: &'static str = "command";
    const MARKER: &'static str = "COMMAND";
    const DESCRIPTION: &'static str = "A command.";
}

/// An edit of one table, one of several shapes: no member is common to all, so the
/// schema names no top-level property for detection to look for.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Edit {
    /// Rename a table.
    Rename {
        /// The old name.
        from: String,
        /// The new name.
        to: String,
    },
    /// Delete a table.
    Delete {
        /// Its name.
        name: String,
    },
}

impl LlmPayload for Edit {
    const NAME: &'static str = "edit";
    const MARKER: &'static str = "EDIT";
    const DESCRIPTION: &'static str = "An edit.";
}

/// A note with optional tags.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Note {
    /// The text.
    text: String,
    /// Its tags.
    tags: Option<Vec<String>>,
}

impl LlmPayload for Note {
    const NAME: &'static str = "note";
    const MARKER: &'static str = "NOTE";
    const DESCRIPTION: &'static str = "A note.";
}

fn auto(text: &str) -> ExtractResult {
    extract_as(text, &Command::TYPE, None)
}

fn fallback_warnings(result: &ExtractResult) -> Vec<&str> {
    result
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::FormatFallback)
        .map(|w| w.message.as_str())
        .collect()
}

#[test]
fn json_in_a_wrapper_tag_is_read_when_xml_gives_nothing() {
    let text = "<command>{\"op\": \"rename\", \"from\": \"a\", \"to\": \"b\"}</command>";
    let detected = formats::detect(text, Edit::TYPE.compiled().schema())[0].0;
    assert_eq!(detected, Format::Xml, "the case this rule is for");
    assert!(!extract_as(text, &Edit::TYPE, Some(Format::Xml)).success);
    let direct = extract_as(text, &Edit::TYPE, Some(Format::Json));
    assert!(direct.success, "{:?}", direct.errors);
    let result = extract_as(text, &Edit::TYPE, None);
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(result.format, "json");
    assert_eq!(result.data, direct.data);
    let warnings = fallback_warnings(&result);
    assert_eq!(warnings.len(), 1, "{:?}", result.warnings);
    assert!(
        warnings[0].contains("looks like XML") && warnings[0].contains("read as JSON"),
        "{warnings:?}"
    );
    assert!(result.confidence <= 0.5);
    assert!((result.confidence - direct.confidence / 2.0).abs() < 1e-9);
}

#[test]
fn the_detected_format_wins_when_its_value_is_valid() {
    // Valid as XML and, inside, as JSON: the detected reading is taken, no fallback.
    let text = "<command><program>ls</program><args>-a</args></command>\n{\"program\": \"rm\", \"args\": []}";
    let result = auto(text);
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(result.format, "xml");
    assert_eq!(result.data.as_ref().unwrap()["program"], "ls");
    assert!(fallback_warnings(&result).is_empty());
}

#[test]
fn a_cut_off_response_is_not_read_another_way() {
    // JSON cut inside a string that holds a tag naming a field: tagged reads a valid
    // value from it, but the response was cut.
    let text = "{\"text\": \"a\", \"tags\": [\"<text>hi</text>";
    let schema = Note::TYPE.compiled().schema();
    assert_eq!(formats::detect(text, schema)[0].0, Format::Json);
    assert!(extract_as(text, &Note::TYPE, Some(Format::Tagged)).success);
    let result = extract_as(text, &Note::TYPE, None);
    assert!(!result.success);
    assert!(
        result
            .errors
            .iter()
            .any(|e| e.kind() == ErrorKind::Truncated)
    );
    assert!(fallback_warnings(&result).is_empty());
}

#[test]
fn a_total_failure_keeps_the_detected_errors_and_summarizes_the_others() {
    let text = "<command><program>ls</program></command>";
    let xml = extract_as(text, &Command::TYPE, Some(Format::Xml));
    let result = auto(text);
    assert!(!result.success);
    assert_eq!(result.format, "xml");
    assert_eq!(result.errors, xml.errors);
    let warnings = fallback_warnings(&result);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("also read as json"), "{warnings:?}");
}

#[test]
fn the_order_is_detected_then_json_then_by_score() {
    let scores = [
        (Format::Markdown, 0.6),
        (Format::Xml, 0.3),
        (Format::Json, 0.1),
        (Format::Tagged, 0.0),
    ];
    let formats: Vec<Format> = order(&scores).into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        formats,
        [Format::Markdown, Format::Json, Format::Xml, Format::Tagged]
    );
    let formats: Vec<Format> = order(&[(Format::Json, 0.9), (Format::Xml, 0.2)])
        .into_iter()
        .map(|(f, _)| f)
        .collect();
    assert_eq!(formats, [Format::Json, Format::Xml]);
    // Every format once: the work is bounded by the number of formats.
    let all: Vec<(Format, f64)> = Format::ALL.iter().map(|&f| (f, 0.1)).collect();
    let mut formats: Vec<&str> = order(&all).iter().map(|(f, _)| f.as_str()).collect();
    formats.sort_unstable();
    formats.dedup();
    assert_eq!(formats.len(), Format::ALL.len());
}

#[test]
fn a_value_after_reasoning_or_prose_is_found_wherever_it_sits() {
    let text =
        "<think>rename it</think>\nSure, here it is: {\"op\": \"delete\", \"name\": \"t\"} done.";
    let result = extract_as(text, &Edit::TYPE, None);
    assert!(result.success, "{:?} {:?}", result.format, result.errors);
}
