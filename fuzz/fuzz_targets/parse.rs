//! Marker-mode parse with the table_view page's options: the accounting invariant, the
//! allow-lists and "a block ends where the text says" (a truncated block reaches the
//! end of the input) hold (`payload_benches::invariants`), on any input; and the input
//! read as an abandoned draft never hides the corrected block and closing words after it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_benches::invariants::{
    check_abandoned_draft, check_accounting, check_allow_lists, check_block_ends, draft_from_bytes,
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
    check_allow_lists(options, &parsed);
    check_block_ends(&text, &parsed);
    check_abandoned_draft(parser, options, &draft_from_bytes(data), &[4096]);
});
