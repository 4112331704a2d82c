//! End-to-end tests: the seed's examples in every format, the ways models break them,
//! errors with format hints, detection, and hostile inputs.

use super::*;
use serde_json::json;

/// The output-schema app's multi-format analysis schema, with its `x-format` block (the render
/// tests use it too).
pub(crate) fn analysis_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "analysis": {"type": "string"},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "recommendations": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["analysis"],
        "x-format": {
            "xml": {
                "root-element": "analysis-result",
                "properties": {"recommendations": {
                    "element": "recommendations", "item-element": "recommendation"}}
            },
            "delimited": {
                "section-pattern": "===={NAME}====",
                "properties": {"recommendations": {"list-format": "bullet"}}
            },
            "tagged": {
                "tag-case": "uppercase",
                "properties": {"recommendations": {"multi-value": "separate-tags"}}
            }
        }
    })
}

fn analysis_value() -> Value {
    json!({"analysis": "Market shows strong growth", "confidence": 0.87,
           "recommendations": ["Buy", "Hold long-term"]})
}

const ANALYSIS_JSON: &str = r#"{
  "analysis": "Market shows strong growth",
  "confidence": 0.87,
  "recommendations": ["Buy", "Hold long-term"]
}"#;

const ANALYSIS_XML: &str = "<analysis-result>
  <analysis>Market shows strong growth</analysis>
  <confidence>0.87</confidence>
  <recommendations>
    <recommendation>Buy</recommendation>
    <recommendation>Hold long-term</recommendation>
  </recommendations>
</analysis-result>";

const ANALYSIS_DELIMITED: &str = "====ANALYSIS====
Market shows strong growth
====CONFIDENCE====
0.87
====RECOMMENDATIONS====
• Buy
• Hold long-term";

const ANALYSIS_TAGGED: &str = "<ANALYSIS>Market shows strong growth</ANALYSIS>
<CONFIDENCE>0.87</CONFIDENCE>
<RECOMMENDATIONS>Buy</RECOMMENDATIONS>
<RECOMMENDATIONS>Hold long-term</RECOMMENDATIONS>";

const ANALYSIS_MARKDOWN: &str = "## Analysis
Market shows strong growth

## Confidence
0.87

## Recommendations
- Buy
- Hold long-term
";

/// The output-schema app's task/confidence/steps schema.
fn task_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "Main task description", "minLength": 5},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "steps": {"type": "array", "items": {"type": "string"}, "minItems": 1}
        },
        "required": ["task", "confidence"],
        "x-format": {
            "xml": {"root-element": "response",
                    "properties": {"steps": {"element": "steps", "item-element": "step"}}},
            "delimited": {"section-pattern": "---{NAME}---",
                          "properties": {"steps": {"list-format": "numbered"}}}
        }
    })
}

fn task_value() -> Value {
    json!({"task": "Parse configuration files", "confidence": 0.85,
           "steps": ["Read file", "Parse JSON", "Validate schema"]})
}

const TASK_XML: &str = "<response>
  <task>Parse configuration files</task>
  <confidence>0.85</confidence>
  <steps>
    <step>Read file</step>
    <step>Parse JSON</step>
    <step>Validate schema</step>
  </steps>
</response>";

const TASK_DELIMITED: &str = "---TASK---
Parse configuration files
---END-TASK---

---CONFIDENCE---
0.85
---END-CONFIDENCE---

---STEPS---
1. Read file
2. Parse JSON  
3. Validate schema
---END-STEPS---";

const TASK_TAGGED: &str = "<TASK>Parse configuration files</TASK>
<CONFIDENCE>0.85</CONFIDENCE>
<STEPS>
<STEP>Read file</STEP>
<STEP>Parse JSON</STEP>
<STEP>Validate schema</STEP>
</STEPS>";

const TASK_MARKDOWN: &str = "## Task
Parse configuration files

## Confidence
0.85

## Steps
1. Read file
2. Parse JSON
3. Validate schema";

fn best(text: &str, schema: &Value) -> Format {
    detect(text, schema)[0].0
}

fn parsed(format: Format, text: &str, schema: &Value) -> Value {
    match parse_as(format, text, schema) {
        Ok(value) => value,
        Err(failure) => panic!("{format} failed: {failure}\n{text}"),
    }
}

