//! Hostile input: no entry point panics on any text, the stream agrees with the one-shot
//! parse under any chunking, marker-mode parsing never drops text, and every input the
//! fuzzers ever flagged (kept in `fuzz/artifacts-replay/`) and every seed of their
//! corpus goes through every entry point.
//!
//! "Never drops text", precisely (docs/spec.md §1.13, the accounting invariant): with I the
//! input's non-whitespace characters,
//! 1. the message's non-whitespace characters are a subsequence of I (the message keeps
//!    the input's text, in order, and adds none);
//! 2. every rejected block's `raw` and every accepted block's text is a slice of the
//!    input;
//! 3. I is exactly, as a multiset, the message's characters plus those of the accepted
//!    blocks and the rejected blocks: every character removed from the message is in a
//!    payload, a suggestion block or a `rejected[].raw`, and none is counted twice.
//!
//! And the allow-lists: no result and no stream event ever names a payload type the
//! page does not offer or an action it does not register (with its handler).

use payload_benches::invariants::{
    check_marker_mode, check_reasoning_is_apart, section_written, without_close_tag,
};
use payload_benches::json_invariants::check_auto;
use payload_benches::table_view_options;
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::LlmPayload;
use payload_core::Parser;
use payload_tests::proptest_cases;
use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

fn parser() -> &'static Parser {
    static PARSER: OnceLock<Parser> = OnceLock::new();
    PARSER.get_or_init(|| Parser::new(&table_view_options()))
}

