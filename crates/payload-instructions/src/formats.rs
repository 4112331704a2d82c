//! Whole-response instructions in XML, delimited sections, tagged content and markdown
//! (the output-schema app's `generateInstructions(example, {format})`): the same type, example,
//! requirements and rules as the JSON instructions, with the structure and the example
//! written in the asked format by [`payload_core::formats::render`], so what the prompt shows
//! is exactly what the reader of that format accepts.

use super::InstructionOptions;
use super::text::{finish, one_line, requirements, rules, section};
use payload_core::PayloadType;
use payload_core::formats::{Format, format_hint};
use payload_core::formats::{render, xml_root};
use payload_schema::dialect::Dialect;
use payload_schema::walk::{describe, enum_values, list_values, resolve, single_branch, types_of};
use serde_json::{Map, Value};
use std::fmt::Write;

/// How deep the structure sketch and the field list follow nested objects.
const SKETCH_DEPTH: usize = 8;
/// What stands for a value in the structure sketch.
const PLACEHOLDER: &str = "...";

/// Instructions for a response that is one value of `payload` written in `format`.
///
/// Layout (the output-schema app): `RESPONSE FORMAT REQUIRED:`, the type's description, how the
/// format is written and the structure with `...` for each value; when detailed, the
/// fields with their types, bounds and descriptions, and the example rendered in the
/// format (`include_example`); then `VALIDATION REQUIREMENTS:` (only the response,
/// required fields and bounds, the type's rules, and the format's common mistakes when
/// `error_prevention`). [`Format::Json`] gives [`super::whole_response_instructions`].
///
/// A type the format cannot write faithfully ([`payload_core::formats::expressible`] says
/// why) still gets instructions, but its structure sketch is incomplete; callers that
/// offer the choice should check first, as `payload instructions` does.
pub fn whole_response_instructions_in(
    payload: &PayloadType,
    format: Format,
    options: &InstructionOptions,
) -> String {
    if format == Format::Json {
        return super::whole_response_instructions(payload, options);
    }
    let schema = payload.schema(Dialect::Draft2020_12);
    let mut out = String::from("RESPONSE FORMAT REQUIRED:\n");
    if !payload.description.trim().is_empty() {
        let _ = writeln!(out, "\n{}", one_line(payload.description));
    }
    let _ = writeln!(out, "\n{}\n", intro(format, &schema));
    let skeleton = skeleton(&schema, &schema, 0);
    let _ = writeln!(out, "{}", render(format, &skeleton, &schema));
    if options.detailed() {
        let mut fields = Vec::new();
        field_list(&schema, &schema, "", 0, options, &mut fields);
        section(&mut out, "FIELDS:", &fields);
    }
    if options.detailed() && options.include_example {
        if let Some(example) = payload.example() {
            let _ = write!(
                out,
                "\nEXAMPLE OUTPUT:\n{}\n",
                render(format, &example, &schema)
            );
        }
    }
    let mut list = vec![format!(
        "Return ONLY the {}, with no text before or after and no code fence.",
        what(format)
    )];
    if options.detailed() && options.include_constraints {
        list.extend(requirements(&schema, options));
    }
    list.extend(rules(payload));
    if options.detailed() && options.error_prevention {
        list.extend(mistakes(format, &schema));
    }
    section(&mut out, "VALIDATION REQUIREMENTS:", &list);
    finish(out)
}

/// The response as a noun: "XML", "delimited sections", ...
fn what(format: Format) -> &'static str {
    noun(format).unwrap_or(format.as_str())
}

/// The noun of each format payload-core has now. `Format` is `non_exhaustive`, so a
/// format added there later compiles here, named by its own name until it has words
/// (`every_format_has_its_own_words` fails until then).
fn noun(format: Format) -> Option<&'static str> {
    Some(match format {
        Format::Xml => "XML",
        Format::Delimited => "delimited sections",
        Format::Tagged => "tagged content",
        Format::Markdown => "markdown",
        Format::Json => "JSON",
        _ => return None,
    })
}

/// The first property of the root, for examples in sentences.
fn first_property(schema: &Value) -> Option<String> {
    resolve(schema, schema)
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.keys().next().cloned())
}

/// How the format is written, in one sentence, with the schema's own names.
fn intro(format: Format, schema: &Value) -> String {
    let example = first_property(schema)
        .map(|first| {
            let hint = format_hint(format, &first, schema);
            let how = hint.split_once(": ").map_or(hint.as_str(), |(_, h)| h);
            format!(" (for {first}: {how})")
        })
        .unwrap_or_default();
    let lead = match format {
        Format::Xml => format!(
            "Return your response as XML: one <{}> root element holding one element per field, and one element per array item",
            xml_root(schema)
        ),
        Format::Delimited => {
            "Return your response as delimited sections: each field starts with its delimiter line, on a line of its own, and its value follows on the lines below; arrays are lists, one item per line".to_string()
        }
        Format::Tagged => {
            "Return your response as tagged content: each field inside its own tag, an array as its tag repeated once per item".to_string()
        }
        Format::Markdown => {
            "Return your response as markdown: a header per field with its value on the lines below, arrays as lists".to_string()
        }
        Format::Json => "Return your response as JSON".to_string(),
        other => format!("Return your response as {}", what(other)),
    };
    format!(
        "{lead}{example}. Follow this exact structure, writing each value where it shows {PLACEHOLDER}:"
    )
}

