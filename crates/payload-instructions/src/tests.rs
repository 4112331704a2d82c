//! Tests of the generated instructions, on the payload types in `fixtures` and on
//! hand-written schemas for the keywords schemars rarely writes.

use super::fixtures::*;
use super::*;
use payload_core::suggestions::ActionSpec;
use payload_core::suggestions::Combination;
use payload_core::{LlmPayload, PayloadKind, PayloadType};
use payload_core::{ParseOptions, parse};
use payload_schema::dialect::Dialect;
use serde_json::{Value, json};

fn schema_of(payload: PayloadType) -> Value {
    payload.schema(Dialect::Draft2020_12)
}

fn shape(schema: &Value) -> String {
    render_shape(schema, &InstructionOptions::default())
}

fn fixture_types() -> [PayloadType; 4] {
    [
        SchemaProposal::TYPE,
        Analysis::TYPE,
        Outline::TYPE,
        Command::TYPE,
    ]
}

/// Keywords the fixtures do not produce, in one schema.
fn keyword_zoo() -> Value {
    json!({
        "type": "object",
        "properties": {
            "score": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.5},
            "labels": {"type": "array", "items": {"type": "string", "maxLength": 12}, "uniqueItems": true, "minItems": 2, "maxItems": 2},
            "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number", "minimum": -90}]},
            "meta": {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1},
            "when": {"type": "string", "format": "date-time"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3},
            "strict": {
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 1}},
                "required": ["id"],
                "additionalProperties": false
            },
            "either": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "maximum": 9}]},
            "level": {"enum": [1, 2, 3]}
        },
        "required": ["score", "labels", "level"]
    })
}

#[test]
fn analysis_shape_reads_like_annotated_json() {
    let expected = r#"{
  "summary": string,  // Brief summary of the analysis
  "confidence": number,  // from 0 to 1. Confidence level in the analysis
  "tags"?: [string],  // at most 5 items. Relevant category tags
  "contact"?: string,  // format email. Contact for follow-up
  "priority": integer
}"#;
    assert_eq!(shape(&schema_of(Analysis::TYPE)), expected);
}

#[test]
fn recursive_type_is_expanded_once_then_named() {
    let expected = r#"{
  "title": string,
  "root": { "heading": string, "children"?: [Section] }  // Section: A section with its subsections.
}"#;
    assert_eq!(shape(&schema_of(Outline::TYPE)), expected);
}

#[test]
fn tagged_enum_is_one_variant_per_line_with_its_tag() {
    let expected = r#"| {  // Search the catalogue.
    "intent": "search",
    "query": string,  // non-empty
    "limit"?: integer  // from 1 to 100
  }
| {  // Select result rows by position.
    "intent": "select",
    "positions": [integer]  // non-empty, each item: at least 1
  }
| { "intent": "export", "format": "csv" | "json" }  // Export the results."#;
    assert_eq!(shape(&schema_of(Command::TYPE)), expected);
}

