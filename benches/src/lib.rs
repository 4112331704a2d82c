//! Inputs for the benchmarks, the scaling report and the fuzz targets: realistic
//! marker-mode responses the way table.that's model writes them, whole responses, and
//! families of hostile text that must still parse in linear time.
//!
//! Generated rather than recorded so that any size can be had; the shapes follow the
//! recorded conversation of the table.that example (prose, a `DATA_PROPOSAL` or a
//! fenced `SCHEMA_PROPOSAL`, suggestion chips).

#![forbid(unsafe_code)]

pub mod fuzz;
pub mod invariants;
pub mod json_invariants;

use payload_builtin::{CLOSE_CHAT, DataProposal, SchemaProposal};
use payload_core::suggestions::{ActionSpec, Combination};
use payload_core::{LlmPayload, ParseOptions};
use std::fmt::Write;

/// Feeds `text` to a new stream parser in chunks of `chunk` bytes (moved forward to a
/// character boundary), reusing one event vector the way a relay does, and returns the
/// final parse: the work the streaming benchmarks measure. The stream parses with the
/// page's `parser`, compiled once as an app compiles a page's parser and as the
/// one-shot benchmarks use it, so that the ratio to the one-shot parse is streaming's
/// own cost and not the marker table's compilation.
pub fn stream_in_chunks(
    parser: &payload_core::Parser,
    text: &str,
    chunk: usize,
) -> payload_core::ParsedResponse {
    let mut stream = payload_core::stream::StreamParser::with_parser(parser.clone());
    let mut events = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + chunk.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        stream.push_into(&text[at..end], &mut events);
        std::hint::black_box(&events);
        events.clear();
        at = end;
    }
    // As a relay ends a stream: the parse is the one the `complete` event carries.
    stream.finish_into(&mut events);
    match events.pop() {
        Some(payload_core::stream::StreamEvent::Complete(parsed)) => *parsed,
        other => unreachable!("a stream ends with `complete`, not {other:?}"),
    }
}

/// The options of the table.that `table_view` page: both proposals, the suggestion
/// markers, its two actions and the global `close_chat`, and its rule that a proposal
/// goes alone (`Combination::PAYLOAD_ALONE`).
pub fn table_view_options() -> ParseOptions {
    ParseOptions::new()
        .payload(<SchemaProposal as LlmPayload>::TYPE)
        .payload(<DataProposal as LlmPayload>::TYPE)
        .action(ActionSpec::client("open_filters", "Open the filter panel"))
        .action(ActionSpec::client(
            "export_csv",
            "Download the table as CSV",
        ))
        .action(CLOSE_CHAT)
        .combination(Combination::PAYLOAD_ALONE)
}

/// The `table_view` page's options with a type written in tags as well
/// (docs/spec.md §1.21): `surface`, a JSON array of objects between `<ui-json>` and
/// `</ui-json>`, made at run time from its schema, so the marker-mode invariants cover
/// tagged blocks beside marked ones.
pub fn tagged_options() -> ParseOptions {
    table_view_options().payload(*tagged_type())
}

/// The tagged type of [`tagged_options`].
pub fn tagged_type() -> &'static payload_core::PayloadType {
    static TYPE: std::sync::OnceLock<&'static payload_core::PayloadType> =
        std::sync::OnceLock::new();
    TYPE.get_or_init(|| {
        let schema = serde_json::json!({
            "title": "Surface",
            "description": "A UI surface to show.",
            "type": "array",
            "items": {"type": "object"}
        });
        let options = payload_core::runtime::RuntimeOptions {
            name: Some("surface".to_string()),
            tag: Some("ui-json".to_string()),
            ..Default::default()
        };
        payload_core::PayloadType::from_schema(&schema, options)
            .expect("the tagged type's schema is a payload type")
    })
}

/// The options the throughput benchmarks read [`realistic`] responses with: the table
/// view page's, with every block allowed beside a proposal, so a response holding a
/// proposal, chips and buttons reads all three (the work benches/README.md's numbers measure;
/// the page itself keeps a proposal alone, docs/spec.md §1.18).
pub fn bench_options() -> ParseOptions {
    table_view_options().combination(Combination::FREE)
}

/// A generated response and the JSON text of each of its blocks.
#[derive(Debug, Clone)]
pub struct Response {
    /// The whole response.
    pub text: String,
    /// The JSON of every block, as written (the serde_json floor parses these).
    pub blocks: Vec<String>,
}

