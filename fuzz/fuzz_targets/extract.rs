//! Whole-response extraction: auto-detected format, then every named format, for the
//! built-in proposals; never panics, and a success always carries data valid for its
//! type, in every format. As JSON, a
//! success is valid for its type, holds every number as written and never holds
//! quoted choices joined into one string (`payload_benches::json_invariants::check_extract`). In `auto`, detection is
//! checked against the result: when any named format reads a valid value, `auto`
//! succeeds unless the response was cut off (`json_invariants::check_auto`). The value
//! a response starts with, read strictly, is the one the scanner finds
//! (`json_invariants::check_first_value_read_once`). Text that does not end inside a
//! value is never `truncated`, and a value sent inside a string reads as the value,
//! with the input as prose around it (`json_invariants::check_held_value`).
//!
//! The body is `payload_benches::fuzz::extract`, which the replay test
//! (`tests/all/fuzz_replay.rs`) runs on the seeds and saved findings on a stable compiler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| payload_benches::fuzz::extract(data));
