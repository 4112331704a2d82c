//! SelfHelp: the complete example responses validate, every anti-pattern the seed names
//! is rejected with an error at the right path, and the retry loop converges.

use payload_core::{ErrorKind, LlmPayload, extract_json, schema::Dialect};
use selfhelp::examples::{EMERGENCY_JSON, FORM_JSON, WELCOME_JSON};
use selfhelp::{DangerLevel, SelfHelpResponse};
use serde_json::{Value, json};

/// Reads `value` both ways, with the compiled-in type and with the type loaded from
/// the schema file, asserts the two results are equal, and returns it.
fn check(value: &Value) -> payload_core::ExtractResult {
    both(&value.to_string())
}

fn both(text: &str) -> payload_core::ExtractResult {
    let derived = extract_json(text, &SelfHelpResponse::TYPE);
    let loaded = extract_json(text, selfhelp::schema_file::from_file());
    assert_eq!(
        serde_json::to_value(&derived).unwrap(),
        serde_json::to_value(&loaded).unwrap(),
        "the schema file reads {text} differently"
    );
    derived
}

fn paths(result: &payload_core::ExtractResult) -> Vec<String> {
    result.errors.iter().map(|e| e.path().to_owned()).collect()
}

fn welcome() -> Value {
    serde_json::from_str(WELCOME_JSON).unwrap()
}

#[test]
fn the_seeds_complete_examples_are_valid() {
    for text in [WELCOME_JSON, FORM_JSON, EMERGENCY_JSON] {
        let result = both(text);
        assert!(result.success, "{:#?}", result.errors);
        assert!(result.warnings.is_empty());
    }
    let emergency: SelfHelpResponse = serde_json::from_str(EMERGENCY_JSON).unwrap();
    assert_eq!(
        emergency.safety.danger_level.as_ref(),
        Some(&DangerLevel::Emergency)
    );
}

#[test]
fn suggestions_must_be_text_objects() {
    for (wrong, path) in [
        (json!(["Option 1", "Option 2"]), "/content/suggestions/0"),
        (
            json!([{"label": "Option 1"}]),
            "/content/suggestions/0/text",
        ),
        (json!([{"name": "Option 1"}]), "/content/suggestions/0/text"),
        (
            json!([{"title": "Option 1"}]),
            "/content/suggestions/0/text",
        ),
    ] {
        let mut response = welcome();
        response["content"]["suggestions"] = wrong.clone();
        let result = check(&response);
        assert!(!result.success, "{wrong} was accepted");
        assert!(
            paths(&result).contains(&path.to_string()),
            "{wrong}: {:?}",
            paths(&result)
        );
    }
}

#[test]
fn required_top_level_fields_are_reported_each() {
    let mut response = welcome();
    let object = response.as_object_mut().unwrap();
    object.remove("type");
    object.remove("safety");
    object.remove("metadata");
    let result = check(&response);
    let missing: Vec<&str> = result
        .errors
        .iter()
        .filter(|e| e.kind() == ErrorKind::Missing)
        .map(|e| e.path())
        .collect();
    assert_eq!(missing, ["/type", "/safety", "/metadata"]);
}

#[test]
fn type_must_be_response_and_danger_levels_are_an_enum() {
    let mut response = welcome();
    response["type"] = json!("invalid");
    response["safety"]["danger_level"] = json!("severe");
    let result = check(&response);
    let errors = &result.errors;
    let type_error = errors.iter().find(|e| e.path() == "/type").unwrap();
    assert!(type_error.expected().unwrap().contains("response"));
    let level = errors
        .iter()
        .find(|e| e.path() == "/safety/danger_level")
        .unwrap();
    let expected = level.expected().unwrap();
    for allowed in ["warning", "critical", "emergency"] {
        assert!(expected.contains(allowed), "{expected}");
    }
}

#[test]
fn danger_level_must_be_present_even_when_null() {
    let mut response = welcome();
    response["safety"]
        .as_object_mut()
        .unwrap()
        .remove("danger_level");
    let result = check(&response);
    assert_eq!(paths(&result), ["/safety/danger_level"]);
}

#[test]
fn at_least_one_text_block() {
    let mut response = welcome();
    response["content"]["text_blocks"] = json!([]);
    let result = check(&response);
    assert_eq!(paths(&result), ["/content/text_blocks"]);
}

#[test]
fn form_rules() {
    let mut response: Value = serde_json::from_str(FORM_JSON).unwrap();
    let fields = response["content"]["form"]["fields"]
        .as_array_mut()
        .unwrap();
    fields[1]["id"] = json!("anxiety_level");
    fields[1]["options"] = json!([]);
    fields.push(json!({"id": "mood", "type": "scale", "label": "Mood", "min": 5}));
    fields.push(json!({"id": "sleep", "type": "scale", "label": "Sleep", "min": 10, "max": 1}));
    let result = check(&response);
    assert_eq!(
        paths(&result),
        [
            "/content/form/fields/1/id",
            "/content/form/fields/1/options",
            "/content/form/fields/2/max",
            "/content/form/fields/3/max"
        ]
    );
}