const COMPANIES: [&str; 8] = [
    "Acme Corp",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Stark Industries",
    "Wayne Enterprises",
    "Soylent",
];
const STAGES: [&str; 5] = ["Applied", "Phone screen", "Onsite", "Offer", "Rejected"];

/// One `add` operation of a DATA_PROPOSAL, as the model writes it.
fn data_row(i: usize) -> String {
    format!(
        "    {{\"action\": \"add\", \"data\": {{\"Company\": \"{}\", \"Role\": \"Engineer #{i}\", \"Stage\": \"{}\", \"Applied on\": \"2024-03-{:02}\", \"Notes\": \"Referred by a friend; follow up after the {} round\"}}}}",
        COMPANIES[i % COMPANIES.len()],
        STAGES[i % STAGES.len()],
        i % 28 + 1,
        STAGES[(i + 1) % STAGES.len()].to_lowercase(),
    )
}

fn data_proposal(rows: usize) -> String {
    let mut json = String::from(
        "{\n  \"reasoning\": \"Sample applications across different stages\",\n  \"operations\": [\n",
    );
    for i in 0..rows {
        json.push_str(&data_row(i));
        json.push_str(if i + 1 < rows { ",\n" } else { "\n" });
    }
    if rows == 0 {
        json.push_str("    {\"action\": \"delete\", \"row_id\": 7}\n");
    }
    json.push_str("  ]\n}");
    json
}

fn suggested_values() -> String {
    "[\n  {\"label\": \"Show only offers\", \"value\": \"Filter the table to rows with an offer\"},\n  {\"label\": \"Draft a follow-up\", \"value\": \"Help me draft a follow-up email to Hooli\"}\n]".to_string()
}

fn suggested_actions() -> String {
    "[\n  {\"label\": \"Open filters\", \"action\": \"open_filters\", \"handler\": \"client\"},\n  {\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"client\"}\n]".to_string()
}

const PROSE: &str = "Here are the applications I found in your notes. Review them in the table: each row has a checkbox so you can keep only the ones you want. ";

/// A marker-mode response of about `target` bytes (at least the smallest realistic
/// one, about 200 bytes): prose, a DATA_PROPOSAL sized to fit, suggestion chips, and,
/// from 1 KB on, a bold marker and a closing paragraph as the recorded conversation has.
pub fn realistic(target: usize) -> Response {
    if target < 600 {
        let proposal = "{\"operations\": [{\"action\": \"delete\", \"row_id\": 7}]}".to_string();
        let values = "[{\"label\": \"Undo\", \"value\": \"Put row 7 back\"}]".to_string();
        let text = format!(
            "I'll remove the duplicate Globex row.\n\nDATA_PROPOSAL: {proposal}\n\nSUGGESTED_VALUES: {values}"
        );
        return Response {
            text,
            blocks: vec![proposal, values],
        };
    }
    let fixed = 2 * PROSE.len() + 600;
    let rows = (target.saturating_sub(fixed) / data_row(10).len()).max(1);
    let proposal = data_proposal(rows);
    let values = suggested_values();
    let actions = suggested_actions();
    let text = format!(
        "{PROSE}\n\n**DATA_PROPOSAL:**\n```json\n{proposal}\n```\n\n{PROSE}I also moved Globex to \"Phone screen\" since they called you back.\n\nSUGGESTED_VALUES: {values}\n\nSUGGESTED_ACTIONS: {actions}"
    );
    Response {
        text,
        blocks: vec![proposal, values, actions],
    }
}

/// A whole response for `extract` of about `target` bytes: a DATA_PROPOSAL value in a
/// code fence after one sentence, the way models answer "reply with JSON only".
pub fn whole_response(target: usize) -> Response {
    let rows = (target.saturating_sub(120) / data_row(10).len()).max(1);
    let proposal = data_proposal(if target < 600 { 0 } else { rows });
    let text = format!("Here is the proposal:\n```json\n{proposal}\n```\n");
    Response {
        text,
        blocks: vec![proposal],
    }
}

