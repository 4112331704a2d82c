//! Payload types known only at run time (`PayloadType::from_schema`): a type made from
//! a derived type's own schema and example reads every response exactly as the derived
//! one does, in all five formats and in marker mode, streamed or not; a schema that
//! cannot be a type is a clear error listing every problem, never a panic; and any JSON
//! at all given as a schema gives an error or a working type.

use output_schema::{AnalysisResult, TaskPlan};
use payload_core::formats::{Format, render};
use payload_core::{
    LlmPayload, ParseOptions, PayloadType, extract_as, parse, runtime::RuntimeOptions,
    schema::Dialect, stream::StreamParser,
};
use payload_instructions::{InstructionOptions, payload_instructions, whole_response_instructions};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The runtime twin of a derived type: its schema and example, its name and marker.
fn twin(payload: &PayloadType) -> &'static PayloadType {
    PayloadType::from_schema(
        &payload.schema(Dialect::Draft2020_12),
        RuntimeOptions {
            name: Some(payload.name.to_string()),
            marker: Some(payload.marker.to_string()),
            tag: None,
            description: Some(payload.description.to_string()),
            example: payload.example(),
            rules: None,
            rule_text: payload.rules.iter().map(|r| r.to_string()).collect(),
            kind: payload.kind,
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", payload.name))
}

/// Responses to read: the example in every format, and broken variants of it.
fn responses(payload: &PayloadType) -> Vec<(Option<Format>, String)> {
    let schema = payload.schema(Dialect::Draft2020_12);
    let example = payload.example().unwrap();
    let mut broken = example.clone();
    let first = broken.as_object().unwrap().keys().next().unwrap().clone();
    broken.as_object_mut().unwrap().remove(&first);
    let mut wrong_kind = example.clone();
    wrong_kind[&first] = json!({"nested": true});
    let mut near_miss = example.clone();
    let value = near_miss.as_object_mut().unwrap().remove(&first).unwrap();
    near_miss[format!("{first}s")] = value;
    let mut out = Vec::new();
    for format in [
        Format::Json,
        Format::Xml,
        Format::Delimited,
        Format::Tagged,
        Format::Markdown,
    ] {
        for value in [&example, &broken, &wrong_kind, &near_miss] {
            let text = render(format, value, &schema);
            out.push((Some(format), text.clone()));
            out.push((None, format!("Here you go:\n\n{text}\n\nDone.")));
        }
    }
    out.push((None, "no value at all".to_string()));
    out.push((Some(Format::Json), "{\"cut\": [1, 2".to_string()));
    out
}

#[test]
fn a_runtime_type_reads_every_format_exactly_as_its_derived_twin() {
    for derived in [&AnalysisResult::TYPE, &TaskPlan::TYPE] {
        let runtime = twin(derived);
        assert!(runtime.is_runtime() && !derived.is_runtime());
        assert_ne!(runtime, derived);
        assert_eq!(
            runtime.schema(Dialect::Draft2020_12),
            derived.schema(Dialect::Draft2020_12)
        );
        assert_eq!(
            runtime.strict_schema().is_ok(),
            derived.strict_schema().is_ok()
        );
        for (format, text) in responses(derived) {
            let a = serde_json::to_value(extract_as(&text, derived, format)).unwrap();
            let b = serde_json::to_value(extract_as(&text, runtime, format)).unwrap();
            assert_eq!(a, b, "{} {format:?}:\n{text}", derived.name);
        }
        let options = InstructionOptions::default();
        assert_eq!(
            payload_instructions(derived, &options),
            payload_instructions(runtime, &options)
        );
        assert_eq!(
            whole_response_instructions(derived, &options),
            whole_response_instructions(runtime, &options)
        );
    }
}

#[test]
fn a_runtime_type_works_in_marker_mode_streamed_or_not() {
    let derived = &AnalysisResult::TYPE;
    let runtime = twin(derived);
    let example = serde_json::to_string(&derived.example().unwrap()).unwrap();
    let text = format!(
        "Here is the analysis.\n\n{}: {example}\n\nAnything else?",
        derived.marker
    );
    for payload in [derived, runtime] {
        let options = ParseOptions::new().payload(*payload);
        let parsed = parse(&text, &options);
        assert_eq!(parsed.custom_payload.as_ref().unwrap().kind, derived.name);
        assert_eq!(parsed.message, "Here is the analysis.\n\nAnything else?");
        let mut stream = StreamParser::new(&options);
        for piece in text.as_bytes().chunks(5) {
            stream.push(std::str::from_utf8(piece).unwrap_or_default());
        }
        let (_, streamed) = stream.finish();
        assert_eq!(streamed.custom_payload, parsed.custom_payload);
    }
    // The runtime payload holds no Rust value, only its JSON, which a Rust type of the
    // same name still reads.
    let parsed = parse(&text, &ParseOptions::new().payload(*runtime));
    let read: AnalysisResult = parsed.custom_payload.unwrap().into_typed().unwrap();
    assert_eq!(
        serde_json::to_value(read).unwrap(),
        derived.example().unwrap()
    );
}

#[test]
fn a_page_offers_runtime_types_next_to_derived_ones() {
    use payload_builtin::SchemaProposal;
    use payload_registry::{Page, PayloadEntry, Registry};
    let schema = json!({
        "title": "Meeting",
        "type": "object",
        "properties": {"when": {"type": "string", "format": "date"}},
        "required": ["when"]
    });
    let meeting = *PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap();
    let offered: &'static [PayloadType] = Box::leak(Box::new([SchemaProposal::TYPE, meeting]));
    let registry = Registry::from_parts(
        vec![
            PayloadEntry::new(meeting, &[]),
            PayloadEntry::new(SchemaProposal::TYPE, &[]),
        ],
        vec![Page::new("calendar").payloads(offered)],
        vec![],
    );
    assert_eq!(registry.check(), Ok(()));
    let parsed = registry
        .parse_response("calendar", "Booked.\n\nMEETING: {\"when\": \"2024-05-01\"}")
        .unwrap();
    assert_eq!(
        parsed.custom_payload.unwrap().data(),
        &json!({"when": "2024-05-01"})
    );
    let refused = registry
        .parse_response("calendar", "Booked.\n\nMEETING: {\"when\": \"next week\"}")
        .unwrap();
    assert_eq!(refused.rejected[0].errors[0].path(), "/when");
    let prompt = payload_prompt::PromptBuilder::for_page(&registry, "calendar")
        .unwrap()
        .build();
    assert!(prompt.contains("MEETING:"), "{prompt}");
}

#[test]
fn a_draft_07_schema_with_definitions_is_read() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Ticket Triage",
        "description": "How to route a support ticket.",
        "type": "object",
        "properties": {
            "priority": {"$ref": "#/definitions/priority"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}
        },
        "required": ["priority"],
        "definitions": {"priority": {"type": "string", "enum": ["low", "high"]}}
    });
    let ticket = PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap();
    assert_eq!(
        (ticket.name, ticket.marker),
        ("ticket_triage", "TICKET_TRIAGE")
    );
    assert_eq!(ticket.description, "How to route a support ticket.");
    assert_eq!(
        ticket.schema(Dialect::Draft07)["definitions"]["priority"]["enum"][1],
        "high"
    );
    assert!(ticket.schema(Dialect::Draft2020_12)["$defs"].is_object());
    let good = extract_as(
        "{\"priority\": \"high\", \"tags\": [\"billing\"]}",
        ticket,
        None,
    );
    assert!(good.success, "{good:?}");
    let bad = extract_as("{\"priority\": \"urgent\"}", ticket, None);
    assert!(!bad.success);
    let error = &bad.errors[0];
    assert_eq!(error.path(), "/priority");
    let said = serde_json::to_string(error).unwrap();
    assert!(said.contains("low") && said.contains("high"), "{said}");
}

