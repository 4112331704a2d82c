//! The contacts bridge end to end: every valid example of the original app is accepted,
//! every anti-pattern is rejected at the path the seed points at with a message naming
//! the intent, and the seed's validation rules (per-intent required parameters, ISO
//! dates, real booleans, confidence in 0..1, no invented fields at any level) hold on
//! output a model writes.

use contacts_bridge::examples::{ANTI_PATTERNS, VALID};
use contacts_bridge::{Command, ContactsCommand, rules};
use payload_core::{ErrorKind, ExtractResult, LlmPayload, PayloadError, WarningKind, extract_json};

fn read(text: &str) -> ExtractResult {
    extract_json(text, &ContactsCommand::TYPE)
}

fn rejected(text: &str) -> Vec<PayloadError> {
    let result = read(text);
    assert!(!result.success, "accepted: {text}");
    result.errors
}

/// The one error at `path`, which must name `intent`.
fn error_at<'a>(errors: &'a [PayloadError], path: &str, intent: &str) -> &'a PayloadError {
    let found: Vec<&PayloadError> = errors.iter().filter(|e| e.path() == path).collect();
    assert_eq!(found.len(), 1, "one error at {path}: {errors:#?}");
    let named = format!("(intent \"{intent}\")");
    assert!(
        found[0].message().contains(&named),
        "{}",
        found[0].message()
    );
    found[0]
}

#[test]
fn every_valid_example_is_accepted_as_is() {
    for (request, command) in VALID {
        let result = read(command);
        assert!(result.success, "{request}: {:#?}", result.errors);
        assert!(
            result.warnings.is_empty(),
            "{request}: {:?}",
            result.warnings
        );
        let decoded: ContactsCommand = result.decode().expect("decodes");
        assert!(decoded.check().is_empty(), "{request}");
    }
}

#[test]
fn valid_examples_are_accepted_inside_a_chatty_reply() {
    let (request, command) = VALID[3];
    let reply = format!("Got it — \"{request}\". Here's the command:\n\n```json\n{command}\n```\n");
    let result = read(&reply);
    assert!(result.success, "{:#?}", result.errors);
    assert_eq!(
        result.data.unwrap()["parameters"]["filter_value"],
        "Oakland"
    );
}

#[test]
fn every_anti_pattern_is_rejected_at_its_path_naming_the_intent() {
    for (request, command, path) in ANTI_PATTERNS {
        let value: serde_json::Value = serde_json::from_str(command).unwrap();
        let intent = value["intent"].as_str().unwrap();
        let result = read(command);
        if result.success {
            // "Don't hallucinate data" is valid JSON for the schema: only the request
            // shows the tag was made up.
            let decoded: ContactsCommand = result.decode().unwrap();
            let errors = rules::ungrounded(&decoded, request);
            let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
            assert_eq!(paths, [path], "{request}");
            assert!(errors[0].message().contains("john_smith"));
        } else {
            error_at(&result.errors, path, intent);
        }
    }
}

#[test]
fn the_invented_export_has_exactly_its_two_errors() {
    let errors = rejected(ANTI_PATTERNS[1].1);
    let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
    // `scope` is missing too: every problem of the intent is reported, nothing else.
    assert_eq!(
        paths,
        [
            "/parameters/scope",
            "/parameters/format",
            "/parameters/fancy_styling"
        ]
    );
    let format = error_at(&errors, "/parameters/format", "export");
    assert_eq!(format.expected(), Some("one of json, directory, csv"));
    let extra = error_at(&errors, "/parameters/fancy_styling", "export");
    assert!(extra.expected().unwrap().contains("include_images"));
    assert_eq!(
        error_at(&errors, "/parameters/scope", "export").kind(),
        ErrorKind::Missing
    );
}

#[test]
fn the_hallucinated_tag_is_grounded_only_when_the_user_said_it() {
    let (request, command) = VALID[5];
    let decoded: ContactsCommand = read(command).decode().unwrap();
    assert!(rules::ungrounded(&decoded, request).is_empty());
}