#[test]
fn schema_proposal_shape_has_enums_options_and_variants() {
    let text = shape(&schema_of(SchemaProposal::TYPE));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "{");
    assert!(lines[1].starts_with(r#"  "mode": "create" | "update","#));
    assert!(lines[2].starts_with(r#"  "reasoning"?: string,"#));
    assert!(lines[2].ends_with("// Brief explanation"));
    assert!(lines[4].starts_with(r#"  "operations": ["#));
    assert!(lines[4].ends_with("// non-empty. One change to the table's columns."));
    assert!(text.contains(r#"    | { "action": "remove", "column_id": string }"#));
    assert!(text.contains(
        r#""filterDisplay"?: "tab" | "dropdown"  // "tab": Inline filter buttons. "dropdown": A dropdown chip."#
    ));
    assert!(text.contains(r#""column_id": string,  // matching ^col_[a-z0-9]+$"#));
    assert!(text.ends_with(
        "\"sample_rows\"?: [object]  // at most 5 items. Required for create mode. 2-3 realistic example rows.\n}"
    ));
}

#[test]
fn keyword_zoo_shape() {
    let expected = r#"{
  "score": number,  // greater than 0, less than 10, a multiple of 0.5
  "labels": [string],  // exactly 2 items, no duplicates, each item: at most 12 characters
  "point"?: [
    number,
    number  // at least -90
  ],
  "meta"?: { "<key>": integer, ... },  // non-empty
  "when"?: string,  // format date-time (RFC 3339, e.g. 2024-03-15T09:30:00Z)
  "code"?: string,  // exactly 3 characters, matching ^[A-Z]{3}$
  "strict"?: {
    "id": integer  // at least 1
  },
  "either"?:
    | string  // non-empty
    | integer,  // at most 9
  "level": 1 | 2 | 3
}"#;
    assert_eq!(shape(&keyword_zoo()), expected);
}

#[test]
fn small_objects_and_maps_stay_on_one_line() {
    let schema = json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"label": {"type": "string"}, "value": {"type": "string"}},
            "required": ["label", "value"]
        }
    });
    assert_eq!(shape(&schema), r#"[{ "label": string, "value": string }]"#);
    let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    assert_eq!(shape(&map), r#"{ "<key>": string, ... }"#);
    assert_eq!(shape(&json!({"type": "object"})), "object");
    assert_eq!(shape(&json!({})), "any");
}

// ---- completeness: every enum value, required member and bound is in the text ----

/// What the text must state, collected by walking the schema independently of the
/// renderer.
#[derive(Default)]
struct Expected {
    literals: Vec<String>,
    required: Vec<String>,
    optional: Vec<String>,
    /// `(number, unit word)`: a comment must hold the number as a word, and the unit.
    numbers: Vec<(String, &'static str)>,
    phrases: Vec<String>,
}

fn collect(root: &Value) -> Expected {
    let mut expected = Expected::default();
    let mut seen_refs: Vec<String> = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let Some(map) = node.as_object() else {
            continue;
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if !seen_refs.iter().any(|seen| seen == reference) {
                seen_refs.push(reference.to_string());
                stack.push(root.pointer(&reference[1..]).expect("local ref"));
            }
        }
        for value in map
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            expected.literals.push(value.to_string());
        }
        if let Some(value) = map.get("const") {
            expected.literals.push(value.to_string());
        }
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            for (name, member) in properties {
                if required.contains(&name.as_str()) {
                    expected.required.push(format!("\"{name}\":"));
                } else {
                    expected.optional.push(format!("\"{name}\"?:"));
                }
                stack.push(member);
            }
        }
        for (keyword, unit) in [
            ("minimum", ""),
            ("maximum", ""),
            ("exclusiveMinimum", "than"),
            ("exclusiveMaximum", "than"),
            ("multipleOf", "multiple"),
            ("minLength", "character"),
            ("maxLength", "character"),
            ("minItems", "item"),
            ("maxItems", "item"),
            ("minProperties", "field"),
            ("maxProperties", "field"),
        ] {
            if let Some(number) = map.get(keyword) {
                let max = keyword.replace("min", "max");
                let non_empty = keyword.starts_with("min")
                    && !unit.is_empty()
                    && number.as_u64() == Some(1)
                    && !map.contains_key(&max);
                if non_empty {
                    expected.phrases.push("non-empty".into());
                } else if !is_integer_width(map, keyword, number) {
                    expected.numbers.push((number.to_string(), unit));
                }
            }
        }
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
            expected.phrases.push(pattern.to_string());
        }
        if let Some(format) = map.get("format").and_then(Value::as_str) {
            if !["double", "float"].contains(&format) && !format.contains("int") {
                expected.phrases.push(format!("format {format}"));
            }
        }
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            expected.phrases.push("no duplicates".into());
        }
        for keyword in ["items", "additionalProperties"] {
            if let Some(child) = map.get(keyword) {
                stack.push(child);
            }
        }
        for keyword in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            stack.extend(
                map.get(keyword)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            );
        }
    }
    expected
}

/// Whether `keyword: number` only restates the width of the Rust integer type the
/// node's `format` names (0 for unsigned types, 255 for `u8`): such bounds are noise
/// to a model and are left out on purpose.
fn is_integer_width(map: &serde_json::Map<String, Value>, keyword: &str, number: &Value) -> bool {
    let format = map.get("format").and_then(Value::as_str).unwrap_or("");
    let n = number.as_f64();
    match keyword {
        "minimum" if format.starts_with("uint") => n == Some(0.0),
        "minimum" => match format {
            "int8" => n == Some(-128.0),
            "int16" => n == Some(-32768.0),
            "int32" => n == Some(-2147483648.0),
            _ => false,
        },
        "maximum" => match format {
            "uint8" => n == Some(255.0),
            "uint16" => n == Some(65535.0),
            "uint32" => n == Some(4294967295.0),
            "int8" => n == Some(127.0),
            "int16" => n == Some(32767.0),
            "int32" => n == Some(2147483647.0),
            _ => false,
        },
        _ => false,
    }
}

/// For a root union, each tagged variant's required members (and those of its required
/// objects, one level down) beyond what every variant requires: the text must have a
/// line naming the tag's value with each of them.
fn assert_variants_stated(schema: &Value, text: &str) {
    let resolve = |node: &'_ Value| -> Value {
        match node.get("$ref").and_then(Value::as_str) {
            Some(reference) => schema.pointer(&reference[1..]).cloned().unwrap_or_default(),
            None => node.clone(),
        }
    };
    let Some(branches) = schema.get("oneOf").and_then(Value::as_array) else {
        return;
    };
    let required_of = |node: &Value| -> Vec<String> {
        node.get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|n| n.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let branches: Vec<Value> = branches.iter().map(resolve).collect();
    for branch in &branches {
        let Some((tag, value)) = branch["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .find_map(|(name, member)| member.get("const").map(|v| (name.clone(), v.clone())))
        else {
            continue;
        };
        let mut names = Vec::new();
        for member in required_of(branch) {
            let inner = resolve(&branch["properties"][&member]);
            names.extend(required_of(&inner));
            if member != tag && !branches.iter().all(|b| required_of(b).contains(&member)) {
                names.push(member);
            }
        }
        let inner_common: Vec<String> = names
            .iter()
            .filter(|name| {
                branches.iter().all(|b| {
                    required_of(b)
                        .iter()
                        .any(|m| required_of(&resolve(&b["properties"][m])).contains(name))
                })
            })
            .cloned()
            .collect();
        names.retain(|name| !inner_common.contains(name));
        if names.is_empty() {
            continue;
        }
        let literal = value.to_string();
        let line = text
            .lines()
            .find(|line| line.contains("also required") && line.contains(&literal))
            .unwrap_or_else(|| panic!("no requirement line for {tag} {literal} in\n{text}"));
        for name in names {
            assert!(line.contains(&name), "{name} missing from {line}");
        }
    }
}

/// The `//` comments of the text, split into words.
fn comment_words(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter_map(|line| line.split_once("// ").map(|(_, comment)| comment))
        .map(|comment| {
            comment
                .split_whitespace()
                .map(|w| w.trim_end_matches([',', '.', ';', ':']).to_string())
                .collect()
        })
        .collect()
}

fn assert_complete(schema: &Value, text: &str) {
    let expected = collect(schema);
    for literal in &expected.literals {
        assert!(
            text.contains(literal.as_str()),
            "{literal} missing from\n{text}"
        );
    }
    for member in &expected.required {
        assert!(
            text.contains(member.as_str()),
            "required {member} missing from\n{text}"
        );
    }
    for member in &expected.optional {
        assert!(
            text.contains(member.as_str()),
            "optional {member} missing from\n{text}"
        );
    }
    let comments = comment_words(text);
    for (number, unit) in &expected.numbers {
        let stated = comments.iter().any(|words| {
            words.iter().any(|w| w == number) && words.iter().any(|w| w.starts_with(unit))
        });
        assert!(stated, "bound {number} ({unit}) missing from\n{text}");
    }
    for phrase in &expected.phrases {
        assert!(
            text.contains(phrase.as_str()),
            "{phrase} missing from\n{text}"
        );
    }
}

#[test]
fn every_enum_value_required_member_and_bound_is_stated() {
    for payload in fixture_types() {
        let schema = schema_of(payload);
        assert_complete(&schema, &shape(&schema));
        // The rest of the instructions are built around the same shape.
        let text = payload_instructions(&payload, &InstructionOptions::default());
        assert_complete(&schema, &text);
        assert_variants_stated(&schema, &text);
    }
    assert_complete(&keyword_zoo(), &shape(&keyword_zoo()));
}

#[test]
fn the_completeness_check_catches_a_missing_bound() {
    let schema = schema_of(Analysis::TYPE);
    let text = shape(&schema).replace("at most 5 items", "a few items");
    let caught = std::panic::catch_unwind(|| assert_complete(&schema, &text));
    assert!(caught.is_err());
}

// ---- options ----

#[test]
fn options_leave_out_bounds_and_descriptions_but_never_values() {
    let schema = schema_of(SchemaProposal::TYPE);
    let bare = InstructionOptions {
        include_constraints: false,
        include_descriptions: false,
        ..InstructionOptions::default()
    };
    let text = render_shape(&schema, &bare);
    assert!(!text.contains("//"), "{text}");
    assert!(text.contains(r#""type": "text" | "number" | "date" | "boolean" | "select""#));
    assert!(text.contains(r#""reasoning"?: string,"#));
    let no_bounds = InstructionOptions {
        include_constraints: false,
        ..InstructionOptions::default()
    };
    let text = render_shape(&schema, &no_bounds);
    assert!(text.contains("// Brief explanation"));
    assert!(!text.contains("non-empty") && !text.contains("at most 5 items"));
}

// ---- guards ----

#[test]
fn deep_schemas_are_cut_not_overflowed() {
    let mut schema = json!({"type": "string"});
    for _ in 0..500 {
        // Built by hand: `json!` would re-serialize the nested value at every level.
        let mut properties = serde_json::Map::new();
        properties.insert("next".into(), schema);
        let mut object = serde_json::Map::new();
        object.insert("type".into(), "object".into());
        object.insert("properties".into(), Value::Object(properties));
        object.insert("required".into(), json!(["next"]));
        schema = Value::Object(object);
    }
    let text = shape(&schema);
    assert!(text.contains("nested too deep to show"));
    assert!(text.lines().count() < 2 * payload_schema::limits::MAX_EXPANSION_DEPTH + 4);
}

#[test]
fn shared_definitions_cannot_blow_up_the_text() {
    // Each level references the next twice: 2^40 nodes if expanded naively.
    let mut defs = serde_json::Map::new();
    for level in 0..40 {
        let next = format!("#/$defs/L{}", level + 1);
        defs.insert(
            format!("L{level}"),
            json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}),
        );
    }
    defs.insert("L40".into(), json!({"type": "string"}));
    let schema = json!({"$ref": "#/$defs/L0", "$defs": defs});
    let text = shape(&schema);
    assert!(text.lines().count() <= 2 * payload_schema::limits::MAX_EXPANSION_NODES + 2);
}

#[test]
fn mutual_recursion_is_named() {
    let schema = json!({
        "$ref": "#/$defs/A",
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}}
        }
    });
    assert_eq!(shape(&schema), r#"{ "b"?: { "a"?: A } }  // A"#);
}

// ---- marker-mode and whole-response text ----

/// The text after `heading` up to the end of the instructions.
fn section_after<'t>(text: &'t str, heading: &str) -> &'t str {
    let start = text.find(heading).expect("section present") + heading.len();
    &text[start..]
}

