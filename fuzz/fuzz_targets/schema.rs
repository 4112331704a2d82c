//! Any bytes as a schema document for a runtime payload type: `PayloadType::from_schema`
//! never panics; it refuses with at least one located problem, or makes a type whose
//! instructions render, whose example (the second JSON value, when given and accepted)
//! is read back as a success, and which reads any text without panicking. The type's
//! compiled validation plan says only what is so of the example and of every further
//! JSON value in the input (`payload_benches::json_invariants::check_plan`), and its
//! compiled coercion gives what the reference walk gives (`check_coercion`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use payload_core::formats::Format;
use payload_instructions::{InstructionOptions, payload_instructions};
use payload_benches::json_invariants::{check_coercion, check_plan};
use payload_core::{PayloadType, runtime::RuntimeOptions, extract_as};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut values = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    let Some(Ok(schema)) = values.next() else {
        return;
    };
    let example = values.next().and_then(Result::ok);
    let options = RuntimeOptions {
        example: example.clone(),
        ..RuntimeOptions::default()
    };
    match PayloadType::from_schema(&schema, options) {
        Err(error) => assert!(!error.problems.is_empty()),
        Ok(payload) => {
            let _ = payload_instructions(payload, &InstructionOptions::default());
            let further: Vec<Value> = values.filter_map(Result::ok).take(8).collect();
            for value in example.iter().chain(&further) {
                check_plan(payload, value);
                check_coercion(payload, value);
            }
            if let Some(example) = example {
                let read = extract_as(&example.to_string(), payload, Some(Format::Json));
                assert!(
                    read.success,
                    "the checked example is refused: {:?}",
                    read.errors
                );
            }
            let _ = extract_as(&text, payload, None);
        }
    }
});