fn problems(schema: Value, options: RuntimeOptions) -> Vec<(String, String)> {
    match PayloadType::from_schema(&schema, options) {
        Ok(_) => panic!("{schema} was accepted"),
        Err(error) => {
            assert!(error.to_string().starts_with("the schema cannot be used"));
            error
                .problems
                .into_iter()
                .map(|p| (p.pointer, p.message))
                .collect()
        }
    }
}

#[test]
fn a_schema_that_cannot_be_a_type_says_every_reason() {
    let object = |extra: Value| {
        let mut schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
        schema
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        schema
    };
    let cases: Vec<(Value, RuntimeOptions, &str, &str)> = vec![
        (json!([1]), RuntimeOptions::default(), "", "JSON object"),
        (
            json!({"type": "strnig"}),
            RuntimeOptions::default(),
            "/type",
            "not a valid JSON Schema",
        ),
        (
            json!({"$schema": "http://json-schema.org/draft-04/schema#"}),
            RuntimeOptions::default(),
            "/$schema",
            "draft-07 or 2020-12",
        ),
        (
            object(json!({"properties": {"a": {"$ref": "#/$defs/missing"}}})),
            RuntimeOptions::default(),
            "/properties/a/$ref",
            "leads nowhere",
        ),
        (
            object(json!({"properties": {"name": {"type": "string"}}, "required": ["nmae"]})),
            RuntimeOptions::default(),
            "/required/0",
            "required names 'nmae', which properties does not declare",
        ),
        (
            object(json!({"properties": {"items": {"type": "array", "items": {
                "type": "object",
                "properties": {"qty": {"type": "number"}},
                "required": ["qty", "unit"]
            }}}})),
            RuntimeOptions::default(),
            "/properties/items/items/required/1",
            "'unit'",
        ),
        (
            object(json!({"properties": {"a": {"$ref": "https://example.com/a.json"}}})),
            RuntimeOptions::default(),
            "/properties/a/$ref",
            "outside the document",
        ),
        (
            object(json!({"x-format": {"yaml": {}}})),
            RuntimeOptions::default(),
            "/x-format/yaml",
            "not a format",
        ),
        (
            object(json!({"x-format": {"xml": {"properties": {"c": {"element": "c"}}}}})),
            RuntimeOptions::default(),
            "/x-format/xml/properties/c",
            "not a property",
        ),
        (
            object(
                json!({"x-format": {"tagged": {"properties": {"a": {"tag": "X"}, "b": {"tag": "x"}}}}}),
            ),
            RuntimeOptions::default(),
            "/properties/b",
            "also the tag of 'a'",
        ),
        (
            object(json!({"x-format": {"markdown": {"properties": {"a": {"level": 9}}}}})),
            RuntimeOptions::default(),
            "/x-format/markdown/properties/a/level",
            "1 to 6",
        ),
        (
            object(json!({"x-format": {"xml": {"root-element": ""}}})),
            RuntimeOptions::default(),
            "/x-format/xml/root-element",
            "non-empty",
        ),
        (
            object(json!({})),
            RuntimeOptions {
                example: Some(json!({"a": 1})),
                ..RuntimeOptions::default()
            },
            "",
            "example does not satisfy",
        ),
        (
            object(json!({})),
            RuntimeOptions {
                name: Some("Bad Name".into()),
                ..RuntimeOptions::default()
            },
            "",
            "not snake_case",
        ),
        // The derive refuses the same name (crates/payload-derive/tests/ui/
        // name_starts_with_a_digit.rs): one rule, a lowercase letter first.
        (
            object(json!({})),
            RuntimeOptions {
                name: Some("2x_plan".into()),
                ..RuntimeOptions::default()
            },
            "",
            "not snake_case",
        ),
        (
            object(json!({})),
            RuntimeOptions {
                marker: Some("lower".into()),
                ..RuntimeOptions::default()
            },
            "",
            "not SHOUTY_SNAKE_CASE",
        ),
    ];
    for (schema, options, pointer, says) in cases {
        let found = problems(schema.clone(), options);
        assert!(
            found.iter().any(|(p, m)| p == pointer && m.contains(says)),
            "{schema}: expected {says:?} at {pointer:?}, got {found:?}"
        );
    }
    // Every problem, not the first.
    let found = problems(
        object(json!({"x-format": {"yaml": {}, "xml": {"properties": {"zz": {}}}}})),
        RuntimeOptions {
            name: Some("X".into()),
            ..RuntimeOptions::default()
        },
    );
    assert_eq!(found.len(), 3, "{found:?}");
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        prop::sample::select(
            &[
                "string",
                "object",
                "array",
                "integer",
                "#",
                "#/$defs/a",
                "x-format",
                "xml",
                "a"
            ][..]
        )
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(
                    &[
                        "type",
                        "properties",
                        "items",
                        "$ref",
                        "$defs",
                        "required",
                        "enum",
                        "x-format",
                        "xml",
                        "tag",
                        "a",
                        "b",
                        "minimum",
                        "anyOf",
                        "additionalProperties"
                    ][..]
                )
                .prop_map(str::to_string),
                inner,
                0..5,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any JSON given as a schema: an error, or a type whose own instructions render
    /// and whose reading of any text returns, with a valid example accepted.
    #[test]
    fn any_json_as_a_schema_is_an_error_or_a_working_type(schema in json_value(), example in json_value()) {
        let options = RuntimeOptions { example: Some(example.clone()), ..RuntimeOptions::default() };
        if let Ok(payload) = PayloadType::from_schema(&schema, options) {
            let _ = payload_instructions(payload, &InstructionOptions::default());
            let text = serde_json::to_string(&example).unwrap();
            let read = extract_as(&text, payload, Some(Format::Json));
            prop_assert!(read.success, "the checked example is accepted: {:?}", read.errors);
        }
    }
}