/// Every entry point on `text`; panics only where a guarantee is broken.
fn every_entry_point(text: &str, sizes: &[usize]) {
    check_marker_mode(parser(), &table_view_options(), text, sizes);
    for payload in [
        <DataProposal as LlmPayload>::TYPE,
        <SchemaProposal as LlmPayload>::TYPE,
    ] {
        // `auto` and every named format, with detection checked against the result.
        check_auto(text, &payload);
    }
    let _ = payload_core::__internals::repair::parse_lenient(text);
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
        Just("`".to_string()),
        Just("```python\n".to_string()),
        Just("- > ".to_string()),
        Just("1. > ".to_string()),
        Just("<blockquote>".to_string()),
        Just("</blockquote>".to_string()),
        Just("\u{00A0}".to_string()),
        Just("***".to_string()),
        Just("\r\n".to_string()),
        Just("~~~\n".to_string()),
        Just("````json\n".to_string()),
        Just("\u{200B}".to_string()),
        Just("Data Proposal".to_string()),
        Just("SUGGESTED_VALUES:\n".to_string()),
        Just("<think>".to_string()),
        Just("\n<Thinking>\n".to_string()),
        Just("</think>".to_string()),
        Just("</THINKING>\n".to_string()),
        Just("<reasoning>".to_string()),
        Just("[THINK]".to_string()),
        Just("[/think]".to_string()),
        Just("\n\u{25C1}think\u{25B7}".to_string()),
        Just("\u{25C1}/think\u{25B7}".to_string()),
        Just("<|channel|>analysis<|message|>".to_string()),
        Just("<|end|>".to_string()),
        Just("<|start|>assistant<|channel|>final<|message|>".to_string()),
        Just(
            "[{\"label\": \"Nuke\", \"action\": \"drop_all\", \"handler\": \"server\"}]"
                .to_string()
        ),
        Just("{\"title\": \"6\" screen\", \"n\": 5}".to_string()),
        Just("[]".to_string()),
        Just("[{\"label\": \"a\", \"value\": \"b\", \"icon\": \"star\"}]".to_string()),
        Just(
            "[{\"label\": \"Go\", \"action\": \"close_chat\", \"handler\": \"client\", \"params\": {\"id\": 3}}]"
                .to_string()
        ),
        Just("{\"mode\": \"create\", \"x\": 1e-400}".to_string()),
        // Fence openers whose info string is a scalar or a marker, the marker as a tag
        // or with a note, bare scalars, and the notations around reasoning.
        Just("``` 1".to_string()),
        Just("```SCHEMA_PROPOSAL\n".to_string()),
        Just("~~~ data proposal:\n".to_string()),
        Just("<DATA_PROPOSAL>".to_string()),
        Just("</DATA_PROPOSAL>".to_string()),
        Just(" (a draft)".to_string()),
        Just("1".to_string()),
        Just("true".to_string()),
        Just("-2.5e3".to_string()),
        Just("<|return|>".to_string()),
        Just("<|channel|>final<|message|>".to_string()),
        Just("<|end|><|start|>assistant<|channel|>final<|message|>".to_string()),
        Just("Thinking...\n".to_string()),
        Just("...done thinking.".to_string()),
        Just("**Reasoning:** ".to_string()),
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

/// One suggestion item, with members a model adds (`icon`, `params`) or gets wrong.
fn suggestion_item() -> impl Strategy<Value = String> {
    let extra = prop_oneof![
        Just(String::new()),
        Just(", \"icon\": \"star\"".to_string()),
        Just(", \"params\": {\"id\": 3, \"n\": [1, 2]}".to_string()),
        Just(", \"Label\": \"x\"".to_string()),
        "[a-z]{1,6}".prop_map(|key| format!(", \"{key}\": \"{key}!\"")),
    ];
    let item = prop_oneof![
        Just("\"label\": \"Yes\", \"value\": \"Yes please\"".to_string()),
        Just("\"label\": \"Go\", \"action\": \"close_chat\", \"handler\": \"client\"".to_string()),
        Just("\"label\": \"Go\"".to_string()),
    ];
    (item, prop::collection::vec(extra, 0..3))
        .prop_map(|(item, extras)| format!("{{{item}{}}}", extras.concat()))
}

/// A response of prose and suggestion blocks, empty ones included.
fn suggestion_response() -> impl Strategy<Value = String> {
    let block = (
        prop_oneof![Just("SUGGESTED_VALUES"), Just("SUGGESTED_ACTIONS")],
        prop::collection::vec(suggestion_item(), 0..3),
        prop_oneof![Just(": "), Just(":\n```json\n")],
    )
        .prop_map(|(marker, items, opener)| {
            let close = if opener.contains('`') { "\n```" } else { "" };
            format!("{marker}{opener}[{}]{close}", items.join(", "))
        });
    prop::collection::vec(
        (block, prop_oneof![Just("\n"), Just("\nSome words.\n")]),
        1..4,
    )
    .prop_map(|parts| {
        let mut text = String::from("Here you go.\n");
        for (block, gap) in parts {
            text.push_str(&block);
            text.push_str(gap);
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(2000)))]

    /// What a suggestion block held is in the result or quoted in a warning: empty
    /// blocks, blocks a later one supersedes, undeclared members of items.
    #[test]
    fn suggestion_blocks_leave_nothing_unaccounted(text in suggestion_response(), sizes in chunking()) {
        check_marker_mode(parser(), &table_view_options(), &text, &sizes);
    }

    #[test]
    fn model_like_responses_hold_every_guarantee(text in response(), sizes in chunking()) {
        every_entry_point(&text, &sizes);
    }

    #[test]
    fn arbitrary_text_holds_every_guarantee(text in "\\PC{0,200}", sizes in chunking()) {
        every_entry_point(&text, &sizes);
    }

    #[test]
    fn reasoning_never_supplies_anything(x in response(), y in response(), sizes in chunking()) {
        let x = without_close_tag(&x);
        check_reasoning_is_apart(parser(), &x, &y);
        every_entry_point(&format!("<think>{x}</think>\n{y}"), &sizes);
    }

    /// A prompt that opened the reasoning (`reasoning_opened_by_prompt`): every
    /// guarantee holds, streamed or not, and the response reads as it does with the
    /// `<think>` written at its start: a draft before `</think>` never supplies anything.
    #[test]
    fn a_section_the_prompt_opened_reads_as_one_written(x in response(), y in response(), sizes in chunking()) {
        let x = without_close_tag(&x);
        let options = table_view_options().reasoning_opened_by_prompt();
        let prompted = Parser::new(&options);
        let text = format!("{x}</think>\n{y}");
        check_marker_mode(&prompted, &options, &text, &sizes);
        let mut read = prompted.parse(&text);
        let mut written = parser().parse(&section_written(&text));
        // Space before the section stays in the answer either way; only the message's
        // folding of it may differ, which the accounting above checks.
        read.message = read.message.trim().to_string();
        written.message = written.message.trim().to_string();
        // The written `<think>` is in the response's bytes: every part ends that much
        // later (docs/spec.md §1.21), and is otherwise the same.
        let with_tag = section_written(&text);
        let shift = with_tag.len() - text.len();
        // Where the tag went: after the space before it, where the two texts part.
        let at = text.bytes().zip(with_tag.bytes()).take_while(|(a, b)| a == b).count();
        let ends = |p: &payload_core::ParsedResponse, shift: usize| {
            p.parts
                .iter()
                .map(|part| (part.kind.clone(), if part.span.end > at { part.span.end - shift } else { part.span.end }))
                .collect::<Vec<_>>()
        };
        prop_assert_eq!(ends(&read, 0), ends(&written, shift));
        written.parts = read.parts.clone();
        prop_assert_eq!(read, written);
    }

    #[test]
    fn the_lenient_reader_never_panics(text in response()) {
        let _ = payload_core::__internals::repair::parse_lenient(&text);
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
