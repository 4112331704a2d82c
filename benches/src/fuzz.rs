//! The bodies of the fuzz targets (`fuzz/fuzz_targets/`), callable on a stable compiler:
//! each target is one call to the function of its name, and the replay test
//! (`tests/all/fuzz_replay.rs`) runs every seed of `fuzz/corpus/` and every saved
//! finding of `fuzz/artifacts-replay/` through the same functions, so what a fuzzer
//! would check on a machine with a nightly compiler, `cargo test` checks everywhere.
//! Each function panics, with the input, when a guarantee is broken.

use crate::invariants::{
    BLOCK_WITH_LINE_SLOT, check_abandoned_draft, check_accepted_numbers, check_accounting,
    check_allow_lists, check_block_ends, check_marker_in_string, check_marker_mode,
    check_reasoning_is_apart, check_spans, check_strict_reads, draft_from_bytes,
    marker_line_from_bytes, without_close_tag,
};
use crate::json_invariants::{
    check_auto, check_coercion, check_cut_off, check_extract, check_first_value_read_once,
    check_held_value, check_json_text, check_plan, prose_from_bytes,
};
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::formats::Format;
use payload_core::runtime::RuntimeOptions;
use payload_core::stream::Previews;
use payload_core::{LlmPayload, ParseOptions, Parser, PayloadType, extract_as};
use payload_instructions::{InstructionOptions, payload_instructions};
use serde_json::Value;
use std::sync::OnceLock;

/// The names of the targets whose bodies are here, as `fuzz/Cargo.toml` names them
/// (the folder of each one's seeds under `fuzz/corpus/`).
pub const TARGETS: [&str; 5] = ["parse", "repair", "extract", "stream", "schema"];

/// Runs the body of the target named `target` (one of [`TARGETS`]) on `data`; `false`
/// when no target has that name.
pub fn run(target: &str, data: &[u8]) -> bool {
    match target {
        "parse" => parse(data),
        "repair" => repair(data),
        "extract" => extract(data),
        "stream" => stream(data),
        "schema" => schema(data),
        _ => return false,
    }
    true
}

/// The `table_view` page's options and its parser, compiled once.
fn page() -> &'static (ParseOptions, Parser) {
    static PAGE: OnceLock<(ParseOptions, Parser)> = OnceLock::new();
    PAGE.get_or_init(|| {
        let options = crate::table_view_options();
        let parser = Parser::new(&options);
        (options, parser)
    })
}

/// The `table_view` page with a type written in tags beside its marked ones
/// ([`crate::tagged_options`], docs/spec.md §1.21).
fn tagged_page() -> &'static (ParseOptions, Parser) {
    static PAGE: OnceLock<(ParseOptions, Parser)> = OnceLock::new();
    PAGE.get_or_init(|| {
        let options = crate::tagged_options();
        let parser = Parser::new(&options);
        (options, parser)
    })
}

/// The `table_view` page told that the prompt opened the reasoning.
fn prompted_page() -> &'static (ParseOptions, Parser) {
    static PAGE: OnceLock<(ParseOptions, Parser)> = OnceLock::new();
    PAGE.get_or_init(|| {
        let options = crate::table_view_options().reasoning_opened_by_prompt();
        let parser = Parser::new(&options);
        (options, parser)
    })
}