/// A small type with `x-parsing` set to `parsing`.
fn with_parsing(parsing: Value) -> &'static PayloadType {
    let schema = json!({
        "title": "Count",
        "type": "object",
        "properties": {"label": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["label", "n"],
        "x-parsing": parsing
    });
    PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap()
}

fn kinds(result: &payload_core::ExtractResult) -> Vec<String> {
    result
        .warnings
        .iter()
        .map(|w| w.kind.as_str().to_string())
        .collect()
}

#[test]
fn x_parsing_says_how_strictly_whole_responses_are_read() {
    let plain = with_parsing(json!({}));
    let repaired = "{'label': 'a', 'n': 5,}";
    assert!(extract_as(repaired, plain, None).success);
    let strict = with_parsing(json!({"error-recovery": {"mode": "strict"}}));
    let refused = extract_as(repaired, strict, None);
    assert!(!refused.success);
    assert!(
        refused.errors[0].message().contains("read strictly"),
        "{:?}",
        refused.errors
    );
    assert!(extract_as("{\"label\": \"a\", \"n\": 5}", strict, None).success);

    let quoted = "{\"label\": \"a\", \"n\": \"5\"}";
    assert!(kinds(&extract_as(quoted, plain, None)).contains(&"coerced".to_string()));
    let exact = with_parsing(json!({"error-recovery": {"type-coercion": false}}));
    assert!(!extract_as(quoted, exact, None).success);

    let no_partial = with_parsing(json!({"error-recovery": {"partial-results": false}}));
    let failed = extract_as("{\"label\": 1, \"n\": 2}", no_partial, None);
    assert!(!failed.success && failed.partial_data.is_none());
    assert!(
        extract_as("{\"label\": 1, \"n\": 2}", plain, None)
            .partial_data
            .is_some()
    );

    let extra = "{\"label\": \"a\", \"n\": 5, \"colour\": \"red\"}";
    assert!(kinds(&extract_as(extra, plain, None)).contains(&"unknown_member".to_string()));
    let allow = with_parsing(json!({"validation": {"additional-properties": "allow"}}));
    let allowed = extract_as(extra, allow, None);
    assert!(allowed.success && !kinds(&allowed).contains(&"unknown_member".to_string()));
    let deny = with_parsing(json!({"validation": {"additional-properties": "error"}}));
    let denied = extract_as(extra, deny, None);
    assert!(
        !denied.success && denied.errors[0].message().contains("colour"),
        "{denied:?}"
    );

    let missing = "{\"label\": \"a\"}";
    assert!(!extract_as(missing, plain, None).success);
    let warn = with_parsing(json!({"validation": {"required-enforcement": "warn"}}));
    let warned = extract_as(missing, warn, None);
    assert!(
        warned.success && kinds(&warned).contains(&"missing_member".to_string()),
        "{warned:?}"
    );
    let ignore = with_parsing(json!({"validation": {"required-enforcement": "ignore"}}));
    let ignored = extract_as(missing, ignore, None);
    assert!(
        ignored.success && ignored.warnings.is_empty(),
        "{ignored:?}"
    );
    assert!(
        !extract_as("{\"label\": 3}", warn, None).success,
        "other errors still fail"
    );
}

