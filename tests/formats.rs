//! Every registered type, in every text format that can write it: the example rendered
//! in the format (as the instructions show it) reads back through `extract_as` to the
//! example value, and the instructions of each format carry that same rendering.

use payload_core::formats::{Format, expressible, render};
use payload_core::instructions::{InstructionOptions, whole_response_instructions_in};
use payload_core::{Dialect, extract_as};
use payload_registry::Registry;
use serde_json::Value;

use payload_tests as _;

const TEXT_FORMATS: [Format; 4] = [
    Format::Xml,
    Format::Delimited,
    Format::Tagged,
    Format::Markdown,
];

/// An absent optional member and a `null` one decode to the same `None`. An empty list
/// is dropped too: in the text formats an empty `Option<Vec<_>>` field (`<media></media>`)
/// reads as `None`, as a person would read it; that non-nullable empty lists read back
/// as `[]` is checked in the renderer's own tests.
fn without_null_members(value: &Value) -> Value {
    let mut value = value.clone();
    let mut stack = vec![&mut value];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                map.retain(|_, v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()));
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    value
}

#[test]
fn every_example_round_trips_through_every_format_that_can_write_it() {
    let mut checked = Vec::new();
    let mut refused = Vec::new();
    for t in Registry::global().types() {
        let schema = t.schema(Dialect::Draft2020_12);
        let example = t.example().expect("every registered type has an example");
        for format in TEXT_FORMATS {
            if let Err(reason) = expressible(format, &schema) {
                refused.push(format!("{} {format}: {reason}", t.name));
                continue;
            }
            let text = render(format, &example, &schema);
            let result = extract_as(&text, t, Some(format));
            assert!(
                result.success,
                "{} in {format} does not read back:\n{text}\n{:#?}",
                t.name, result.errors
            );
            assert_eq!(
                without_null_members(result.data.as_ref().unwrap()),
                without_null_members(&example),
                "{} {format}:\n{text}",
                t.name
            );
            // Detection finds the format too: the example is what a model copies.
            let detected = extract_as(&text, t, None);
            assert_eq!(detected.format, format.as_str(), "{} {format}", t.name);
            assert!(detected.success, "{} {format} auto", t.name);
            checked.push(format!("{} {format}", t.name));
        }
    }
    println!("round-tripped {} type/format pairs", checked.len());
    println!("refused:\n{}", refused.join("\n"));
    // Most types are flat or nested objects; the refusals are maps, unions and
    // top-level arrays. This guards against a change that refuses everything.
    assert!(checked.len() >= 40, "{checked:?}");
    assert!(checked.contains(&"analysis_result xml".to_string()));
    assert!(checked.contains(&"task_plan delimited".to_string()));
}

#[test]
fn the_instructions_show_the_example_as_rendered() {
    for t in Registry::global().types() {
        let schema = t.schema(Dialect::Draft2020_12);
        let example = t.example().expect("every registered type has an example");
        for format in TEXT_FORMATS {
            if expressible(format, &schema).is_err() {
                continue;
            }
            let text = whole_response_instructions_in(t, format, &InstructionOptions::default());
            let rendered = render(format, &example, &schema);
            assert!(
                text.contains(&format!(
                    "\nEXAMPLE OUTPUT:\n{rendered}\n\nVALIDATION REQUIREMENTS:\n"
                )),
                "{} {format}:\n{text}",
                t.name
            );
        }
    }
}

#[test]
fn instructions_of_the_seed_types_in_every_format() {
    for name in ["analysis_result", "task_plan"] {
        let t = Registry::global().payload_type(name).expect("registered");
        for format in TEXT_FORMATS {
            let text = whole_response_instructions_in(t, format, &InstructionOptions::default());
            insta::assert_snapshot!(format!("instructions_{format}_{name}"), text);
        }
    }
}