#[test]
fn safety_must_agree_with_the_danger_level() {
    let mut response: Value = serde_json::from_str(EMERGENCY_JSON).unwrap();
    response["safety"]["is_safe"] = json!(true);
    response["safety"]["requires_intervention"] = json!(false);
    response["safety"]["detected_concerns"] = json!([]);
    let result = check(&response);
    assert_eq!(
        paths(&result),
        [
            "/safety/is_safe",
            "/safety/detected_concerns",
            "/safety/requires_intervention"
        ]
    );
}

#[test]
fn unknown_members_are_rejected_with_the_closest_name() {
    let mut response = welcome();
    response["metadata"]["tokens"] = json!(180);
    let result = check(&response);
    let error = &result.errors[0];
    assert_eq!(error.path(), "/metadata/tokens");
    assert!(
        error.suggestion().unwrap().contains("tokens_used"),
        "{error:?}"
    );
}

#[test]
fn confidence_is_between_zero_and_one() {
    let mut response = welcome();
    response["metadata"]["confidence"] = json!(1.4);
    let result = check(&response);
    assert_eq!(paths(&result), ["/metadata/confidence"]);
}

#[test]
fn the_schema_is_published_as_draft_07() {
    let schema = SelfHelpResponse::TYPE.schema(Dialect::Draft07);
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert!(schema.get("definitions").is_some());
    assert_eq!(
        schema["required"],
        json!(["type", "safety", "content", "metadata"])
    );
}

#[test]
fn the_scripted_model_is_corrected_on_the_third_attempt() {
    let (outcome, requests) = selfhelp::demo::run();
    assert!(outcome.succeeded());
    assert_eq!(outcome.attempts.len(), 3);
    assert_eq!(requests[0].feedback, None);
    // The first answer has no JSON; the second has three kinds of problem.
    assert_eq!(outcome.attempts[0].errors[0].kind(), ErrorKind::Parsing);
    let feedback = requests[2].feedback.as_deref().unwrap();
    assert!(feedback.contains("/safety"), "{feedback}");
    assert!(feedback.contains("/content/suggestions/0"), "{feedback}");
    assert!(feedback.contains("/metadata/confidence"), "{feedback}");
    assert!(outcome.attempts[2].errors.is_empty());
}

#[test]
fn the_schema_file_is_the_compiled_in_types_schema() {
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(selfhelp::schema_file::path()).unwrap())
            .unwrap();
    assert_eq!(
        file,
        SelfHelpResponse::TYPE.schema(Dialect::Draft07),
        "regenerate it: payload schema selfhelp_response --dialect draft-07"
    );
    let loaded = selfhelp::schema_file::from_file();
    assert!(loaded.is_runtime());
    assert_eq!(loaded.schema(Dialect::Draft07), file);
}

#[test]
fn a_broken_schema_file_is_a_clear_error() {
    let path = std::env::temp_dir().join(format!("selfhelp-{}.json", std::process::id()));
    std::fs::write(&path, r##"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"safety": {"$ref": "#/definitions/Safety"}}}"##).unwrap();
    let error = selfhelp::schema_file::load(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(
        error.to_string().contains("/properties/safety/$ref"),
        "{error}"
    );
    // Each error prints its cause once: in its message or as its `source()`.
    let missing = std::env::temp_dir().join(format!("selfhelp-none-{}.json", std::process::id()));
    let unreadable = selfhelp::schema_file::load(&missing).unwrap_err();
    for error in [&error, &unreadable] {
        if let Some(cause) = std::error::Error::source(error) {
            assert!(!error.to_string().contains(&cause.to_string()), "{error:?}");
        }
    }
    assert!(
        unreadable
            .chain()
            .starts_with("cannot read the schema file: "),
        "{}",
        unreadable.chain()
    );
}

#[test]
fn the_schema_file_teaches_what_the_compiled_in_type_teaches() {
    use payload_instructions::{InstructionOptions, whole_response_instructions};
    let options = InstructionOptions {
        include_example: false,
        ..InstructionOptions::default()
    };
    assert_eq!(
        whole_response_instructions(selfhelp::schema_file::from_file(), &options),
        whole_response_instructions(&SelfHelpResponse::TYPE, &options)
    );
}

#[test]
fn the_retry_loop_goes_the_same_way_from_the_schema_file() {
    let (derived, _) = selfhelp::demo::run();
    let (loaded, _) = selfhelp::demo::run_with(selfhelp::schema_file::from_file());
    let errors = |outcome: &payload_core::retry::RetryOutcome<std::convert::Infallible>| {
        outcome
            .attempts
            .iter()
            .map(|a| serde_json::to_value(&a.errors).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(errors(&derived), errors(&loaded));
    assert_eq!(loaded.attempts.len(), 3);
}