#[test]
fn x_parsing_limits_format_detection_unless_the_caller_names_a_format() {
    let tagged = "<LABEL>a</LABEL>\n<N>5</N>";
    let plain = with_parsing(json!({}));
    let read = extract_as(tagged, plain, None);
    assert_eq!((read.success, read.format.as_str()), (true, "tagged"));
    let json_only = with_parsing(json!({"format-detection": {"enabled": false}}));
    let refused = extract_as(tagged, json_only, None);
    assert_eq!((refused.success, refused.format.as_str()), (false, "json"));
    assert!(extract_as(tagged, json_only, Some(Format::Tagged)).success);
    let some = with_parsing(json!({"format-detection": {"strategies": ["json", "xml"]}}));
    assert_ne!(extract_as(tagged, some, None).format, "tagged");
    let bad = PayloadType::from_schema(
        &json!({"type": "object", "x-parsing": {"format-detection": {"strategies": ["yaml"]}, "validation": {"required-enforcement": "maybe"}}}),
        RuntimeOptions::default(),
    )
    .unwrap_err();
    assert_eq!(bad.problems.len(), 2, "{bad}");
}

#[test]
fn an_example_the_schemas_x_parsing_would_refuse_is_a_schema_error() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "x-parsing": {"validation": {"additional-properties": "error"}}
    });
    let options = |example: Value| RuntimeOptions {
        example: Some(example),
        ..RuntimeOptions::default()
    };
    let error =
        PayloadType::from_schema(&schema, options(json!({"a": "x", "extra": 1}))).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("refused under the schema's x-parsing"),
        "{error}"
    );
    assert!(PayloadType::from_schema(&schema, options(json!({"a": "x"}))).is_ok());
}

