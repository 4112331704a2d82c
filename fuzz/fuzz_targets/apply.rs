//! Accepting proposals keeps the database sound on any input: the bytes are read as a
//! JSON list of steps (`{"schema": proposal}` or `{"data": proposal, "keep": [..]}`)
//! applied to a table created by the first schema step. Applying never fails on a
//! table that exists, every operation is counted once (applied or skipped with a
//! reason), and the app's column metadata agrees with SQLite's tables after each step.
//!
//! A step `{"propose": {"type": ..., "data": ...}, "decisions": ["accept", "dismiss",
//! {"rows": [..]}, ...]}` stores the payload as a turn's proposal and decides it again
//! and again: at most one decision succeeds, every one after it is refused as already
//! decided and changes no table, and a failed one leaves the payload `proposed`.
//! Recording a proposal for that turn again is refused and changes nothing.
//!
//! The body is `table_that_web::fuzz::apply`, which the server tests replay on the
//! seeds and saved findings on a stable compiler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| table_that_web::fuzz::apply(data));