#[test]
fn seed_analysis_example_reads_the_same_in_all_five_formats() {
    let schema = analysis_schema();
    for (format, text) in [
        (Format::Json, ANALYSIS_JSON),
        (Format::Xml, ANALYSIS_XML),
        (Format::Delimited, ANALYSIS_DELIMITED),
        (Format::Tagged, ANALYSIS_TAGGED),
        (Format::Markdown, ANALYSIS_MARKDOWN),
    ] {
        assert_eq!(parsed(format, text, &schema), analysis_value(), "{format}");
        assert_eq!(
            best(text, &schema),
            format,
            "{format}: {:?}",
            detect(text, &schema)
        );
        let Detected {
            format: detected,
            confidence,
            result,
        } = parse_detected(text, &schema);
        assert_eq!(detected, format);
        assert!(confidence >= 0.8, "{format}: {confidence}");
        assert_eq!(result.unwrap(), analysis_value());
    }
}

#[test]
fn seed_task_example_reads_the_same_in_every_format() {
    let schema = task_schema();
    for (format, text) in [
        (Format::Xml, TASK_XML),
        (Format::Delimited, TASK_DELIMITED),
        (Format::Tagged, TASK_TAGGED),
        (Format::Markdown, TASK_MARKDOWN),
    ] {
        assert_eq!(parsed(format, text, &schema), task_value(), "{format}");
        assert_eq!(
            best(text, &schema),
            format,
            "{format}: {:?}",
            detect(text, &schema)
        );
    }
}

#[test]
fn malformed_xml_is_read_the_way_a_person_reads_it() {
    let schema = task_schema();
    let cases = [
        // Prose around the root and a fence.
        "Sure! Here is the result:\n\n```xml\n<response>\n<task>Parse configuration files</task>\n<confidence>0.85</confidence>\n<steps><step>Read file</step><step>Parse JSON</step><step>Validate schema</step></steps>\n</response>\n```\nLet me know if you need more.",
        // A forgotten close tag on a leaf, and on the last item.
        "<response>\n<task>Parse configuration files\n<confidence>0.85</confidence>\n<steps>\n<step>Read file</step>\n<step>Parse JSON</step>\n<step>Validate schema\n</steps>\n</response>",
        // A leaf left open with nothing before the next field.
        "<response>\n<task>Parse configuration files<confidence>0.85</confidence><steps><step>Read file</step><step>Parse JSON</step><step>Validate schema</step></steps></task></response>",
        // Mismatched case, XML declaration, extra whitespace.
        "<?xml version=\"1.0\"?>\n<Response>\n   <Task>\n      Parse configuration files\n   </task>\n<CONFIDENCE> 0.85 </CONFIDENCE>\n<steps>\n\n<step>  Read file </step>\n<step>Parse JSON</step><step>Validate schema</step></steps></response>",
    ];
    for text in cases {
        assert_eq!(parsed(Format::Xml, text, &schema), task_value(), "{text}");
        assert_eq!(
            best(text, &schema),
            Format::Xml,
            "{text}: {:?}",
            detect(text, &schema)
        );
    }
}

#[test]
fn xml_entities_cdata_bare_ampersands_and_attributes() {
    let schema = task_schema();
    let text = "<response confidence=\"0.85\">\n<task>Compare R&D costs &amp; revenue: A &lt; B &#8594; C</task>\n<steps><step><![CDATA[Run `a < b && c`]]></step></steps>\n</response>";
    let value = parsed(Format::Xml, text, &schema);
    assert_eq!(
        value,
        json!({"task": "Compare R&D costs & revenue: A < B → C", "confidence": 0.85,
               "steps": ["Run `a < b && c`"]})
    );
}

#[test]
fn xml_items_without_their_container_and_a_single_value_for_an_array() {
    let schema = analysis_schema();
    let text = "<analysis-result><analysis>Growth</analysis><recommendation>Buy</recommendation><recommendation>Hold</recommendation></analysis-result>";
    assert_eq!(
        parsed(Format::Xml, text, &schema),
        json!({"analysis": "Growth", "recommendations": ["Buy", "Hold"]})
    );
    let text = "<analysis-result><analysis>Growth</analysis><recommendations>Buy</recommendations></analysis-result>";
    assert_eq!(
        parsed(Format::Xml, text, &schema),
        json!({"analysis": "Growth", "recommendations": ["Buy"]})
    );
}