/// Marker-mode parse with the table_view page's options, and again with a type written
/// in tags beside them (docs/spec.md §1.21): the accounting invariant, the
/// allow-lists, numbers as written, the reasoning rule and "a block ends where the text
/// says" (a truncated block reaches the end of the input's answer) and "a strict read
/// ends a value where the scanner does" hold ([`crate::invariants`]), on any input; the
/// input read as an abandoned draft never hides the corrected block and closing words
/// after it; and reasoning never supplies anything: the input cut in two at its first
/// zero byte, `<think>X</think>Y` parses as `Y` does, with `X` as its reasoning. Nothing
/// is removed unaccounted ([`check_spans`]), and a marker line inside a string of a
/// valid block starts no block ([`check_marker_in_string`]).
pub fn parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (options, parser) = page();
    let parsed = parser.parse(&text);
    check_accounting(&text, &parsed);
    check_spans(&text, &parsed);
    check_allow_lists(options, &parsed);
    check_accepted_numbers(&parsed);
    check_block_ends(&text, &parsed);
    check_strict_reads(parser, &text, &parsed);
    // The same text on a page with a type written in tags (docs/spec.md §1.21).
    let (tagged_options, tagged) = tagged_page();
    let parsed = tagged.parse(&text);
    check_accounting(&text, &parsed);
    check_spans(&text, &parsed);
    check_allow_lists(tagged_options, &parsed);
    check_block_ends(&text, &parsed);
    check_strict_reads(tagged, &text, &parsed);
    check_abandoned_draft(parser, options, &draft_from_bytes(data), &[4096]);
    check_marker_in_string(
        parser,
        options,
        ("Intro.\n\n", BLOCK_WITH_LINE_SLOT, "\n\nThanks."),
        &marker_line_from_bytes(data),
        &[4096],
    );
    if let Some(cut) = data.iter().position(|&b| b == 0) {
        let x = without_close_tag(&String::from_utf8_lossy(&data[..cut]));
        let y = String::from_utf8_lossy(&data[cut + 1..]);
        check_reasoning_is_apart(parser, &x, &y);
    }
}

/// JSON reading keeps its guarantees on any text ([`crate::json_invariants`]): strict
/// JSON is read as serde_json reads it, nothing is repaired unreported, what is read is
/// JSON, every number holds its literal or is noted, and a cut-off object or array is
/// never accepted.
pub fn repair(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if check_json_text(&text).is_some() && text.len() <= 256 {
        // Every prefix is read once: kept short so the target stays fast.
        check_cut_off(&text);
    }
}

/// The formats the `extract` target picks from: `auto`, then each named format.
const FORMATS: [Option<Format>; 6] = [
    None,
    Some(Format::Json),
    Some(Format::Xml),
    Some(Format::Delimited),
    Some(Format::Tagged),
    Some(Format::Markdown),
];

/// Whole-response extraction: auto-detected format, then every named format, for the
/// built-in proposals (the first byte picks the type and the format); never panics,
/// and a success always carries data that validates as its type, in every format. As JSON, a success is valid for its type, holds
/// every number as written and never holds quoted choices joined into one string
/// ([`check_extract`]). In `auto`, detection is checked against the result: when any
/// named format reads a valid value, `auto` succeeds unless the response was cut off
/// ([`check_auto`]). The value a response starts with, read strictly, is the one the
/// scanner finds ([`check_first_value_read_once`]). Text that does not end inside a
/// value is never `truncated`, and a value sent inside a string reads as the value, with
/// the input as prose around it ([`check_held_value`]).
pub fn extract(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let payload = if selector & 1 == 0 {
        <DataProposal as LlmPayload>::TYPE
    } else {
        <SchemaProposal as LlmPayload>::TYPE
    };
    match FORMATS[(selector as usize >> 1) % FORMATS.len()] {
        None => {
            check_auto(&text, &payload);
        }
        Some(Format::Json) => {
            check_first_value_read_once(&text);
            check_extract(&text, &payload, 0);
            let half = rest.len() / 2;
            let value = serde_json::json!({"operations": [{"action": "delete", "row_id": 7}]});
            check_held_value(
                &prose_from_bytes(&rest[..half]),
                &value,
                &prose_from_bytes(&rest[half..]),
                &<DataProposal as LlmPayload>::TYPE,
            );
        }
        Some(format) => {
            let result = extract_as(&text, &payload, Some(format));
            assert_eq!(result.success, result.data.is_some(), "{text:?}");
            // Read from any format, a success is a value of its type.
            if let Some(data) = &result.data {
                assert!(
                    payload.validate(data).is_ok(),
                    "a success that does not validate, read as {format}: {data}\n{text:?}"
                );
            }
        }
    }
}

