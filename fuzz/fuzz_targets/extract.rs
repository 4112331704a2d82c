//! Whole-response extraction: auto-detected format, then every named format, for the
//! built-in proposals; never panics, and a success always carries data. As JSON, a
//! success is valid for its type, holds every number as written and never holds
//! quoted choices joined into one string (`payload_benches::json_invariants::check_extract`). In `auto`, detection is
//! checked against the result: when any named format reads a valid value, `auto`
//! succeeds unless the response was cut off (`json_invariants::check_auto`). The value
//! a response starts with, read strictly, is the one the scanner finds
//! (`json_invariants::check_first_value_read_once`). Text that does not end inside a
//! value is never `truncated`, and a value sent inside a string reads as the value,
//! with the input as prose around it (`json_invariants::check_held_value`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::LlmPayload;
use payload_core::formats::Format;

const FORMATS: [Option<Format>; 6] = [
    None,
    Some(Format::Json),
    Some(Format::Xml),
    Some(Format::Delimited),
    Some(Format::Tagged),
    Some(Format::Markdown),
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let payload = if selector & 1 == 0 {
        <DataProposal as LlmPayload>::TYPE
    } else {
        <SchemaProposal as LlmPayload>::TYPE
    };
    let format = FORMATS[(selector as usize >> 1) % FORMATS.len()];
    match format {
        None => {
            payload_benches::json_invariants::check_auto(&text, &payload);
        }
        Some(Format::Json) => {
            payload_benches::json_invariants::check_first_value_read_once(&text);
            payload_benches::json_invariants::check_extract(&text, &payload, 0);
            let half = rest.len() / 2;
            let value = serde_json::json!({"operations": [{"action": "delete", "row_id": 7}]});
            payload_benches::json_invariants::check_held_value(
                &payload_benches::json_invariants::prose_from_bytes(&rest[..half]),
                &value,
                &payload_benches::json_invariants::prose_from_bytes(&rest[half..]),
                &<DataProposal as LlmPayload>::TYPE,
            );
        }
        Some(format) => {
            let result = payload_core::extract_as(&text, &payload, Some(format));
            assert_eq!(result.success, result.data.is_some());
        }
    }
});