#[test]
fn payload_instructions_teach_the_marker_shape_rules_and_example() {
    let text = payload_instructions(&SchemaProposal::TYPE, &InstructionOptions::default());
    assert!(text.starts_with(
        "SCHEMA_PROPOSAL\nWhen to use: Proposes creating a new table or changing an existing table's schema.\n"
    ));
    assert!(text.contains("\nSCHEMA_PROPOSAL: { ... }\n"));
    assert!(text.contains(&shape(&schema_of(SchemaProposal::TYPE))));
    assert!(text.contains(
        "\nRules:\n- In create mode use only add operations; table_name and sample_rows are required.\n- In update mode refer to existing columns by column_id from the context.\n"
    ));
    assert!(text.contains(
        "- Required fields: mode, operations (reasoning, table_name, sample_rows are optional).\n"
    ));
    assert!(text.contains("Write the marker exactly as SCHEMA_PROPOSAL:"));
    assert!(text.contains("no comments, no trailing commas"));
    assert!(text.contains("\nExample:\nSCHEMA_PROPOSAL: {\n  \"mode\": \"create\","));
}

#[test]
fn the_example_in_the_instructions_is_what_the_parser_accepts() {
    for payload in fixture_types() {
        let text = payload_instructions(&payload, &InstructionOptions::default());
        if payload.example().is_none() {
            assert!(!text.contains("\nExample:\n"));
            continue;
        }
        let example = section_after(&text, "\nExample:\n");
        let reply = format!("Here is my proposal.\n\n{example}");
        let parsed = parse(&reply, &ParseOptions::new().payload(payload));
        assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
        let accepted = parsed.custom_payload.expect("example accepted");
        assert_eq!(accepted.kind, payload.name);
        assert_eq!(Some(accepted.into_data()), payload.example());
        assert_eq!(parsed.message, "Here is my proposal.");
    }
}