/// A value of `schema` with `...` for every scalar (an enum's allowed values joined by
/// `|`), two items in each array of scalars and one in each array of objects, and every
/// optional member present.
fn skeleton(root: &Value, schema: &Value, depth: usize) -> Value {
    let schema = resolve(root, schema);
    let schema = resolve(root, single_branch(root, schema).unwrap_or(schema));
    if let Some(values) = enum_values(root, schema) {
        return Value::String(
            values
                .iter()
                .map(|v| list_values(std::slice::from_ref(v)))
                .collect::<Vec<_>>()
                .join(" | "),
        );
    }
    let types = types_of(schema);
    if depth < SKETCH_DEPTH && types.contains(&"object") {
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            let map: Map<String, Value> = props
                .iter()
                .map(|(k, s)| (k.clone(), skeleton(root, s, depth + 1)))
                .collect();
            return Value::Object(map);
        }
    }
    if depth < SKETCH_DEPTH && types.contains(&"array") {
        if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
            let item = skeleton(root, items, depth + 1);
            return if item.is_object() {
                Value::Array(vec![item])
            } else {
                Value::Array(vec![item.clone(), item])
            };
        }
    }
    Value::String(PLACEHOLDER.into())
}

/// `- name (required): number between 0 and 1. Description.` for every field, nested
/// fields as `owner.name`.
fn field_list(
    root: &Value,
    schema: &Value,
    path: &str,
    depth: usize,
    options: &InstructionOptions,
    out: &mut Vec<String>,
) {
    let schema = resolve(root, schema);
    let schema = resolve(root, single_branch(root, schema).unwrap_or(schema));
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (prop, prop_schema) in props {
        let name = if path.is_empty() {
            prop.clone()
        } else {
            format!("{path}.{prop}")
        };
        let need = if required.contains(&prop.as_str()) {
            "required"
        } else {
            "optional"
        };
        let mut line = format!("{name} ({need}): {}", kind_text(root, prop_schema, options));
        let resolved = resolve(root, prop_schema);
        let description = prop_schema
            .get("description")
            .or_else(|| resolved.get("description"))
            .and_then(Value::as_str);
        if let Some(text) = description.filter(|_| options.include_descriptions) {
            let _ = write!(line, ". {}", one_line(text).trim_end_matches('.'));
        }
        line.push('.');
        out.push(line);
        let inner = resolve(root, single_branch(root, resolved).unwrap_or(resolved));
        if depth < SKETCH_DEPTH && inner.get("properties").is_some() {
            field_list(root, inner, &name, depth + 1, options, out);
        }
        if depth < SKETCH_DEPTH && types_of(inner).contains(&"array") {
            if let Some(items) = inner.get("items").filter(|i| i.is_object()) {
                let item = resolve(root, items);
                if item.get("properties").is_some() {
                    field_list(root, item, &format!("{name}[]"), depth + 1, options, out);
                }
            }
        }
    }
}

/// What a field holds: with its bounds when constraints are included, else its type.
fn kind_text(root: &Value, schema: &Value, options: &InstructionOptions) -> String {
    if options.include_constraints {
        return describe(root, schema);
    }
    let resolved = resolve(root, schema);
    if let Some(values) = enum_values(root, resolved) {
        return format!("one of {}", list_values(&values));
    }
    let resolved = resolve(root, single_branch(root, resolved).unwrap_or(resolved));
    let types = types_of(resolved);
    if types.is_empty() {
        "any value".into()
    } else {
        types.join(" or ")
    }
}

