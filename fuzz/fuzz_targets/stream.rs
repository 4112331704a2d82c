//! The streaming parser under an arbitrary chunking taken from the input: its final
//! parse equals the one-shot parse, its text deltas are exactly the message and its
//! reasoning deltas exactly the reasoning, no event names a type or action the page
//! does not allow, the accounting invariant holds, and a truncated block reaches the end
//! of the input's answer (`payload_benches::invariants`), nothing removed unaccounted,
//! whitespace included; the input read as an abandoned draft, chunked the same way,
//! never hides what follows it, and written as a line inside a string of a valid block
//! never starts a block of its own, streamed as one-shot. The same holds with the
//! response's first half as a `<think>` section before the second, and that section
//! changes nothing but the reasoning; and with that section opened by the prompt
//! (`reasoning_opened_by_prompt`, only its `</think>` written), every guarantee holds
//! too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_benches::invariants::{
    BLOCK_WITH_LINE_SLOT, check_abandoned_draft, check_marker_in_string, check_marker_mode,
    check_reasoning_is_apart, draft_from_bytes, marker_line_from_bytes, without_close_tag,
};
use payload_core::ParseOptions;
use payload_core::Parser;
use std::sync::OnceLock;

static PAGE: OnceLock<(ParseOptions, Parser)> = OnceLock::new();
static PROMPTED: OnceLock<(ParseOptions, Parser)> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    // The first bytes are chunk lengths (1..=16, cycled); the rest is the response.
    let split = data.iter().position(|&b| b == 0).unwrap_or(0).min(16);
    let (sizes, rest) = data.split_at(split);
    let sizes: Vec<usize> = sizes.iter().map(|&s| s as usize % 16 + 1).collect();
    let text = String::from_utf8_lossy(rest);
    let (options, parser) = PAGE.get_or_init(|| {
        let options = payload_benches::table_view_options();
        let parser = Parser::new(&options);
        (options, parser)
    });
    check_marker_mode(parser, options, &text, &sizes);
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
    let (prompted_options, prompted) = PROMPTED.get_or_init(|| {
        let options = payload_benches::table_view_options().reasoning_opened_by_prompt();
        let parser = Parser::new(&options);
        (options, parser)
    });
    let opened = format!("{x}</think>\n{}", &text[half..]);
    check_marker_mode(prompted, prompted_options, &opened, &sizes);
});