#[test]
fn concise_keeps_marker_shape_and_rules_only() {
    let options = InstructionOptions::concise();
    let text = payload_instructions(&SchemaProposal::TYPE, &options);
    assert!(text.contains("SCHEMA_PROPOSAL: { ... }"));
    assert!(text.contains(r#""mode": "create" | "update""#));
    assert!(text.contains("\nRules:\n"));
    for absent in ["Example:", "Requirements:", "Avoid these mistakes:"] {
        assert!(!text.contains(absent), "{absent} in concise text");
    }
    let quiet = InstructionOptions {
        error_prevention: false,
        include_example: false,
        ..InstructionOptions::default()
    };
    let text = payload_instructions(&SchemaProposal::TYPE, &quiet);
    assert!(text.contains("Requirements:"));
    assert!(!text.contains("Avoid these mistakes:"));
    assert!(!text.contains("Example:"));
}

#[test]
fn whole_response_instructions_follow_the_seed_layout() {
    let text = whole_response_instructions(&Analysis::TYPE, &InstructionOptions::default());
    let expected_start = "RESPONSE FORMAT REQUIRED:\n\nStructured results of analysing user feedback.\n\nReturn your response as valid JSON matching this exact structure";
    assert!(text.starts_with(expected_start), "{text}");
    assert!(text.contains(&shape(&schema_of(Analysis::TYPE))));
    let example_text = section_after(&text, "\nEXAMPLE OUTPUT:\n");
    let example_text = &example_text[..example_text.find("\n\nVALIDATION").unwrap()];
    let example: Value = serde_json::from_str(example_text).expect("example is JSON");
    assert_eq!(Some(&example), Analysis::TYPE.example().as_ref());
    assert!(Analysis::TYPE.validate(&example).is_ok());
    let requirements = section_after(&text, "\nVALIDATION REQUIREMENTS:\n");
    let lines: Vec<&str> = requirements.lines().collect();
    assert_eq!(
        &lines[..3],
        &[
            "- Return ONLY valid JSON, no additional text or markdown.",
            "- Required fields: summary, confidence, priority (tags, contact are optional).",
            "- confidence: from 0 to 1.",
        ]
    );
    assert!(requirements.contains("- Start your response with { and end it with }"));
}

#[test]
fn whole_response_for_a_tagged_enum_requires_only_what_every_variant_does() {
    let text = whole_response_instructions(&Command::TYPE, &InstructionOptions::default());
    // The tag is required whatever the variant; the rest depends on it.
    assert!(text.contains("- Required fields: intent.\n"), "{text}");
    assert!(text.contains("| { \"intent\": \"export\", \"format\": \"csv\" | \"json\" }"));
    let concise = whole_response_instructions(&Command::TYPE, &InstructionOptions::concise());
    assert!(concise.contains("- Return ONLY valid JSON, no additional text or markdown."));
    assert!(!concise.contains("Start your response"));
}

// ---- suggestion format rules ----

#[test]
fn format_rules_list_only_the_registered_actions() {
    let actions = [
        ActionSpec::client("close_chat", "Close the chat panel"),
        ActionSpec::server("export_csv", "Export the table as CSV"),
    ];
    let text = suggestion_format_rules(
        &actions,
        &[PayloadKind::Proposal],
        Combination::PAYLOAD_ALONE,
    );
    assert!(text.contains("- Give 2-4 items."));
    assert!(text.contains("  - close_chat (handler \"client\"): Close the chat panel\n"));
    assert!(text.contains("  - export_csv (handler \"server\"): Export the table as CSV\n"));
    assert!(text.contains("Use only these actions; never invent one"));
}

#[test]
fn format_rules_forbid_actions_when_there_are_none() {
    let text = suggestion_format_rules(&[], &[], Combination::FREE);
    assert!(text.contains(
        "SUGGESTED_ACTIONS: no actions are available here, so never write SUGGESTED_ACTIONS.\n"
    ));
    assert!(!text.contains("\"handler\""));
    assert!(
        text.ends_with("Combining blocks: a response holds at most one SUGGESTED_VALUES block.")
    );
}

#[test]
fn format_rules_say_exactly_which_blocks_go_together() {
    let actions = [ActionSpec::client("close_chat", "Close the chat panel")];
    let with_proposals = suggestion_format_rules(
        &actions,
        &[PayloadKind::Proposal],
        Combination::PAYLOAD_ALONE,
    );
    assert!(with_proposals.ends_with(
        "Combining blocks: a response holds at most one SUGGESTED_VALUES block and at most one \
         SUGGESTED_ACTIONS block; the two may go together. A response with a payload from \
         STRUCTURED RESPONSES (a proposal) holds neither SUGGESTED_VALUES nor \
         SUGGESTED_ACTIONS: the user must apply or dismiss the proposal first."
    ));
    // The ambiguous wording is gone: chips and buttons are marked payloads too.
    assert!(!with_proposals.contains("any other marked payload"));
    let without = suggestion_format_rules(&actions, &[], Combination::PAYLOAD_ALONE);
    assert!(!without.contains("proposal") && !without.contains("STRUCTURED RESPONSES"));
    // No domain of one app in the generic text.
    for text in [&with_proposals, &without] {
        assert!(
            !text.contains("schema") && !text.contains("adding data"),
            "{text}"
        );
    }
}

/// The page's combination rule, worded for each rule and each mix of payload kinds:
/// table.that's reason only where every payload is a proposal.
#[test]
fn format_rules_state_the_pages_combination_rule() {
    let actions = [ActionSpec::client("save_recipe", "Save the recipe")];
    let end = |kinds: &[PayloadKind], combination| {
        let text = suggestion_format_rules(&actions, kinds, combination);
        let at = text.find("Combining blocks:").expect("the rule is stated");
        text[at..].to_string()
    };
    let head = "Combining blocks: a response holds at most one SUGGESTED_VALUES block and at \
                most one SUGGESTED_ACTIONS block; the two may go together. A response with a \
                payload from STRUCTURED RESPONSES";
    assert_eq!(
        end(&[PayloadKind::Proposal], Combination::FREE),
        format!("{head} may hold them too.")
    );
    assert_eq!(
        end(
            &[PayloadKind::Proposal],
            Combination::PAYLOAD_ALONE.allow_actions()
        ),
        format!("{head} may also hold SUGGESTED_ACTIONS but no SUGGESTED_VALUES.")
    );
    assert_eq!(
        end(
            &[PayloadKind::Command, PayloadKind::Proposal],
            Combination::PAYLOAD_ALONE
        ),
        format!("{head} holds neither SUGGESTED_VALUES nor SUGGESTED_ACTIONS.")
    );
    assert_eq!(
        end(
            &[PayloadKind::Display],
            Combination::PAYLOAD_ALONE.allow_values()
        ),
        format!("{head} may also hold SUGGESTED_VALUES but no SUGGESTED_ACTIONS.")
    );
    // With no actions on the page, only the chips are ruled on.
    let text = suggestion_format_rules(&[], &[PayloadKind::Command], Combination::PAYLOAD_ALONE);
    assert!(
        text.ends_with("STRUCTURED RESPONSES holds no SUGGESTED_VALUES."),
        "{text}"
    );
}

#[test]
fn the_format_examples_parse_as_suggestions() {
    let actions = [ActionSpec::client("close_chat", "Close the chat panel")];
    let text = suggestion_format_rules(
        &actions,
        &[PayloadKind::Proposal],
        Combination::PAYLOAD_ALONE,
    );
    // The two example blocks, as a model copying them would write them.
    let values = &text[text.find("SUGGESTED_VALUES: [").unwrap()..];
    let values = &values[..values.find("\n]").unwrap() + 2];
    let buttons = &text[text.find("SUGGESTED_ACTIONS: [").unwrap()..];
    let buttons = &buttons[..buttons.find("\n]").unwrap() + 2];
    let reply = format!("Done.\n\n{values}\n{buttons}");
    let options = ParseOptions::new().action(actions[0]);
    let parsed = parse(&reply, &options);
    assert_eq!(parsed.suggested_values.map(|v| v.len()), Some(2));
    assert_eq!(parsed.suggested_actions.map(|v| v.len()), Some(1));
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(parsed.message, "Done.");
}

// ---- size ----

#[test]
fn the_shape_is_much_smaller_than_the_schema() {
    // The derived schemas; the keyword zoo is printed for comparison only (it is all
    // bounds, which the shape states in words too).
    let SizeReport {
        shape: zoo_shape,
        schema: zoo_schema,
    } = size_report(&keyword_zoo());
    println!("keyword_zoo: shape {zoo_shape} chars, schema {zoo_schema} chars");
    for payload in fixture_types() {
        let (name, schema) = (payload.name, schema_of(payload));
        let SizeReport {
            shape: shape_chars,
            schema: schema_chars,
        } = size_report(&schema);
        println!(
            "{name}: shape {shape_chars} chars, schema {schema_chars} chars ({}%)",
            shape_chars * 100 / schema_chars
        );
        assert!(shape_chars * 2 < schema_chars, "{name}");
    }
}

#[test]
fn a_verbosity_is_read_by_the_name_it_writes() {
    for verbosity in Verbosity::ALL {
        assert_eq!(verbosity.as_str().parse(), Ok(verbosity));
        assert_eq!(verbosity.to_string(), verbosity.as_str());
    }
    let unknown = "loud".parse::<Verbosity>().unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown verbosity 'loud' (use concise or detailed)"
    );
}

// ---- one description per definition ----

/// A unit of measure, shared by several members and types.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Measure {
    /// Grams.
    Gram,
    /// Litres.
    Litre,
}

