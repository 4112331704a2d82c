//! Any bytes as a schema document for a runtime payload type: `PayloadType::from_schema`
//! never panics; it refuses with at least one located problem, or makes a type whose
//! instructions render, whose example (the second JSON value, when given and accepted)
//! is read back as a success, and which reads any text without panicking. The type's
//! compiled validation plan says only what is so of the example and of every further
//! JSON value in the input (`payload_benches::json_invariants::check_plan`), and its
//! compiled coercion gives what the reference walk gives (`check_coercion`).
//!
//! The body is `payload_benches::fuzz::schema`, which the replay test
//! (`tests/all/fuzz_replay.rs`) runs on the seeds and saved findings on a stable compiler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| payload_benches::fuzz::schema(data));
