//! Marker-mode parse with the table_view page's options: the accounting invariant, the
//! allow-lists and the reasoning rule hold (`payload_benches::invariants`), on any
//! input; and reasoning never supplies anything: the input cut in two at its first zero
//! byte, `<think>X</think>Y` parses as `Y` does, with `X` as its reasoning.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_benches::invariants::{
    check_accounting, check_allow_lists, check_reasoning_is_apart, without_close_tag,
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
    if let Some(cut) = data.iter().position(|&b| b == 0) {
        let x = without_close_tag(&String::from_utf8_lossy(&data[..cut]));
        let y = String::from_utf8_lossy(&data[cut + 1..]);
        check_reasoning_is_apart(parser, &x, &y);
    }
});