/// The mistakes models make most in each format.
fn mistakes(format: Format, schema: &Value) -> Vec<String> {
    let mut list = Vec::new();
    match format {
        Format::Xml => {
            list.push("Close every element you open, with the same name: <name>...</name>.".into());
            list.push("Inside text, write & as &amp; and < as &lt;.".into());
            list.push("Use only the element names shown, spelled exactly.".into());
        }
        Format::Delimited => {
            list.push(
                "Write each delimiter line exactly as shown, in capitals, on a line of its own, with nothing else on it.".into(),
            );
            list.push("Write each list item on its own line, marked as shown.".into());
        }
        Format::Tagged => {
            list.push(
                "Write each tag exactly as shown, in the same case, and close it: <TAG>...</TAG>."
                    .into(),
            );
            list.push("Use only the tags shown; write nothing outside the tags.".into());
        }
        Format::Markdown => {
            list.push(
                "Start each field with its header exactly as shown, on a line of its own.".into(),
            );
            list.push("Write each list item on its own line, marked as shown.".into());
        }
        Format::Json | _ => {}
    }
    if first_property(schema).is_some() {
        list.push(
            "Write numbers in digits (0.85), with no units, words or percent signs; write true or false for yes/no values.".into(),
        );
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A format added to payload-core compiles here through the fallback arms: this
    /// says it still needs its own words.
    #[test]
    fn every_format_has_its_own_words() {
        for format in Format::ALL {
            assert!(noun(format).is_some(), "{format} has no words of its own");
        }
    }
    use payload_core::LlmPayload;
    use payload_core::formats::{expressible, parse_as};
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    // The output-schema app's analysis type, with its x-format.
    #[derive(Debug, Serialize, Deserialize, JsonSchema, payload_core::LlmPayload)]
    #[payload(example = analysis_example)]
    #[schemars(extend("x-format" = {
        "xml": {"root-element": "analysis-result",
                "properties": {"recommendations": {"item-element": "recommendation"}}},
        "delimited": {"section-pattern": "===={NAME}====",
                      "properties": {"recommendations": {"list-format": "bullet"}}}
    }))]
    /// An analysis of market data.
    struct AnalysisResult {
        /// Detailed analysis of the data.
        analysis: String,
        /// Confidence level in the analysis.
        #[schemars(range(min = 0.0, max = 1.0))]
        confidence: f64,
        /// Top recommendations based on analysis.
        recommendations: Vec<String>,
    }

    fn analysis_example() -> AnalysisResult {
        AnalysisResult {
            analysis: "Market trends show strong upward momentum in Q3".into(),
            confidence: 0.87,
            recommendations: vec!["Increase inventory".into(), "Expand marketing".into()],
        }
    }

    fn instructions(format: Format) -> String {
        whole_response_instructions_in(
            &AnalysisResult::TYPE,
            format,
            &InstructionOptions::default(),
        )
    }

    #[test]
    fn xml_instructions_show_the_root_items_and_example() {
        let text = instructions(Format::Xml);
        assert!(
            text.starts_with("RESPONSE FORMAT REQUIRED:\n\nAn analysis of market data.\n"),
            "{text}"
        );
        assert!(
            text.contains("one <analysis-result> root element"),
            "{text}"
        );
        assert!(
            text.contains("    <recommendation>...</recommendation>\n"),
            "{text}"
        );
        assert!(text.contains("- confidence (required): number between 0.0 and 1.0. Confidence level in the analysis."), "{text}");
        assert!(
            text.contains("EXAMPLE OUTPUT:\n<analysis-result>\n  <analysis>Market trends"),
            "{text}"
        );
        assert!(
            text.contains("- Return ONLY the XML, with no text before or after and no code fence."),
            "{text}"
        );
        assert!(text.contains("write & as &amp;"), "{text}");
    }

    #[test]
    fn each_format_shows_its_own_structure() {
        let delimited = instructions(Format::Delimited);
        assert!(
            delimited.contains("====ANALYSIS====\n...\n\n====CONFIDENCE===="),
            "{delimited}"
        );
        assert!(
            delimited.contains("====RECOMMENDATIONS====\n- ...\n- ...\n"),
            "{delimited}"
        );
        let tagged = instructions(Format::Tagged);
        assert!(
            tagged.contains(
                "<RECOMMENDATIONS>...</RECOMMENDATIONS>\n<RECOMMENDATIONS>...</RECOMMENDATIONS>"
            ),
            "{tagged}"
        );
        let markdown = instructions(Format::Markdown);
        assert!(markdown.contains("## Analysis\n...\n"), "{markdown}");
        assert_eq!(
            instructions(Format::Json),
            crate::whole_response_instructions(
                &AnalysisResult::TYPE,
                &InstructionOptions::default()
            )
        );
    }

    #[test]
    fn the_example_in_every_format_parses_back() {
        let schema = AnalysisResult::TYPE.schema(Dialect::Draft2020_12);
        let example = AnalysisResult::TYPE.example().unwrap();
        for format in [
            Format::Xml,
            Format::Delimited,
            Format::Tagged,
            Format::Markdown,
        ] {
            assert_eq!(expressible(format, &schema), Ok(()));
            let text = instructions(format);
            let (_, after) = text.split_once("EXAMPLE OUTPUT:\n").unwrap();
            let (rendered, _) = after.split_once("\n\nVALIDATION REQUIREMENTS:").unwrap();
            assert_eq!(
                parse_as(format, rendered, &schema).unwrap(),
                example,
                "{format}"
            );
        }
    }

    #[test]
    fn concise_instructions_leave_out_fields_example_and_mistakes() {
        let text = whole_response_instructions_in(
            &AnalysisResult::TYPE,
            Format::Markdown,
            &InstructionOptions::concise(),
        );
        assert!(text.contains("## Recommendations\n- ...\n- ..."), "{text}");
        for absent in [
            "FIELDS:",
            "EXAMPLE OUTPUT:",
            "Required fields",
            "Write numbers",
        ] {
            assert!(!text.contains(absent), "{absent}: {text}");
        }
        assert!(text.contains("Return ONLY the markdown"), "{text}");
    }
}
