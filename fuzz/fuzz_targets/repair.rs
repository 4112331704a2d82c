//! JSON reading keeps its guarantees on any text (`payload_benches::json_invariants`):
//! strict JSON is read as serde_json reads it, nothing is repaired unreported, what is
//! read is JSON, and a cut-off object or array is never accepted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_benches::json_invariants::{check_cut_off, check_json_text};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if check_json_text(&text).is_some() && text.len() <= 256 {
        // Every prefix is read once: kept short so the target stays fast.
        check_cut_off(&text);
    }
});