#[test]
fn delimited_variants() {
    let schema = task_schema();
    let cases = [
        // Lowercase markers, no END markers, bullets instead of numbers.
        "---task---\nParse configuration files\n---confidence---\n0.85\n---steps---\n- Read file\n- Parse JSON\n- Validate schema\n",
        // Prose before, spaces inside markers, `1)` numbering, trailing whitespace.
        "Here you go.\n\n--- Task ---   \n   Parse configuration files   \n\n--- Confidence ---\n0.85\n--- Steps ---\n1) Read file\n2) Parse JSON\n3) Validate schema\n--- End Steps ---\nThanks!",
        // Inside a fence, plain lines for the list.
        "```\n---TASK---\nParse configuration files\n---CONFIDENCE---\n0.85\n---STEPS---\nRead file\nParse JSON\nValidate schema\n```",
    ];
    for text in cases {
        assert_eq!(
            parsed(Format::Delimited, text, &schema),
            task_value(),
            "{text}"
        );
        assert_eq!(
            best(text, &schema),
            Format::Delimited,
            "{text}: {:?}",
            detect(text, &schema)
        );
    }
}

#[test]
fn tagged_variants() {
    let schema = task_schema();
    let cases = [
        // Prose around lowercase tags, repeated tags for the array.
        "I looked at the files.\n<task>Parse configuration files</task>\nMy confidence: <confidence>0.85</confidence>\n<steps>Read file</steps><steps>Parse JSON</steps><steps>Validate schema</steps>\nDone.",
        // Title case, a list inside one tag.
        "<Task>Parse configuration files</Task>\n<Confidence>0.85</Confidence>\n<Steps>\n1. Read file\n2. Parse JSON\n3. Validate schema\n</Steps>",
    ];
    for text in cases {
        assert_eq!(
            parsed(Format::Tagged, text, &schema),
            task_value(),
            "{text}"
        );
        assert_eq!(
            best(text, &schema),
            Format::Tagged,
            "{text}: {:?}",
            detect(text, &schema)
        );
    }
}

#[test]
fn tagged_comma_separated_arrays_when_the_schema_says_so() {
    let mut schema = task_schema();
    schema["x-format"]["tagged"] =
        json!({"properties": {"steps": {"multi-value": "comma-separated"}}});
    let text = "<TASK>Parse configuration files</TASK><CONFIDENCE>0.85</CONFIDENCE><STEPS>Read file, Parse JSON, Validate schema</STEPS>";
    assert_eq!(parsed(Format::Tagged, text, &schema), task_value());
    // Without the option, commas are part of the one item.
    let plain = task_schema();
    let value = parsed(Format::Tagged, text, &plain);
    assert_eq!(
        value["steps"],
        json!(["Read file, Parse JSON, Validate schema"])
    );
}

#[test]
fn markdown_variants() {
    let schema = task_schema();
    let cases = [
        // A title above the field headers, other levels, `*` bullets, a trailing colon.
        "# Configuration plan\n\nSome intro text.\n\n### Task:\nParse configuration files\n\n### Confidence\n0.85\n\n### Steps\n* Read file\n* Parse JSON\n* Validate schema\n",
        // A field header used as the title, the other fields one level below it.
        "# Task\nParse configuration files\n\n## Confidence\n0.85\n\n## Steps\n- Read file\n- Parse JSON\n- Validate schema\n",
        // Bold field lines instead of headers.
        "Here is my answer.\n\n**Task:** Parse configuration files\n**Confidence:** 0.85\n**Steps:**\n1. Read file\n2. Parse JSON\n3. Validate schema\n",
        // The whole answer fenced as markdown, names in other cases.
        "```markdown\n## TASK\nParse configuration files\n## confidence\n0.85\n## steps\n- Read file\n- Parse JSON\n- Validate schema\n```",
        // The task in a code block, a `#` line inside it.
        "## Task\n```text\nParse configuration files\n```\n## Confidence\n0.85\n## Steps\n```\n# not a header\n```\n- Read file\n- Parse JSON\n- Validate schema",
    ];
    for text in cases {
        assert_eq!(
            parsed(Format::Markdown, text, &schema),
            task_value(),
            "{text}"
        );
        assert_eq!(
            best(text, &schema),
            Format::Markdown,
            "{text}: {:?}",
            detect(text, &schema)
        );
    }
}

