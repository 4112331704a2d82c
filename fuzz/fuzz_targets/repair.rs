//! The lenient JSON reader: never panics, and what it reads serializes back to JSON
//! that serde_json reads as the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(lenient) = payload_core::repair::parse_lenient(&text) {
        let json = serde_json::to_string(&lenient.value).unwrap();
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, lenient.value);
    }
});
