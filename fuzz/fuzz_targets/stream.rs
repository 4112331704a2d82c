//! The streaming parser under an arbitrary chunking taken from the input: its final
//! parse equals the one-shot parse, and its text deltas are exactly the message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_core::parse::Parser;
use payload_core::stream::{StreamEvent, StreamParser};

fuzz_target!(|data: &[u8]| {
    // The first bytes are chunk lengths (1..=16, cycled); the rest is the response.
    let split = data.iter().position(|&b| b == 0).unwrap_or(0).min(16);
    let (sizes, rest) = data.split_at(split);
    let text = String::from_utf8_lossy(rest);
    let options = payload_benches::table_view_options();
    let mut stream = StreamParser::new(&options);
    let mut shown = String::new();
    let mut at = 0;
    let mut i = 0;
    while at < text.len() {
        let size = sizes
            .get(i % sizes.len().max(1))
            .map_or(3, |&s| s as usize % 16 + 1);
        i += 1;
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        for event in stream.push(&text[at..end]) {
            if let StreamEvent::TextDelta { text } = event {
                shown.push_str(&text);
            }
        }
        at = end;
    }
    let (events, parsed) = stream.finish();
    for event in events {
        if let StreamEvent::TextDelta { text } = event {
            shown.push_str(&text);
        }
    }
    let one_shot = Parser::new(&options).parse(&text);
    assert_eq!(parsed, one_shot);
    assert_eq!(shown, one_shot.message);
});