/// A conversion: the shared enum twice in one type.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, payload_core::LlmPayload)]
#[payload(marker = "CONVERSION")]
struct Conversion {
    /// From this unit.
    from: Measure,
    /// To this unit.
    to: Measure,
}

/// A weighing: the shared enum once, in another type.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, payload_core::LlmPayload)]
#[payload(marker = "WEIGHING")]
struct Weighing {
    /// The unit read.
    unit: Measure,
}

/// A shared definition is written once, labelled at its first use, and named at every
/// other, within a type and across the types of one prompt; each member keeps its own
/// description.
#[test]
fn a_shared_definition_is_written_once_and_named_elsewhere() {
    let options = InstructionOptions::default();
    let one = payload_instructions(&Conversion::TYPE, &options);
    assert_eq!(one.matches("Litres.").count(), 1, "{one}");
    assert!(
        one.contains("\"from\": \"gram\" | \"litre\",  // Measure: From this unit."),
        "{one}"
    );
    assert!(one.contains("\"to\": Measure  // To this unit."), "{one}");

    let (conversion, weighing) = (schema_of(Conversion::TYPE), schema_of(Weighing::TYPE));
    let mut definitions = Definitions::of(&[&conversion, &weighing]);
    let first = payload_instructions_in(&Conversion::TYPE, &options, &mut definitions);
    let second = payload_instructions_in(&Weighing::TYPE, &options, &mut definitions);
    assert_eq!(first, one);
    assert!(
        second.contains("\"unit\": Measure  // The unit read."),
        "{second}"
    );
    assert!(!second.contains("Litres."), "{second}");
    // Alone, the weighing writes its one use out in full, with no label.
    let alone = payload_instructions(&Weighing::TYPE, &options);
    assert!(
        alone.contains("Litres.") && !alone.contains("Measure"),
        "{alone}"
    );
    // Without descriptions nothing is named: the label would be a comment.
    let bare = InstructionOptions {
        include_descriptions: false,
        ..options
    };
    let text = render_shape(&conversion, &bare);
    assert_eq!(text.matches("\"litre\"").count(), 2, "{text}");
    assert!(!text.contains("Measure"), "{text}");
}