#[test]
fn a_response_that_is_one_json_string_holding_brackets_is_that_string() {
    // Found by the schema fuzz target: the brackets inside the string were read as the
    // start of a value, cut off.
    let anything = PayloadType::from_schema(&json!({}), RuntimeOptions::default()).unwrap();
    let strings =
        PayloadType::from_schema(&json!({"type": "string"}), RuntimeOptions::default()).unwrap();
    for payload in [anything, strings] {
        let read = extract_as("\",[\"", payload, Some(Format::Json));
        assert!(read.success, "{:?}", read.errors);
        assert_eq!(read.data, Some(json!(",[")));
    }
    let object = with_parsing(json!({}));
    assert!(!extract_as("\"[1]\"", object, None).success);
    // A schema with properties but no type accepts scalars: one is an answer.
    let untyped = PayloadType::from_schema(
        &json!({"properties": {"a": {"type": "string"}}, "required": ["a"]}),
        RuntimeOptions::default(),
    )
    .unwrap();
    assert_eq!(
        extract_as("\"confix\"", untyped, Some(Format::Json)).data,
        Some(json!("confix"))
    );
}

#[test]
fn the_same_document_twice_is_the_same_type() {
    let schema =
        json!({"title": "Twice", "type": "object", "properties": {"a": {"type": "integer"}}});
    let first = PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap();
    let again = PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap();
    assert!(std::ptr::eq(first, again));
    let renamed = RuntimeOptions {
        name: Some("other".into()),
        ..RuntimeOptions::default()
    };
    let other = PayloadType::from_schema(&schema, renamed).unwrap();
    assert!(!std::ptr::eq(first, other) && first != other);
}

/// A runtime type whose steps wait for their title (`"x-stream": {"not_null": true}`,
/// docs/spec.md §5.7): a preview never shows a step without one while it arrives, every
/// preview is still an early view of the final data, and the last one is that data.
#[test]
fn a_runtime_type_holds_back_a_step_until_its_not_null_member_has_a_value() {
    let schema = json!({
        "type": "object",
        "properties": {
            "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}}
        },
        "required": ["steps"],
        "$defs": {
            "Step": {
                "type": "object",
                "properties": {
                    "detail": {"type": "string"},
                    "title": {"type": "string", "x-stream": {"not_null": true}}
                },
                "required": ["detail", "title"]
            }
        }
    });
    let recipe = PayloadType::from_schema(
        &schema,
        RuntimeOptions {
            name: Some("recipe".into()),
            marker: Some("RECIPE".into()),
            ..RuntimeOptions::default()
        },
    )
    .unwrap();
    let text = r#"RECIPE: {"steps": [{"detail": "ten minutes", "title": "Boil"}, {"detail": "a pinch", "title": "Salt"}]}"#;
    let mut stream = StreamParser::new(&ParseOptions::new().payload(*recipe));
    let mut previews = Vec::new();
    for chunk in text.as_bytes().chunks(1) {
        for event in stream.push(std::str::from_utf8(chunk).unwrap()) {
            if let payload_core::stream::StreamEvent::PayloadProgress { partial, open, .. } = event
            {
                previews.push((partial, open));
            }
        }
    }
    let (_, parsed) = stream.finish();
    let data = parsed.custom_payload.unwrap().data().clone();
    for (partial, open) in &previews {
        for step in partial["steps"].as_array().into_iter().flatten() {
            assert!(step.get("title").is_some(), "{partial} (open {open:?})");
        }
        payload_core::__internals::stream::preview_fits(partial, open.as_deref(), &data).unwrap();
    }
    assert_eq!(previews.last().unwrap(), &(data, None));
}
