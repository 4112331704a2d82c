//! JSON reading keeps its guarantees on any text (`payload_benches::json_invariants`):
//! strict JSON is read as serde_json reads it, nothing is repaired unreported, what is
//! read is JSON, and a cut-off object or array is never accepted.
//!
//! The body is `payload_benches::fuzz::repair`, which the replay test
//! (`tests/all/fuzz_replay.rs`) runs on the seeds and saved findings on a stable compiler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| payload_benches::fuzz::repair(data));