#[test]
fn missing_fields_are_reported_with_hints_in_the_format_used() {
    let schema = task_schema();
    let cases = [
        (
            Format::Xml,
            "<response><steps><step>a</step></steps></response>",
            "In XML: <task>...</task>",
        ),
        (
            Format::Delimited,
            "---STEPS---\n1. a\n---END-STEPS---",
            "In delimited sections: ---TASK--- ... ---END-TASK---",
        ),
        (
            Format::Tagged,
            "<STEPS>a</STEPS>",
            "In tagged content: <TASK>...</TASK>",
        ),
        (Format::Markdown, "## Steps\n- a", "In markdown: ## Task"),
    ];
    for (format, text, hint) in cases {
        let failure = parse_as(format, text, &schema).unwrap_err();
        let paths: Vec<&str> = failure.errors.iter().map(|e| e.path()).collect();
        assert_eq!(paths, ["/task", "/confidence"], "{format}");
        assert!(
            failure
                .errors
                .iter()
                .all(|e| e.kind() == ErrorKind::Missing)
        );
        let suggestion = failure.errors[0].suggestion().unwrap();
        assert!(suggestion.contains(hint), "{format}: {suggestion}");
        assert_eq!(failure.partial, json!({"steps": ["a"]}));
    }
}

#[test]
fn conversion_errors_carry_paths_expectations_and_locations() {
    let schema = json!({
        "type": "object",
        "properties": {
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "done": {"type": "boolean"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}
        },
        "required": ["confidence", "done"],
        "$defs": {"Item": {"type": "object",
            "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
            "required": ["name"]}}
    });
    let text = "<response>\n<confidence>85%</confidence>\n<done>maybe</done>\n<items>\n<item><name>a</name><count>1,234</count></item>\n<item><name>b</name><count>2</count></item>\n</items>\n</response>";
    let failure = parse_as(Format::Xml, text, &schema).unwrap_err();
    let summary: Vec<(ErrorKind, &str)> = failure
        .errors
        .iter()
        .map(|e| (e.kind(), e.path()))
        .collect();
    assert_eq!(
        summary,
        [
            (ErrorKind::Validation, "/confidence"),
            (ErrorKind::Validation, "/done"),
            (ErrorKind::Validation, "/items/0/count"),
        ]
    );
    let first = &failure.errors[0];
    assert_eq!(first.received(), Some(json!("85%")).as_ref());
    assert_eq!(first.expected(), Some("number between 0 and 1"));
    assert_eq!(first.location(), Some(Location { line: 2, column: 1 }));
    assert!(first.suggestion().unwrap().contains("percent"));
    // What converted is kept: the item without its bad count.
    assert_eq!(
        failure.partial,
        json!({"items": [{"name": "a"}, {"name": "b", "count": 2}]})
    );
}

#[test]
fn nested_objects_in_every_format() {
    let schema = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "meta": {"anyOf": [{"$ref": "#/$defs/Meta"}, {"type": "null"}]}
        },
        "required": ["title"],
        "$defs": {"Meta": {"type": "object",
            "properties": {"author": {"type": "string"}, "pages": {"type": "integer"},
                           "draft": {"type": "boolean"}},
            "required": ["author"]}}
    });
    let want = json!({"title": "Notes", "meta": {"author": "Ada", "pages": 12, "draft": false}});
    let cases = [
        (
            Format::Xml,
            "<doc><title>Notes</title><meta pages=\"12\"><author>Ada</author><draft>no</draft></meta></doc>",
        ),
        (
            Format::Tagged,
            "<TITLE>Notes</TITLE>\n<META><AUTHOR>Ada</AUTHOR><PAGES>12</PAGES><DRAFT>False</DRAFT></META>",
        ),
        (
            Format::Delimited,
            "---TITLE---\nNotes\n---META---\n---AUTHOR---\nAda\n---PAGES---\n12\n---DRAFT---\nno\n---END-META---",
        ),
        (
            Format::Markdown,
            "# Title\nNotes\n# Meta\n## Author\nAda\n## Pages\n12\n## Draft\nfalse",
        ),
    ];
    for (format, text) in cases {
        assert_eq!(parsed(format, text, &schema), want, "{format}");
        assert_eq!(
            best(text, &schema),
            format,
            "{format}: {:?}",
            detect(text, &schema)
        );
    }
    // An empty optional object is null.
    let value = parsed(
        Format::Xml,
        "<doc><title>Notes</title><meta></meta></doc>",
        &schema,
    );
    assert_eq!(value, json!({"title": "Notes", "meta": null}));
}

