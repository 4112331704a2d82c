//! The model clients' event-stream reader keeps its invariants on any bytes
//! (`payload_providers::__internals::sse::check_reading`): however the stream is cut into
//! pieces it reads the same events (or fails the same way), searches each byte for a
//! line end at most once, and never hands out an event over its cap.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_providers::__internals::sse::check_reading;

fuzz_target!(|data: &[u8]| {
    // The first byte sets the cap, the second how many cut points follow; the rest is
    // the stream.
    let [cap, count, rest @ ..] = data else {
        return;
    };
    let count = usize::from(*count % 8).min(rest.len());
    let (cuts, stream) = rest.split_at(count);
    let cuts: Vec<usize> = cuts.iter().map(|&c| usize::from(c) * 31).collect();
    let _ = check_reading(stream, &cuts, 1 + usize::from(*cap) * 4);
});
