//! Marker-mode parse with the table_view page's options: never panics, and the
//! message is never longer than the response.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_core::parse::Parser;
use std::sync::OnceLock;

static PARSER: OnceLock<Parser> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parser = PARSER.get_or_init(|| Parser::new(&payload_benches::table_view_options()));
    let parsed = parser.parse(&text);
    assert!(parsed.message.len() <= text.len());
});
