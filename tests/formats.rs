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

/// Per-type and per-field format options are schemars attributes: they land in the
/// published schema as `x-format`, and the readers, hints and instructions follow them.
mod field_options {
    use super::*;
    use payload_core::LlmPayload;
    use payload_derive::LlmPayload;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A code review.
    #[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
    #[payload(example = review)]
    #[schemars(extend("x-format" = {"xml": {"root-element": "review"}}))]
    pub struct Review {
        /// The patched code.
        #[schemars(extend("x-format" = {
            "xml": {"cdata": true},
            "markdown": {"header": "## Patched code", "code-fence": "rust"}
        }))]
        pub code: String,
        /// What to fix.
        #[schemars(extend("x-format" = {
            "xml": {"element": "findings", "item-element": "finding"},
            "tagged": {"tag": "FINDING"},
            "markdown": {"list-style": "ordered"}
        }))]
        pub issues: Vec<String>,
    }

    fn review() -> Review {
        Review {
            code: "if a < b && c {\n    run();\n}".into(),
            issues: vec!["Name the condition".into(), "Handle the error".into()],
        }
    }

    #[test]
    fn field_level_x_format_is_in_the_schema_and_is_followed() {
        let t = Review::TYPE;
        let schema = t.schema(Dialect::Draft2020_12);
        assert_eq!(schema["x-format"]["xml"]["root-element"], "review");
        assert_eq!(
            schema["properties"]["issues"]["x-format"]["xml"]["item-element"],
            "finding"
        );
        let example = t.example().unwrap();
        let xml = render(Format::Xml, &example, &schema);
        assert!(
            xml.starts_with("<review>\n  <code><![CDATA[if a < b"),
            "{xml}"
        );
        assert!(
            xml.contains("<findings>\n    <finding>Name the condition</finding>"),
            "{xml}"
        );
        let md = render(Format::Markdown, &example, &schema);
        assert!(md.starts_with("## Patched code\n```rust\n"), "{md}");
        assert!(
            md.contains("## Issues\n1. Name the condition\n2. Handle the error"),
            "{md}"
        );
        let tagged = render(Format::Tagged, &example, &schema);
        assert!(
            tagged.contains("<FINDING>Handle the error</FINDING>"),
            "{tagged}"
        );
        for format in TEXT_FORMATS {
            let text = render(format, &example, &schema);
            let result = extract_as(&text, &t, None);
            assert!(result.success, "{format}: {:#?}\n{text}", result.errors);
            assert_eq!(result.format, format.as_str(), "{text}");
            assert_eq!(result.data.unwrap(), example, "{format}");
        }
        let missing = extract_as("<review><code>x</code></review>", &t, Some(Format::Xml));
        let hint = missing.errors[0].suggestion.as_deref().unwrap();
        assert!(
            hint.contains("In XML: <findings><finding>...</finding>"),
            "{hint}"
        );
    }
}

mod declared_format_options {
    use payload_core::{Dialect, LlmPayload};
    use payload_derive::LlmPayload;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    /// A release note.
    #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
    #[serde(rename_all = "camelCase")]
    #[payload(format(xml(root = "release")))]
    struct ReleaseNote {
        #[payload(format(
            xml(element = "headline", cdata),
            markdown(header = "# Title", level = 1)
        ))]
        release_title: String,
        #[serde(rename = "items")]
        #[payload(format(xml(item = "change"), delimited(list = "numbered", prefix = "- ")))]
        changes: Vec<String>,
    }

    #[test]
    fn field_options_are_keyed_by_the_serialized_name() {
        let schema = ReleaseNote::TYPE.schema(Dialect::Draft2020_12);
        assert_eq!(
            schema["x-format"],
            json!({
                "xml": {"root-element": "release", "properties": {
                    "releaseTitle": {"element": "headline", "cdata": true},
                    "items": {"item-element": "change"}}},
                "markdown": {"properties": {"releaseTitle": {"header": "# Title", "level": 1}}},
                "delimited": {"properties": {"items": {"list-format": "numbered", "item-prefix": "- "}}}
            })
        );
    }
}