/// A family of hostile input: text a model (or an attacker) could send that stresses
/// one part of the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Thousands of markers with no JSON after them.
    MarkersWithoutJson,
    /// A marker followed by brackets that never close, over and over.
    UnclosedAfterMarker,
    /// Blocks whose strings are long and full of brackets and escaped quotes.
    BracketsInStrings,
    /// The same SUGGESTED_VALUES block repeated.
    RepeatedSuggestion,
    /// One block holding objects with long lists of strings.
    LongStringLists,
    /// A block nested far deeper than the depth limit.
    DeepNesting,
    /// Many blocks nested just under the depth limit.
    NestedUnderLimit,
    /// One very long line with markers and values inline.
    LongLine,
    /// Markers on `>` quoted lines.
    QuotedMarkers,
    /// Markers mentioned in prose, never as a block.
    ProseMentions,
    /// Repairable (non-strict) JSON blocks, so the lenient reader runs on each.
    RepairableBlocks,
    /// One whole-response object whose array holds empty objects that each lack every
    /// required member: a validation error per item, without the cap.
    EmptyObjects,
    /// One object with the same key written over and over.
    DuplicateKeys,
    /// Top-level values one after another, for whole-response candidate search.
    ManyValues,
    /// Objects that close early, each followed by more members.
    EarlyCloses,
    /// One payload whose number literal is the whole text (a mantissa of zeros that
    /// underflows), then many floats: the precision rule reads each literal once.
    LongNumbers,
    /// One value that never closes, over many lines with blank lines between them: each
    /// line's start is read for where an open value ends (docs/spec.md §1.14).
    OpenValueLines,
    /// Page markers in another case before values, and markers alone on their lines:
    /// near misses and missing values (docs/spec.md §1.16, §1.17).
    MissedMarkers,
    /// Reasoning sections, each holding a block, between answer lines.
    ReasoningSections,
    /// Line starts that look like an opening tag until their last byte.
    AlmostTags,
    /// One reasoning section never closed, full of closing tags that almost match.
    UnclosedReasoning,
    /// One payload serde cannot read (a row id in words), whose row holds many
    /// undeclared members with long string values: the alias test's probes are bounded
    /// in number and in the strings each keeps (docs/values.md).
    UnreadMembers,
    /// A block whose string never closes, every line after it a marker line inside it
    /// with its quotes escaped: the first block looks past them all and fails, and each
    /// later block starts in the text that look read (docs/spec.md §1.19).
    MarkerLinesInStrings,
    /// Values sent inside strings, among prose, one after another (docs/values.md).
    HeldValues,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 24] = [
        Family::MarkersWithoutJson,
        Family::UnclosedAfterMarker,
        Family::BracketsInStrings,
        Family::RepeatedSuggestion,
        Family::LongStringLists,
        Family::DeepNesting,
        Family::NestedUnderLimit,
        Family::LongLine,
        Family::QuotedMarkers,
        Family::ProseMentions,
        Family::RepairableBlocks,
        Family::EmptyObjects,
        Family::DuplicateKeys,
        Family::ManyValues,
        Family::EarlyCloses,
        Family::LongNumbers,
        Family::OpenValueLines,
        Family::MissedMarkers,
        Family::ReasoningSections,
        Family::AlmostTags,
        Family::UnclosedReasoning,
        Family::UnreadMembers,
        Family::MarkerLinesInStrings,
        Family::HeldValues,
    ];

    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Family::MarkersWithoutJson => "markers_without_json",
            Family::UnclosedAfterMarker => "unclosed_after_marker",
            Family::BracketsInStrings => "brackets_in_strings",
            Family::RepeatedSuggestion => "repeated_suggestion",
            Family::LongStringLists => "long_string_lists",
            Family::DeepNesting => "deep_nesting",
            Family::NestedUnderLimit => "nested_under_limit",
            Family::LongLine => "long_line",
            Family::QuotedMarkers => "quoted_markers",
            Family::ProseMentions => "prose_mentions",
            Family::RepairableBlocks => "repairable_blocks",
            Family::EmptyObjects => "empty_objects",
            Family::DuplicateKeys => "duplicate_keys",
            Family::ManyValues => "many_values",
            Family::EarlyCloses => "early_closes",
            Family::LongNumbers => "long_numbers",
            Family::OpenValueLines => "open_value_lines",
            Family::MissedMarkers => "missed_markers",
            Family::ReasoningSections => "reasoning_sections",
            Family::AlmostTags => "almost_tags",
            Family::UnclosedReasoning => "unclosed_reasoning",
            Family::UnreadMembers => "unread_members",
            Family::MarkerLinesInStrings => "marker_lines_in_strings",
            Family::HeldValues => "held_values",
        }
    }

    /// Text of this family, `bytes` long or a little longer.
    pub fn generate(self, bytes: usize) -> String {
        let mut out = String::with_capacity(bytes + 256);
        match self {
            Family::MarkersWithoutJson => repeat(&mut out, bytes, |out, i| {
                let marker = ["SCHEMA_PROPOSAL", "DATA_PROPOSAL", "SUGGESTED_VALUES"][i % 3];
                let _ = writeln!(out, "**{marker}:** coming up once you confirm");
            }),
            Family::UnclosedAfterMarker => repeat(&mut out, bytes, |out, _| {
                out.push_str("DATA_PROPOSAL: {\"operations\": [{\"action\": \"add\"\n");
            }),
            Family::BracketsInStrings => repeat(&mut out, bytes, |out, _| {
                out.push_str("DATA_PROPOSAL: {\"reasoning\": \"");
                for _ in 0..64 {
                    out.push_str("}]{[ \\\"q\\\" ");
                }
                out.push_str("\", \"operations\": [{\"action\": \"delete\", \"row_id\": 3}]}\n");
            }),
            Family::RepeatedSuggestion => repeat(&mut out, bytes, |out, _| {
                out.push_str(
                    "SUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes please\"}]\n\n",
                );
            }),
            Family::LongStringLists => {
                out.push_str("Here you go.\n\nDATA_PROPOSAL: {\"operations\": [");
                let mut i = 0;
                while out.len() < bytes {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str("{\"action\": \"add\", \"data\": {\"Tags\": [");
                    for j in 0..200 {
                        if j > 0 {
                            out.push_str(", ");
                        }
                        let _ = write!(out, "\"tag {i}-{j}\"");
                    }
                    out.push_str("]}}");
                    i += 1;
                }
                out.push_str("]}\n");
            }
            Family::DeepNesting => {
                let depth = bytes / 2;
                out.push_str("SUGGESTED_VALUES: ");
                out.extend(std::iter::repeat_n('[', depth));
                out.extend(std::iter::repeat_n(']', depth));
            }
            Family::NestedUnderLimit => repeat(&mut out, bytes, |out, _| {
                out.push_str(
                    "DATA_PROPOSAL: {\"operations\": [{\"action\": \"add\", \"data\": {\"x\": ",
                );
                out.extend(std::iter::repeat_n('[', 100));
                out.extend(std::iter::repeat_n(']', 100));
                out.push_str("}}]}\n");
            }),
            Family::LongLine => repeat(&mut out, bytes, |out, i| {
                if i % 2 == 0 {
                    out.push_str(
                        "see SUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}] and ",
                    );
                } else {
                    out.push_str("then a few words of prose in between the blocks, ");
                }
            }),
            Family::QuotedMarkers => repeat(&mut out, bytes, |out, _| {
                out.push_str("> DATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 3}]}\n");
            }),
            Family::ProseMentions => repeat(&mut out, bytes, |out, _| {
                out.push_str(
                    "I'll send a SCHEMA_PROPOSAL once you confirm; the DATA_PROPOSAL comes later. ",
                );
            }),
            Family::RepairableBlocks => repeat(&mut out, bytes, |out, _| {
                out.push_str(
                    "DATA_PROPOSAL: {operations: [{'action': 'delete', 'row_id': 3,},],}\n",
                );
            }),
            Family::EmptyObjects => out.push_str(&empty_operations(bytes.div_ceil(3).max(1))),
            Family::UnreadMembers => {
                out.push_str("DATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": \"three\"");
                let long = "x".repeat(200);
                repeat(&mut out, bytes, |out, i| {
                    let _ = write!(out, ", \"note{i}\": \"{long}\"");
                });
                out.push_str("}]}\n");
            }
            Family::DuplicateKeys => {
                out.push_str("{\"operations\": []");
                repeat(&mut out, bytes, |out, i| {
                    let _ = write!(out, ", \"operations\": [], \"k\": {i}");
                });
                out.push('}');
            }
            Family::ManyValues => repeat(&mut out, bytes, |out, _| {
                out.push_str("{\"operations\": [{\"action\": \"delete\", \"row_id\": 3}]}\n");
            }),
            Family::EarlyCloses => repeat(&mut out, bytes, |out, _| {
                out.push_str("{\"operations\": []}, \"reasoning\": \"more\"}\n");
            }),
            Family::LongNumbers => {
                let half = bytes / 2;
                out.push_str("DATA_PROPOSAL: {\"operations\": [{\"action\": \"add\", \"data\": {\"Score\": 0.");
                out.extend(std::iter::repeat_n('0', half));
                out.push_str("1}}]}\n\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"add\", \"data\": {\"Scores\": [");
                repeat(&mut out, bytes, |out, i| {
                    let _ = write!(out, "{i}.25e-3, ");
                });
                out.push_str("0.5]}}]}\n");
            }
            Family::OpenValueLines => {
                out.push_str("DATA_PROPOSAL: {\"operations\": [\n");
                repeat(&mut out, bytes, |out, i| {
                    let _ = write!(out, "  {{\"action\": \"delete\", \"row_id\": {i}}},\n\n");
                });
            }
            Family::MissedMarkers => repeat(&mut out, bytes, |out, i| {
                if i % 2 == 0 {
                    out.push_str("Data Proposal: {\"operations\": []}\n");
                } else {
                    out.push_str("SUGGESTED_VALUES:\nPick one.\n");
                }
            }),
            Family::ReasoningSections => repeat(&mut out, bytes, |out, _| {
                out.push_str("<think>\nSUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}]\n</think>\nAnswer line.\n");
            }),
            Family::AlmostTags => repeat(&mut out, bytes, |out, i| {
                out.push_str(["<thinking\n", "  <reasonin\n", "<THINK \n"][i % 3]);
            }),
            Family::MarkerLinesInStrings => repeat(&mut out, bytes, |out, i| {
                if i == 0 {
                    out.push_str("DATA_PROPOSAL: {\"operations\": \"x\n");
                }
                out.push_str("DATA_PROPOSAL: {\\\"operations\\\": \\\"x\n");
            }),
            Family::HeldValues => repeat(&mut out, bytes, |out, _| {
                out.push_str("Here \"{\\\"operations\\\": []}\" and \"{name}\"\n");
            }),
            Family::UnclosedReasoning => {
                out.push_str("<reasoning>\n");
                repeat(&mut out, bytes, |out, _| {
                    out.push_str("</reasonin </think> <\n")
                });
            }
        }
        out
    }
}