/// A surface: written in tags, as A2UI's agents write theirs.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, payload_core::LlmPayload)]
#[payload(tag = "a2ui-json", example = surface_example)]
struct Surface {
    /// The surface's id.
    surface_id: String,
}

fn surface_example() -> Surface {
    Surface {
        surface_id: "main".to_string(),
    }
}

/// A type written in tags is taught in its tags (docs/spec.md §1.21), never its marker,
/// and the example the instructions show is read back as the type by the parser.
#[test]
fn a_tagged_type_is_taught_in_its_tags_and_its_example_reads_back() {
    let text = payload_instructions(&Surface::TYPE, &InstructionOptions::default());
    assert!(text.starts_with("<a2ui-json>\n"), "{text}");
    assert!(
        text.contains("between the tags <a2ui-json> and </a2ui-json>"),
        "{text}"
    );
    assert!(!text.contains(Surface::MARKER), "{text}");
    let example = text
        .split("Example:\n")
        .nth(1)
        .expect("the example is shown");
    assert!(example.trim_end().ends_with("</a2ui-json>"), "{text}");
    let parsed = parse(example, &ParseOptions::new().payload(Surface::TYPE));
    let payload = parsed.custom_payload.expect("the example reads back");
    assert_eq!(payload.data(), &json!({"surface_id": "main"}));
    // Not longer than the marker form of the same type, but for the tag's words.
    let mut marked = Surface::TYPE;
    marked.tag = "";
    let marked = payload_instructions(&marked, &InstructionOptions::default());
    assert!(text.len() <= marked.len() + 40, "{text}\n---\n{marked}");
}