/// The streaming parser under an arbitrary chunking taken from the input (its first
/// bytes, up to a zero byte, are chunk lengths 1..=16, cycled): its final parse equals
/// the one-shot parse, its text deltas are exactly the message and its reasoning deltas
/// exactly the reasoning, no event names a type or action the page does not allow, the
/// accounting invariant holds, and a truncated block reaches the end of the input's
/// answer ([`check_marker_mode`]), on the table view page and on it with a type written
/// in tags (docs/spec.md §1.21), there also with a preview on every chunk
/// ([`Previews::EveryChunk`]); the input read as an abandoned draft, chunked the
/// same way, never hides what follows it. The same holds with the response's first
/// half as a `<think>` section before the second, and that section changes nothing but
/// the reasoning; and with that section opened by the prompt
/// (`reasoning_opened_by_prompt`, only its `</think>` written), every guarantee holds
/// too.
pub fn stream(data: &[u8]) {
    let split = data.iter().position(|&b| b == 0).unwrap_or(0).min(16);
    let (sizes, rest) = data.split_at(split);
    let sizes: Vec<usize> = sizes.iter().map(|&s| s as usize % 16 + 1).collect();
    let text = String::from_utf8_lossy(rest);
    let (options, parser) = page();
    check_marker_mode(parser, options, &text, &sizes);
    let (tagged_options, tagged) = tagged_page();
    check_marker_mode(tagged, tagged_options, &text, &sizes);
    // A preview on every chunk (A2UI's progressive rendering) is as faithful.
    crate::invariants::stream_checked_with(tagged_options, &text, &sizes, Previews::EveryChunk);
    check_abandoned_draft(parser, options, &draft_from_bytes(rest), &sizes);
    check_marker_in_string(
        parser,
        options,
        ("Intro.\n\n", BLOCK_WITH_LINE_SLOT, "\n\nThanks."),
        &marker_line_from_bytes(rest),
        &sizes,
    );
    let half = (0..=text.len() / 2)
        .rev()
        .find(|&at| text.is_char_boundary(at))
        .unwrap_or(0);
    let x = without_close_tag(&text[..half]);
    let thought = format!("<think>{x}</think>\n{}", &text[half..]);
    check_marker_mode(parser, options, &thought, &sizes);
    check_reasoning_is_apart(parser, &x, &text[half..]);
    let (prompted_options, prompted) = prompted_page();
    let opened = format!("{x}</think>\n{}", &text[half..]);
    check_marker_mode(prompted, prompted_options, &opened, &sizes);
}

/// Any bytes as a schema document for a runtime payload type: `PayloadType::from_schema`
/// never panics; it refuses with at least one located problem, or makes a type whose
/// instructions render, whose example (the second JSON value, when given and accepted)
/// is read back as a success, and which reads any text without panicking. The type's
/// compiled validation plan says only what is so of the example and of every further
/// JSON value in the input ([`check_plan`]), and its compiled coercion gives what the
/// reference walk gives ([`check_coercion`]).
pub fn schema(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut values = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    let Some(Ok(schema)) = values.next() else {
        return;
    };
    let example = values.next().and_then(Result::ok);
    let options = RuntimeOptions {
        example: example.clone(),
        ..RuntimeOptions::default()
    };
    match PayloadType::from_schema(&schema, options) {
        Err(error) => assert!(!error.problems.is_empty(), "{text:?}"),
        Ok(payload) => {
            let _ = payload_instructions(payload, &InstructionOptions::default());
            let further: Vec<Value> = values.filter_map(Result::ok).take(8).collect();
            for value in example.iter().chain(&further) {
                check_plan(payload, value);
                check_coercion(payload, value);
            }
            if let Some(example) = example {
                let read = extract_as(&example.to_string(), payload, Some(Format::Json));
                assert!(
                    read.success,
                    "the checked example is refused: {:?}",
                    read.errors
                );
            }
            let _ = extract_as(&text, payload, None);
        }
    }
}
