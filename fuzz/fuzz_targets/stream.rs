//! The streaming parser under an arbitrary chunking taken from the input: its final
//! parse equals the one-shot parse, its text deltas are exactly the message and its
//! reasoning deltas exactly the reasoning, no event names a type or action the page
//! does not allow, the accounting invariant holds, and a truncated block reaches the end
//! of the input's answer (`payload_benches::invariants`), every preview of the accepted
//! payload is a faithful early view of its final data and the last one is that data, each
//! top-level list element comes once, in order, and they are the final data's elements
//! (`check_streamed_blocks`), nothing removed unaccounted,
//! whitespace included; the input read as an abandoned draft, chunked the same way,
//! never hides what follows it, and written as a line inside a string of a valid block
//! never starts a block of its own, streamed as one-shot. The same holds with the
//! response's first half as a `<think>` section before the second, and that section
//! changes nothing but the reasoning; and with that section opened by the prompt
//! (`reasoning_opened_by_prompt`, only its `</think>` written), every guarantee holds
//! too.
//!
//! The body is `payload_benches::fuzz::stream`, which the replay test
//! (`tests/all/fuzz_replay.rs`) runs on the seeds and saved findings on a stable compiler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| payload_benches::fuzz::stream(data));