/// A page's count in one sentence: the seed's words for one, the count and the
/// per-type counts tighter than it for several; the common mistake says the type's own
/// count.
#[test]
fn the_payload_count_is_said_in_the_pages_words() {
    use payload_core::PayloadCount;
    let types = [SchemaProposal::TYPE, Command::TYPE];
    assert_eq!(
        payload_count_sentence(PayloadCount::ONE, &types),
        "At most one of these payloads per response"
    );
    let marker = Command::TYPE.marker;
    let count = PayloadCount::at_most(3).per_type(&[("command", 1)]);
    assert_eq!(Command::TYPE.name, "command");
    assert_eq!(
        payload_count_sentence(count, &types),
        format!(
            "Up to three of these payloads per response (at most one {marker}), each where it belongs in your reply"
        )
    );
    assert_eq!(
        payload_count_sentence(PayloadCount::at_most(12), &types),
        "Up to 12 of these payloads per response, each where it belongs in your reply"
    );
    let with = |payload_count| InstructionOptions {
        payload_count,
        ..InstructionOptions::default()
    };
    let one = payload_instructions(&SchemaProposal::TYPE, &with(PayloadCount::ONE));
    let proposal = SchemaProposal::TYPE.marker;
    assert!(one.contains(&format!("Send at most one {proposal} per response.")));
    let three = payload_instructions(&SchemaProposal::TYPE, &with(count));
    assert!(three.contains(&format!(
        "Send at most three {proposal} blocks per response."
    )));
    assert!(!three.contains("at most one"), "{three}");
    // The count changes that line alone.
    assert_eq!(
        three.replace(
            &format!("Send at most three {proposal} blocks per response."),
            &format!("Send at most one {proposal} per response.")
        ),
        one
    );
}
