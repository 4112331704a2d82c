//! Hostile input: no entry point panics on any text, the stream agrees with the one-shot
//! parse under any chunking, marker-mode parsing never drops text, and every input the
//! fuzzers ever flagged (kept in `fuzz/artifacts-replay/`) and every seed of their
//! corpus goes through every entry point.
//!
//! "Never drops text", precisely: with I the input's non-whitespace characters and M
//! the message's,
//! 1. M is a subsequence of I (the message keeps the input's text, in order, and adds
//!    none);
//! 2. every rejected block's `raw` is a slice of the input (so its text can be shown
//!    back to the model);
//! 3. what is neither in M nor in a rejected `raw` is the accepted blocks: when nothing
//!    was accepted, |I| = |M| + the rejected raws' non-whitespace length; otherwise the
//!    rest is not empty.

use payload_benches::table_view_options;
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::formats::Format;
use payload_core::parse::Parser;
use payload_core::stream::{StreamEvent, StreamParser};
use payload_core::{LlmPayload, ParsedResponse};
use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

const FORMATS: [Option<Format>; 6] = [
    None,
    Some(Format::Json),
    Some(Format::Xml),
    Some(Format::Delimited),
    Some(Format::Tagged),
    Some(Format::Markdown),
];

fn parser() -> &'static Parser {
    static PARSER: OnceLock<Parser> = OnceLock::new();
    PARSER.get_or_init(|| Parser::new(&table_view_options()))
}

/// Feeds `text` to a stream parser in chunks of the given sizes (cycled), checks the
/// stream's guarantee, and returns its final parse.
fn stream(text: &str, sizes: &[usize]) -> ParsedResponse {
    let mut stream = StreamParser::new(&table_view_options());
    let mut shown = String::new();
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            if let StreamEvent::TextDelta { text } = event {
                shown.push_str(&text);
            }
        }
    };
    let (mut at, mut i) = (0, 0);
    while at < text.len() {
        let size = sizes
            .get(i % sizes.len().max(1))
            .copied()
            .unwrap_or(3)
            .max(1);
        i += 1;
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        take(stream.push(&text[at..end]));
        at = end;
    }
    let (events, parsed) = stream.finish();
    take(events);
    assert_eq!(shown, parsed.message, "deltas are the message");
    parsed
}

/// Every entry point on `text`; panics only where a guarantee is broken.
fn every_entry_point(text: &str, sizes: &[usize]) {
    let parsed = parser().parse(text);
    assert_eq!(stream(text, sizes), parsed, "stream equals one-shot");
    check_coverage(text, &parsed);
    for payload in [
        <DataProposal as LlmPayload>::TYPE,
        <SchemaProposal as LlmPayload>::TYPE,
    ] {
        for format in FORMATS {
            let result = payload_core::extract_as(text, &payload, format);
            assert_eq!(result.success, result.data.is_some());
        }
    }
    let _ = payload_core::repair::parse_lenient(text);
}

fn visible(text: &str) -> Vec<char> {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The "never drops text" property of the module docs.
fn check_coverage(text: &str, parsed: &ParsedResponse) {
    let input = visible(text);
    let message = visible(&parsed.message);
    let mut rest = input.iter();
    for c in &message {
        assert!(
            rest.any(|i| i == c),
            "message is not a subsequence of the input at {c:?}: {:?}",
            parsed.message
        );
    }
    let mut rejected = 0;
    for block in &parsed.rejected {
        assert!(
            text.contains(&block.raw),
            "raw is not from the input: {block:?}"
        );
        rejected += visible(&block.raw).len();
    }
    let accepted = parsed.custom_payload.is_some()
        || parsed.suggested_values.is_some()
        || parsed.suggested_actions.is_some();
    let rest = input.len() as isize - message.len() as isize - rejected as isize;
    if accepted {
        assert!(rest > 0, "accepted blocks take no text: {parsed:?}");
    } else {
        // Suggestion blocks whose every item was dropped are accepted but empty.
        let dropped_all = parsed
            .warnings
            .iter()
            .any(|w| w.message.contains("SUGGESTED_"));
        if !dropped_all {
            assert_eq!(rest, 0, "text went missing: {text:?} -> {parsed:#?}");
        }
    }
}

/// Pieces a model writes, shuffled into hostile responses.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Here is the plan. ".to_string()),
        Just("\n\n".to_string()),
        Just("\n".to_string()),
        Just("  ".to_string()),
        Just("it's ".to_string()),
        Just("SCHEMA_PROPOSAL".to_string()),
        Just("DATA_PROPOSAL".to_string()),
        Just("SUGGESTED_VALUES".to_string()),
        Just("SUGGESTED_ACTIONS".to_string()),
        Just(": ".to_string()),
        Just("**".to_string()),
        Just("## ".to_string()),
        Just("- ".to_string()),
        Just("> ".to_string()),
        Just("```json\n".to_string()),
        Just("\n```".to_string()),
        Just("{\"operations\": [{\"action\": \"delete\", \"row_id\": 3}]}".to_string()),
        Just("{operations: [{'action': 'delete', 'row_id': 3,}],}".to_string()),
        Just("[{\"label\": \"Yes\", \"value\": \"Yes please\"}]".to_string()),
        Just(
            "[{\"label\": \"Go\", \"action\": \"close_chat\", \"handler\": \"client\"}]"
                .to_string()
        ),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("\\".to_string()),
        Just(",".to_string()),
        Just("\u{201C}".to_string()),
        Just("\u{201D}".to_string()),
        Just("<a>".to_string()),
        Just("</a>".to_string()),
        Just("---TASK---\n".to_string()),
        Just("é漢🙂".to_string()),
        "[a-z ]{0,12}",
        "\\PC{0,8}",
    ]
}

fn response() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}

fn chunking() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..24, 1..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn model_like_responses_hold_every_guarantee(text in response(), sizes in chunking()) {
        every_entry_point(&text, &sizes);
    }

    #[test]
    fn arbitrary_text_holds_every_guarantee(text in "\\PC{0,200}", sizes in chunking()) {
        every_entry_point(&text, &sizes);
    }

    #[test]
    fn the_lenient_reader_never_panics(text in response()) {
        let _ = payload_core::repair::parse_lenient(&text);
    }
}

/// Every file under `dir` (recursively), as text.
fn files(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
}

#[test]
fn every_fuzz_finding_and_seed_goes_through_every_entry_point() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut inputs = Vec::new();
    files(&root.join("artifacts-replay"), &mut inputs);
    files(&root.join("corpus"), &mut inputs);
    assert!(!inputs.is_empty(), "the seed corpus is checked in");
    for (name, text) in &inputs {
        let outcome = std::panic::catch_unwind(|| every_entry_point(text, &[1, 7, 64]));
        assert!(outcome.is_ok(), "{name}");
    }
}

#[test]
fn deep_and_huge_inputs_are_refused_with_a_clear_error() {
    let deep = format!(
        "Here.\n\nDATA_PROPOSAL: {{\"operations\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let parsed = parser().parse(&deep);
    assert!(
        parsed.rejected[0].errors[0]
            .message
            .contains("deeper than 128")
    );
    assert_eq!(parsed.message, "Here.");

    let huge = "word ".repeat(4 << 20);
    let parsed = parser().parse(&huge);
    assert_eq!(parsed.rejected[0].kind, "response");
    assert!(parsed.rejected[0].errors[0].message.contains("limit of"));
    let result = payload_core::extract_as(&huge, &<DataProposal as LlmPayload>::TYPE, None);
    assert!(!result.success);
}