#[test]
fn x_format_from_a_derived_schema() {
    #[derive(schemars::JsonSchema)]
    #[schemars(extend("x-format" = {
        "xml": {"root-element": "plan"},
        "delimited": {"section-pattern": "[{NAME}]", "end-pattern": "[/{NAME}]"}
    }))]
    #[allow(dead_code)]
    struct Plan {
        /// What to do.
        #[schemars(extend("x-format" = {"xml": {"element": "goal"},
                                        "markdown": {"header": "## Objective"}}))]
        task: String,
        /// The steps in order.
        #[schemars(extend("x-format" = {
            "xml": {"item-element": "do"},
            "tagged": {"multi-value": "comma-separated"}
        }))]
        steps: Vec<String>,
        /// How sure, if at all.
        confidence: Option<f64>,
    }
    let schema = schemars::schema_for!(Plan).to_value();
    let want = json!({"task": "Ship it", "steps": ["build", "test"]});
    let cases = [
        (
            Format::Xml,
            "<plan><goal>Ship it</goal><do>build</do><do>test</do></plan>",
        ),
        (
            Format::Delimited,
            "[TASK]\nShip it\n[/TASK]\n[STEPS]\n- build\n- test\n[/STEPS]",
        ),
        (
            Format::Tagged,
            "<TASK>Ship it</TASK> <STEPS>build, test</STEPS>",
        ),
        (
            Format::Markdown,
            "## Objective\nShip it\n\n## Steps\n1. build\n2. test",
        ),
    ];
    for (format, text) in cases {
        assert_eq!(parsed(format, text, &schema), want, "{format}");
        assert_eq!(
            best(text, &schema),
            format,
            "{format}: {:?}",
            detect(text, &schema)
        );
    }
    // Option<f64> written as null, and a hint that uses the custom names.
    let value = parsed(
        Format::Xml,
        "<plan><goal>Go</goal><do>now</do><confidence>null</confidence></plan>",
        &schema,
    );
    assert_eq!(
        value,
        json!({"task": "Go", "steps": ["now"], "confidence": null})
    );
    assert_eq!(
        format_hint(Format::Xml, "task", &schema),
        "In XML: <goal>...</goal>"
    );
    assert_eq!(
        format_hint(Format::Delimited, "task", &schema),
        "In delimited sections: [TASK] ... [/TASK]"
    );
    assert!(
        format_hint(Format::Markdown, "task", &schema).starts_with("In markdown: ## Objective")
    );
}

#[test]
fn format_names_round_trip() {
    for format in Format::ALL {
        assert_eq!(format.to_string().parse::<Format>(), Ok(format));
    }
    assert_eq!("XML".parse::<Format>(), Ok(Format::Xml));
    assert!("auto".parse::<Format>().is_err());
}

#[test]
fn json_is_read_by_the_lenient_json_reader() {
    let schema = task_schema();
    let text = "Here:\n```json\n{\"task\": \"Parse configuration files\", \"confidence\": 0.85, \"steps\": [\"Read file\", \"Parse JSON\", \"Validate schema\"]}\nHope this helps.\n```";
    assert_eq!(parsed(Format::Json, text, &schema), task_value());
    assert_eq!(best(text, &schema), Format::Json);
    let failure = parse_as(Format::Json, "no json here", &schema).unwrap_err();
    assert_eq!(failure.errors[0].kind(), ErrorKind::Parsing);
}

#[test]
fn text_with_no_structure_is_a_parsing_error_in_every_format() {
    let schema = task_schema();
    for format in [
        Format::Xml,
        Format::Delimited,
        Format::Tagged,
        Format::Markdown,
    ] {
        let failure = parse_as(format, "I could not do this task.", &schema).unwrap_err();
        assert_eq!(failure.errors[0].kind(), ErrorKind::Parsing, "{format}");
        assert_eq!(failure.errors.len(), 3, "{format}");
    }
}

#[test]
fn hostile_inputs_end() {
    let schema = task_schema();
    let angles = "<".repeat(1 << 20);
    let unclosed = "<task><step>".repeat(50_000);
    let sections: String = (0..10_000).map(|i| format!("---S{i}---\nx\n")).collect();
    let ends: String = "---END-TASK---\n".repeat(20_000);
    let headers = "## Task\n".repeat(20_000);
    let bold = "**Task:** ".repeat(20_000);
    let tags = "<a b=\"".repeat(20_000);
    let comments = "<!--".repeat(20_000);
    for text in [
        &angles, &unclosed, &sections, &ends, &headers, &bold, &tags, &comments,
    ] {
        for format in Format::ALL {
            let _ = parse_as(format, text, &schema);
        }
        assert_eq!(detect(text, &schema).len(), 5);
    }
    let failure = parse_as(Format::Xml, &angles, &schema).unwrap_err();
    assert_eq!(failure.errors[0].kind(), ErrorKind::Parsing);
    let value = parse_as(Format::Markdown, &headers, &schema)
        .unwrap_err()
        .partial;
    assert_eq!(value["task"], json!(""));
}
