//! Marker-mode parse with the table_view page's options: the accounting invariant, the
//! allow-lists and numbers as written hold (`payload_benches::invariants`), on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_benches::invariants::{check_accepted_numbers, check_accounting, check_allow_lists};
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
    check_accepted_numbers(&parsed);
});