#[test]
fn missing_parameters_are_missing_inside_the_intent() {
    let errors = rejected(r#"{"intent": "view_details", "parameters": {"include_notes": true}}"#);
    let missing = error_at(&errors, "/parameters/item_ids", "view_details");
    assert_eq!(missing.kind(), ErrorKind::Missing);
    assert_eq!(errors.len(), 1, "{errors:#?}");

    let errors = rejected(r#"{"intent": "view_details", "parameters": {"item_ids": []}}"#);
    error_at(&errors, "/parameters/item_ids", "view_details");

    let errors = rejected(r#"{"intent": "search", "parameters": {}}"#);
    error_at(&errors, "/parameters/entity_type", "search");

    let errors = rejected(r#"{"intent": "error", "parameters": {"error_type": "ambiguous"}}"#);
    error_at(&errors, "/parameters/message", "error");

    let errors = rejected(r#"{"intent": "view_details"}"#);
    error_at(&errors, "/parameters", "view_details");
}

#[test]
fn item_ids_as_strings_are_coerced_with_a_warning() {
    // A number written as a string is unambiguous: whole-response mode converts it and
    // says so, rather than failing the command.
    let result = read(r#"{"intent": "view_details", "parameters": {"item_ids": ["1", "3"]}}"#);
    assert!(result.success, "{:#?}", result.errors);
    assert_eq!(
        result.data.unwrap()["parameters"]["item_ids"],
        serde_json::json!([1, 3])
    );
    assert_eq!(result.warnings.len(), 2);
    assert!(
        result
            .warnings
            .iter()
            .all(|w| w.kind == WarningKind::Coerced)
    );
    // Zero is not an index and words are not numbers.
    let errors = rejected(r#"{"intent": "view_details", "parameters": {"item_ids": [0]}}"#);
    error_at(&errors, "/parameters/item_ids/0", "view_details");
    let errors = rejected(r#"{"intent": "view_details", "parameters": {"item_ids": ["third"]}}"#);
    error_at(&errors, "/parameters/item_ids/0", "view_details");
}

#[test]
fn booleans_as_strings_are_coerced_with_a_warning() {
    let result = read(
        r#"{"intent": "export", "parameters": {"format": "directory", "scope": "selected", "include_images": "true"}}"#,
    );
    assert!(result.success, "{:#?}", result.errors);
    assert_eq!(result.data.unwrap()["parameters"]["include_images"], true);
    assert_eq!(result.warnings.len(), 1);
    assert_eq!(result.warnings[0].kind, WarningKind::Coerced);
    let errors = rejected(
        r#"{"intent": "export", "parameters": {"format": "json", "scope": "all", "include_notes": "yes"}}"#,
    );
    error_at(&errors, "/parameters/include_notes", "export");
}

#[test]
fn filter_value_is_required_for_add_filter_and_typed_by_the_filter() {
    let errors = rejected(
        r#"{"intent": "refine", "parameters": {"operation": "add_filter", "filter_type": "location"}}"#,
    );
    let missing = error_at(&errors, "/parameters/filter_value", "refine");
    assert_eq!(missing.kind(), ErrorKind::Missing);
    let errors = rejected(
        r#"{"intent": "refine", "parameters": {"operation": "add_filter", "filter_type": "has_email", "filter_value": "yes"}}"#,
    );
    error_at(&errors, "/parameters/filter_value", "refine");
    let errors = rejected(
        r#"{"intent": "refine", "parameters": {"operation": "add_filter", "filter_type": "date_range", "filter_value": {"start": "2024-12-31", "end": "2024-01-01"}}}"#,
    );
    error_at(&errors, "/parameters/filter_value/end", "refine");
    assert!(
        read(r#"{"intent": "refine", "parameters": {"operation": "remove_filter", "filter_type": "tags"}}"#)
            .success
    );
}

#[test]
fn selection_value_has_the_shape_of_its_selection_type() {
    for (kind, value) in [
        ("ids", r#"{"start": 1, "end": 5}"#),
        ("ids", "[0, 2]"),
        ("range", "[1, 5]"),
        ("range", r#"{"start": 5, "end": 1}"#),
        ("all", "[1]"),
        ("filter", r#"{"city": "SF"}"#),
    ] {
        let text = format!(
            r#"{{"intent": "select", "parameters": {{"selection_type": "{kind}", "selection_value": {value}}}}}"#
        );
        let errors = rejected(&text);
        error_at(&errors, "/parameters/selection_value", "select");
    }
}

#[test]
fn dates_are_iso_dates() {
    for date in ["2024-13-01", "January 2024", "2024/01/01"] {
        let text = format!(
            r#"{{"intent": "search", "parameters": {{"entity_type": "contacts", "filters": {{"date_range": {{"start": "{date}"}}}}}}}}"#
        );
        let errors = rejected(&text);
        let error = error_at(&errors, "/parameters/filters/date_range/start", "search");
        assert!(
            error.suggestion().unwrap().contains("YYYY-MM-DD"),
            "{error:?}"
        );
    }
}

#[test]
fn confidence_is_between_zero_and_one() {
    let ok = r#"{"intent": "search", "parameters": {"entity_type": "notes"}, "confidence": 0.92, "reasoning": "asked for notes"}"#;
    assert!(read(ok).success);
    let errors = rejected(
        r#"{"intent": "search", "parameters": {"entity_type": "notes"}, "confidence": 1.5}"#,
    );
    let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
    assert_eq!(paths, ["/confidence"]);
}

#[test]
fn no_invented_fields_at_any_level() {
    // Beside intent: the command allows no members beyond its four.
    let errors = rejected(
        r#"{"intent": "search", "parameters": {"entity_type": "contacts"}, "metadata": {"user_query": "show me everyone"}}"#,
    );
    let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
    assert_eq!(paths, ["/metadata"], "{errors:#?}");
    assert!(errors[0].expected().unwrap().contains("intent"));
    // Inside a nested filter.
    let errors = rejected(
        r#"{"intent": "search", "parameters": {"entity_type": "contacts", "filters": {"city": "Oakland"}}}"#,
    );
    error_at(&errors, "/parameters/filters/city", "search");
}

#[test]
fn an_unknown_intent_lists_the_intents() {
    let errors = rejected(r#"{"intent": "delete", "parameters": {"scope": "all"}}"#);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].path(), "/intent");
    assert_eq!(
        errors[0].expected(),
        Some("one of search, refine, select, export, view_details, error")
    );
    let errors = rejected(r#"{"intent": "view-details", "parameters": {"item_ids": [1]}}"#);
    assert!(
        errors[0]
            .suggestion()
            .unwrap()
            .starts_with("use \"view_details\"")
    );
}

#[test]
fn the_error_intent_validates() {
    // What a model answers to "delete all my contacts".
    let text = r#"{"intent": "error", "parameters": {"error_type": "unsupported", "message": "I can't delete contacts; I can search, select and export them.", "suggestions": ["Try: 'export all contacts to csv'"]}, "confidence": 0.9}"#;
    let result = read(text);
    assert!(result.success, "{:#?}", result.errors);
    let command: ContactsCommand = result.decode().unwrap();
    assert!(matches!(command.command, Command::Error(_)));
    let errors = rejected(
        r#"{"intent": "error", "parameters": {"error_type": "confused", "message": "?"}}"#,
    );
    error_at(&errors, "/parameters/error_type", "error");
}

#[test]
fn intent_rules_are_declared_per_variant() {
    let command: ContactsCommand = serde_json::from_str(
        r#"{"intent": "select", "parameters": {"selection_type": "none", "selection_value": [1]}}"#,
    )
    .unwrap();
    let errors = LlmPayload::check(&command.command);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path(), "/parameters/selection_value");
    assert!(errors[0].message().ends_with("(intent \"select\")"));
    assert_eq!(rules::check(&command), errors);
}

#[test]
fn instructions_list_every_intent_with_its_parameters_and_a_valid_example() {
    use payload_instructions::{InstructionOptions, whole_response_instructions};
    let text = whole_response_instructions(&ContactsCommand::TYPE, &InstructionOptions::default());
    assert!(
        text.contains(
            "- Required fields: intent, parameters (confidence, reasoning are optional)."
        )
    );
    let schema = ContactsCommand::TYPE.schema(payload_core::schema::Dialect::Draft2020_12);
    let branches = schema["oneOf"].as_array().unwrap();
    assert_eq!(branches.len(), 6);
    for branch in branches {
        let intent = branch["properties"]["intent"]["const"].as_str().unwrap();
        assert!(
            text.contains(&format!("\"intent\": \"{intent}\",")),
            "{intent}"
        );
        let example = &branch["examples"][0];
        assert_eq!(example["intent"], intent);
        // Every variant's example is shown and is itself a valid command.
        let shown = format!("// e.g. {{\"intent\": \"{intent}\"");
        assert!(text.contains(&shown), "{intent}");
        assert!(
            ContactsCommand::TYPE.validate(example).is_ok(),
            "{intent}: {example}"
        );
    }
    for member in [
        "entity_type",
        "filter_type",
        "selection_value",
        "scope",
        "item_ids",
        "error_type",
    ] {
        assert!(text.contains(&format!("\"{member}\"")), "{member}");
    }
}