/// `{"operations":[{},{},...]}` with `count` empty operations: a whole-response value
/// with one validation error per item (the `empty_objects` family, and the tests of
/// bounded error reports).
pub fn empty_operations(count: usize) -> String {
    let mut text = String::with_capacity(count * 3 + 20);
    text.push_str("{\"operations\":[");
    for i in 0..count {
        if i > 0 {
            text.push(',');
        }
        text.push_str("{}");
    }
    text.push_str("]}");
    text
}

fn repeat(out: &mut String, bytes: usize, mut piece: impl FnMut(&mut String, usize)) {
    let mut i = 0;
    while out.len() < bytes {
        piece(out, i);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use payload_core::Parser;

    #[test]
    fn realistic_responses_parse_cleanly_at_every_size() {
        let parser = Parser::new(&bench_options());
        for size in [200, 4 * 1024, 64 * 1024] {
            let response = realistic(size);
            assert!(
                response.text.len() > size / 2 && response.text.len() < size * 2,
                "{size}: {}",
                response.text.len()
            );
            let parsed = parser.parse(&response.text);
            assert!(parsed.rejected.is_empty(), "{size}: {:?}", parsed.rejected);
            assert!(parsed.custom_payload.is_some(), "{size}");
            assert!(parsed.suggested_values.is_some(), "{size}");
            for block in &response.blocks {
                serde_json::from_str::<serde_json::Value>(block).unwrap();
            }
        }
    }

    #[test]
    fn whole_responses_extract_at_every_size() {
        for size in [200, 4 * 1024, 64 * 1024] {
            let response = whole_response(size);
            let result =
                payload_core::extract_as(&response.text, &<DataProposal as LlmPayload>::TYPE, None);
            assert!(result.success, "{size}: {:?}", result.errors);
        }
    }

    #[test]
    fn families_reach_the_size_asked() {
        for family in Family::ALL {
            let text = family.generate(10_000);
            assert!(text.len() >= 10_000, "{}", family.name());
            assert!(text.len() < 20_000, "{}", family.name());
        }
    }
}
