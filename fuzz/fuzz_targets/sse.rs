//! The model clients' event-stream reader keeps its invariants on any bytes
//! (`payload_providers::__internals::sse::check_reading`): however the stream is cut into
//! pieces it reads the same events (or fails the same way), searches each byte for a
//! line end at most once, and never hands out an event over its cap.
#![no_main]

use libfuzzer_sys::fuzz_target;

// The first byte sets the cap, the second how many cut points follow; the rest is the
// stream. The body is shared with the replay test (`tests/all/fuzz_replay.rs`).
fuzz_target!(|data: &[u8]| payload_providers::__internals::sse::check_bytes(data));
