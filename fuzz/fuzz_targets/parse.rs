//! Marker-mode parse with the table_view page's options: the accounting invariant, the
//! allow-lists, numbers as written, the reasoning rule and "a block ends where the text
//! says" (a truncated block reaches the end of the input's answer) and "a strict read
//! ends a value where the scanner does" hold (`payload_benches::invariants`), on any
//! input; nothing removed is unaccounted, whitespace included (`check_spans`); the
//! input written as a line inside a string of a valid block never starts a block of
//! its own (`check_marker_in_string`); the input read as an abandoned draft
//! never hides the corrected block and closing words after it; and reasoning never
//! supplies anything: the input cut in two at its first zero byte, `<think>X</think>Y`
//! parses as `Y` does, with `X` as its reasoning.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_benches::invariants::{
    BLOCK_WITH_LINE_SLOT, check_abandoned_draft, check_accepted_numbers, check_accounting,
    check_allow_lists, check_block_ends, check_marker_in_string, check_reasoning_is_apart,
    check_spans, check_strict_reads, draft_from_bytes, marker_line_from_bytes,
    without_close_tag,
};
use payload_core::ParseOptions;
use payload_core::Parser;
use std::sync::OnceLock;

static PAGE: OnceLock<(ParseOptions, Parser)> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (options, parser) = PAGE.get_or_init(|| {
        let options = payload_benches::table_view_options();
        let parser = Parser::new(&options);
        (options, parser)
    });
    let parsed = parser.parse(&text);
    check_accounting(&text, &parsed);
    check_spans(&text, &parsed);
    check_allow_lists(options, &parsed);
    check_accepted_numbers(&parsed);
    check_block_ends(&text, &parsed);
    check_strict_reads(parser, &text, &parsed);
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
});
