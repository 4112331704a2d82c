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
//!
//! The body is `payload_benches::fuzz::parse`, which the replay test
//! (`tests/all/fuzz_replay.rs`) runs on the seeds and saved findings on a stable compiler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| payload_benches::fuzz::parse(data));
