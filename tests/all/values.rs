//! docs/spec.md §7.1, §7.2, §7.4 and §8.1 for values, in marker mode and whole-response mode:
//! members the type does not declare, integer-valued and oversized numbers, what
//! whole-response coercion accepts and refuses, and errors bounded at the source.

use payload_core::{
    ErrorKind, ExtractResult, LlmPayload, ParsedResponse, PayloadError, WarningKind, extract_as,
};
use payload_core::{ParseOptions, Parser};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use payload_tests as _;

/// Changes one row of the task table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "TASK_UPDATE", example = task_example)]
struct TaskUpdate {
    /// The row to change.
    row_id: u32,
    /// How often the task was viewed.
    #[serde(default)]
    views: u64,
    /// Labels to set.
    #[serde(default)]
    labels: Vec<String>,
    /// A new title.
    #[serde(default)]
    title: Option<String>,
    /// A new priority.
    #[serde(default)]
    priority: Option<Priority>,
    /// Whether the task is done.
    #[serde(default)]
    done: Option<bool>,
    /// An estimate in hours.
    #[serde(default)]
    estimate: Option<f64>,
}

/// How urgent a task is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

fn task_example() -> TaskUpdate {
    TaskUpdate {
        row_id: 7,
        views: 12,
        labels: vec!["home".into()],
        title: Some("Water the plants".into()),
        priority: Some(Priority::High),
        done: Some(false),
        estimate: Some(0.5),
    }
}

/// A note that takes no members besides its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "NOTE")]
#[serde(deny_unknown_fields)]
struct Note {
    /// The note's text.
    text: String,
    /// Tags.
    #[serde(default)]
    tags: Vec<String>,
}

/// A plan of operations; every operation needs both members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "PLAN")]
struct Plan {
    /// What to do, in order.
    operations: Vec<Operation>,
}

/// One operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Operation {
    /// What to do.
    action: String,
    /// What to do it to.
    target: String,
}

fn parser() -> Parser {
    Parser::new(
        &ParseOptions::new()
            .payload(TaskUpdate::TYPE)
            .payload(Note::TYPE)
            .payload(Plan::TYPE),
    )
}

/// The block `MARKER: json` in a marker-mode response.
fn marker(marker: &str, json: &str) -> ParsedResponse {
    parser().parse(&format!("Done.\n\n{marker}: {json}"))
}

fn whole<T: LlmPayload>(json: &str) -> ExtractResult {
    extract_as(json, &T::TYPE, None)
}

/// The errors of the one rejected block.
fn rejected(parsed: &ParsedResponse) -> &[PayloadError] {
    assert!(parsed.custom_payload.is_none(), "{parsed:#?}");
    assert_eq!(parsed.rejected.len(), 1, "{parsed:#?}");
    &parsed.rejected[0].errors
}

fn paths(errors: &[PayloadError]) -> Vec<&str> {
    errors.iter().map(|e| e.path()).collect()
}

// ---- §7.1 members the type does not declare ----------------------------------------

#[test]
fn a_misspelled_member_is_an_error_that_names_the_member_meant() {
    let json = r#"{"row_id": 3, "lables": ["urgent"]}"#;
    for errors in [
        rejected(&marker("TASK_UPDATE", json)).to_vec(),
        whole::<TaskUpdate>(json).errors,
    ] {
        assert_eq!(paths(&errors), ["/lables"], "{errors:#?}");
        let error = &errors[0];
        assert_eq!(error.kind(), ErrorKind::Validation);
        assert_eq!(error.message(), "unknown member 'lables'");
        assert!(
            error
                .suggestion()
                .unwrap()
                .starts_with("did you mean 'labels'?")
        );
        assert_eq!(error.received(), Some(json!(["urgent"])).as_ref());
        assert!(error.location().is_some());
    }
}

#[test]
fn another_spelling_of_a_required_member_replaces_its_missing_error() {
    let errors = rejected(&marker("TASK_UPDATE", r#"{"rowId": 3}"#)).to_vec();
    assert_eq!(paths(&errors), ["/rowId"], "{errors:#?}");
    assert!(errors[0].suggestion().unwrap().contains("'row_id'"));
}

#[test]
fn an_unknown_member_that_is_no_near_miss_is_a_warning_and_the_value_is_accepted() {
    let json = r#"{"row_id": 3, "mood": "calm"}"#;
    let parsed = marker("TASK_UPDATE", json);
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    let unknown: Vec<&str> = parsed
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownMember)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(unknown.len(), 1, "{:?}", parsed.warnings);
    assert!(unknown[0].contains("'mood' at /mood"), "{}", unknown[0]);
    assert!(unknown[0].starts_with("TASK_UPDATE block: "));

    let result = whole::<TaskUpdate>(json);
    assert!(result.success, "{:#?}", result.errors);
    let serialized = serde_json::to_value(&result).unwrap();
    assert_eq!(serialized["warnings"][0]["kind"], "unknown_member");
    assert!(result.warnings[0].message.contains("'mood'"));
}

#[test]
fn a_near_miss_of_a_member_that_is_present_is_only_a_warning() {
    let parsed = marker(
        "TASK_UPDATE",
        r#"{"row_id": 3, "labels": [], "lables": ["x"]}"#,
    );
    assert!(parsed.custom_payload.is_some(), "{parsed:#?}");
    assert!(parsed.warnings[0].message.contains("'lables'"));
}

#[test]
fn a_type_that_denies_unknown_fields_rejects_each_once() {
    let json = r#"{"text": "call mum", "tgas": ["family"], "colour": "red"}"#;
    for errors in [
        rejected(&marker("NOTE", json)).to_vec(),
        whole::<Note>(json).errors,
    ] {
        assert_eq!(paths(&errors), ["/tgas", "/colour"], "{errors:#?}");
        assert!(errors[0].suggestion().unwrap().contains("'tags'"));
        assert!(
            errors[1]
                .suggestion()
                .unwrap()
                .starts_with("remove 'colour'")
        );
    }
}

#[test]
fn other_formats_report_undeclared_fields_too() {
    use payload_core::formats::Format;
    let cases = [
        (
            Format::Xml,
            "<task_update><row_id>3</row_id><lables>x</lables></task_update>",
        ),
        (Format::Markdown, "## row_id\n3\n\n## lables\n- x\n"),
        (Format::Tagged, "<ROW_ID>3</ROW_ID>\n<LABLES>x</LABLES>"),
    ];
    for (format, text) in cases {
        let result = extract_as(text, &TaskUpdate::TYPE, Some(format));
        assert!(!result.success, "{format:?}: {:?}", result.data);
        // The member is named as it was written (`LABLES` in tagged content).
        let written: Vec<String> = result
            .errors
            .iter()
            .map(|e| e.path().to_lowercase())
            .collect();
        assert_eq!(written, ["/lables"], "{format:?}: {:#?}", result.errors);
        assert!(result.errors[0].suggestion().unwrap().contains("'labels'"));

        let invented = text.replace("lables", "mood").replace("LABLES", "MOOD");
        let result = extract_as(&invented, &TaskUpdate::TYPE, Some(format));
        assert!(result.success, "{format:?}: {:#?}", result.errors);
        assert!(
            result
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::UnknownMember
                    && w.message.to_lowercase().contains("'mood'")),
            "{format:?}: {:?}",
            result.warnings
        );
    }
}

// ---- §7.2 numbers -----------------------------------------------------------------

#[test]
fn an_integer_valued_float_decodes_into_an_integer_field() {
    let json = r#"{"row_id": 12.0, "views": 1e2}"#;
    let parsed = marker("TASK_UPDATE", json);
    let data = &parsed.custom_payload.as_ref().expect("accepted").data();
    assert_eq!(data["row_id"], json!(12));
    assert!(data["row_id"].is_u64() && data["views"].is_u64());
    assert!(
        parsed.warnings.is_empty(),
        "marker mode: no coercion to report"
    );

    let result = whole::<TaskUpdate>(json);
    assert!(result.success, "{:#?}", result.errors);
    assert_eq!(result.decode::<TaskUpdate>().unwrap().row_id, 12);
    let coerced: Vec<&str> = result
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Coerced)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(
        coerced,
        [
            "/row_id: 12.0 is the integer 12",
            "/views: 100.0 is the integer 100"
        ]
    );
}

#[test]
fn a_number_a_field_cannot_hold_exactly_is_an_error_at_its_path() {
    let digits = format!("1{}", "0".repeat(299));
    let cases = [
        (r#"{"row_id": 1, "views": 1e20}"#.to_string(), "/views"),
        (format!(r#"{{"row_id": 1, "views": {digits}}}"#), "/views"),
        (format!(r#"{{"row_id": {digits}}}"#), "/row_id"),
        (r#"{"row_id": 4294967296}"#.to_string(), "/row_id"),
        (r#"{"row_id": 1, "views": 1e17}"#.to_string(), "/views"),
    ];
    for (json, path) in cases {
        for errors in [
            rejected(&marker("TASK_UPDATE", &json)).to_vec(),
            whole::<TaskUpdate>(&json).errors,
        ] {
            assert_eq!(paths(&errors), [path], "{json}: {errors:#?}");
            assert_eq!(errors[0].kind(), ErrorKind::Validation);
            assert!(errors[0].suggestion().is_some());
        }
    }
}

/// Float literals a 64-bit float cannot hold to the digits written (docs/spec.md §7.2): underflow
/// to zero, digits past what a float keeps, a million-digit mantissa.
fn imprecise_literals() -> Vec<String> {
    vec![
        "1e-400".to_string(),
        "123456789012345678901234567890.5".to_string(),
        format!("0.{}1", "0".repeat(1_000_000)),
        "0.1000000000000000000001".to_string(),
    ]
}

#[test]
fn a_float_that_cannot_be_held_to_its_digits_is_an_error_at_its_path() {
    for literal in imprecise_literals() {
        let json = format!(r#"{{"row_id": 1, "estimate": {literal}}}"#);
        for errors in [
            rejected(&marker("TASK_UPDATE", &json)).to_vec(),
            whole::<TaskUpdate>(&json).errors,
        ] {
            assert_eq!(paths(&errors), ["/estimate"], "{errors:#?}");
            assert_eq!(errors[0].kind(), ErrorKind::Validation);
            assert!(
                errors[0].message().len() < 200,
                "the literal is quoted short"
            );
            let suggestion = errors[0].suggestion().unwrap();
            assert!(
                suggestion.contains("significant digits") || suggestion.contains("write 0"),
                "{suggestion}"
            );
        }
    }
    // Where any JSON value is taken, the number is refused too: it would be held as
    // another number just the same.
    let json = r#"{"plan": [1e-400]}"#;
    let any = payload_core::PayloadType::from_schema(
        &json!({"type": "object"}),
        payload_core::runtime::RuntimeOptions::default(),
    )
    .unwrap();
    let result = extract_as(json, any, None);
    assert!(!result.success, "{result:?}");
    assert_eq!(paths(&result.errors), ["/plan/0"]);
}

/// A sensor reading, held in 32 bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "READING")]
struct Reading {
    /// The level.
    level: f32,
}

#[test]
fn a_number_a_32_bit_float_field_cannot_hold_is_an_error_at_its_path() {
    let parser = Parser::new(&ParseOptions::new().payload(Reading::TYPE));
    for literal in ["16777217", "0.123456789", "1e39"] {
        let json = format!(r#"{{"level": {literal}}}"#);
        let parsed = parser.parse(&format!("Done.\n\nREADING: {json}"));
        for errors in [rejected(&parsed).to_vec(), whole::<Reading>(&json).errors] {
            assert_eq!(paths(&errors), ["/level"], "{literal}: {errors:#?}");
        }
    }
    let parsed = parser.parse("READING: {\"level\": 0.1}");
    assert_eq!(parsed.payload::<Reading>().unwrap().level, 0.1);
}

#[test]
fn floats_a_float_holds_are_accepted_as_written() {
    for literal in [
        "0.1",
        "0.10",
        "2.5e-3",
        "1.7976931348623157e308",
        "-0.0",
        "5e-324",
    ] {
        let json = format!(r#"{{"row_id": 1, "estimate": {literal}}}"#);
        let parsed = marker("TASK_UPDATE", &json);
        assert!(parsed.rejected.is_empty(), "{literal}: {parsed:#?}");
        let result = whole::<TaskUpdate>(&json);
        assert!(result.success, "{literal}: {result:?}");
        let expected: f64 = literal.parse().unwrap();
        assert_eq!(result.data.unwrap()["estimate"].as_f64(), Some(expected));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// No accepted number differs from its literal: a float literal of any digits and
    /// exponent is accepted with the value it spells (the float prints back as the
    /// same decimal), or refused with an error at its path, in both modes.
    #[test]
    fn no_float_is_changed_silently(
        int in "[0-9]{1,25}",
        frac in "[0-9]{0,25}",
        exponent in -420i32..420,
    ) {
        let int = match int.trim_start_matches('0') {
            "" => "0".to_string(),
            rest => rest.to_string(),
        };
        let literal = format!("{int}.{frac}0e{exponent}");
        let json = format!(r#"{{"row_id": 1, "estimate": {literal}}}"#);
        let written = payload_benches::json_invariants::decimal(&literal).unwrap();
        let parsed = marker("TASK_UPDATE", &json);
        let whole = whole::<TaskUpdate>(&json);
        for (accepted, errors) in [
            (parsed.custom_payload.as_ref().map(|p| p.data().clone()), parsed.rejected.first().map(|r| r.errors.clone()).unwrap_or_default()),
            (whole.data.clone(), whole.errors.clone()),
        ] {
            match accepted {
                Some(data) => {
                    let held = data["estimate"].as_f64().unwrap();
                    prop_assert_eq!(
                        payload_benches::json_invariants::decimal(&format!("{held:e}")).unwrap(),
                        written.clone(),
                        "{} accepted as {}", literal, held
                    );
                }
                // Too large for any float: a parsing error at the literal instead.
                None if errors.len() == 1 && errors[0].kind() == ErrorKind::Parsing => {
                    prop_assert!(written.2 >= 309, "{}: {:#?}", literal, errors);
                }
                None => prop_assert_eq!(paths(&errors), ["/estimate"], "{}: {:#?}", literal, errors),
            }
        }
    }
}

/// Values that are wrong for a member in every way a model gets one wrong.
fn wrong_values() -> Vec<Value> {
    let digits: Value = serde_json::from_str(&format!("1{}", "0".repeat(299))).unwrap();
    vec![
        json!(null),
        json!(true),
        json!("yes"),
        json!("N/A"),
        json!(-1),
        json!(1.5),
        json!(1e20),
        digits,
        json!(4294967296u64),
        json!([1, "two"]),
        json!({"nested": 1}),
        json!(""),
    ]
}

#[test]
fn no_error_about_a_member_has_an_empty_path() {
    let example = serde_json::to_value(task_example()).unwrap();
    let Value::Object(members) = example else {
        panic!("the example is an object")
    };
    for name in members.keys() {
        for wrong in wrong_values() {
            let mut value = members.clone();
            value.insert(name.clone(), wrong.clone());
            let json = Value::Object(value).to_string();
            let marker_errors = marker("TASK_UPDATE", &json)
                .rejected
                .first()
                .map(|r| r.errors.clone())
                .unwrap_or_default();
            let whole_errors = whole::<TaskUpdate>(&json).errors;
            for error in marker_errors.iter().chain(&whole_errors) {
                assert!(
                    error.path().starts_with(&format!("/{name}")),
                    "{name} = {wrong}: {error:#?}"
                );
            }
        }
    }
}

// ---- §7.4 coercion, whole-response mode only ------------------------------------

#[test]
fn coercion_accepts_what_needs_no_guess_and_reports_each_fix() {
    let json = r#"{"rowId": "42", "Title": "Plants", "priority": "High", "labels": "home",
                   "done": "true", "estimate": "0.5", "views": 3.0}"#;
    let result = whole::<TaskUpdate>(json);
    assert!(result.success, "{:#?}", result.errors);
    assert_eq!(
        result.decode::<TaskUpdate>().unwrap(),
        TaskUpdate {
            row_id: 42,
            views: 3,
            labels: vec!["home".into()],
            title: Some("Plants".into()),
            priority: Some(Priority::High),
            done: Some(true),
            estimate: Some(0.5),
        }
    );
    let coerced: Vec<&str> = result
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Coerced)
        .map(|w| w.message.as_str())
        .collect();
    for named in [
        "/views",
        "\"rowId\"",
        "\"Title\"",
        "/row_id",
        "/priority",
        "/labels",
        "/done",
        "/estimate",
    ] {
        assert!(
            coerced.iter().any(|m| m.contains(named)),
            "{named} in {coerced:#?}"
        );
    }

    // Marker mode never coerces: the same block is rejected.
    let errors = rejected(&marker("TASK_UPDATE", json)).to_vec();
    assert!(errors.len() >= 5, "{errors:#?}");
}

#[test]
fn coercion_refuses_anything_that_needs_a_guess() {
    let refused = [
        (r#"{"row_id": "042"}"#, "/row_id"),
        (r#"{"row_id": "1,000"}"#, "/row_id"),
        (r#"{"row_id": "N/A"}"#, "/row_id"),
        (r#"{"row_id": "3.5"}"#, "/row_id"),
        (r#"{"row_id": "+3"}"#, "/row_id"),
        (r#"{"row_id": 1, "estimate": "50%"}"#, "/estimate"),
        (r#"{"row_id": 1, "estimate": "about 2"}"#, "/estimate"),
        (r#"{"row_id": 1, "done": "yes"}"#, "/done"),
        (r#"{"row_id": 1, "done": "no"}"#, "/done"),
        (r#"{"row_id": 1, "done": "1"}"#, "/done"),
        (r#"{"row_id": 1, "priority": "urgent"}"#, "/priority"),
        (r#"{"row_id": 1, "priority": "hi"}"#, "/priority"),
    ];
    for (json, path) in refused {
        let result = whole::<TaskUpdate>(json);
        assert!(!result.success, "{json} was accepted: {:?}", result.data);
        assert_eq!(
            paths(&result.errors),
            [path],
            "{json}: {:#?}",
            result.errors
        );
    }
}

// ---- §8.1 bounded errors ------------------------------------------------------------

fn assert_bounded(errors: &[PayloadError], count: usize) {
    assert_eq!(errors.len(), 101, "{:#?}", &errors[..3.min(errors.len())]);
    assert_eq!(errors[0].path(), "/operations/0/action");
    assert_eq!(errors[0].kind(), ErrorKind::Missing);
    // Two members are missing from each operation; 100 are listed.
    let rest = 2 * count - 100;
    assert!(
        errors[100]
            .message()
            .starts_with(&format!("{rest} more problems")),
        "{}",
        errors[100].message()
    );
}

#[test]
fn four_hundred_thousand_failing_items_give_a_hundred_errors_and_a_count() {
    let count = 400_000;
    let text = payload_benches::empty_operations(count);
    assert!(text.len() > 1_150_000);
    assert_bounded(&whole::<Plan>(&text).errors, count);
    assert_bounded(rejected(&marker("PLAN", &text)), count);
}

#[test]
fn a_hundred_thousand_invented_members_give_a_hundred_warnings_and_a_count() {
    let mut text = String::from("{\"row_id\": 1");
    for i in 0..100_000 {
        text.push_str(&format!(", \"invented_{i}\": {i}"));
    }
    text.push('}');
    let parsed = marker("TASK_UPDATE", &text);
    assert!(parsed.custom_payload.is_some(), "{:#?}", parsed.rejected);
    let result = whole::<TaskUpdate>(&text);
    assert!(result.success, "{:#?}", result.errors);
    for warnings in [&parsed.warnings, &result.warnings] {
        assert_eq!(warnings.len(), 101);
        assert!(
            warnings[..100]
                .iter()
                .all(|w| w.kind == WarningKind::UnknownMember)
        );
        assert_eq!(warnings[100].kind, WarningKind::Omitted);
        assert!(
            warnings[100].message.starts_with("99900 more"),
            "{}",
            warnings[100].message
        );
    }
}

// ---- every member is kept, warned about, or an error -----------------------------

/// Keys a model might add: invented names, and case, separator and typo variants of
/// the declared ones.
fn extra_key() -> impl Strategy<Value = String> {
    let declared = [
        "row_id", "views", "labels", "title", "priority", "done", "estimate",
    ];
    prop_oneof![
        "[a-zA-Z][a-zA-Z_]{0,11}",
        (0..declared.len(), 0..4usize, 0..8usize).prop_map(move |(which, how, at)| {
            let name = declared[which];
            let at = at % name.len();
            match how {
                0 => name.to_uppercase(),
                1 => name.replace('_', "-"),
                2 => format!("{}{}", &name[..at], &name[at + 1..]),
                _ => {
                    let mut chars: Vec<char> = name.chars().collect();
                    let next = (at + 1).min(chars.len() - 1);
                    chars.swap(at, next);
                    chars.into_iter().collect()
                }
            }
        }),
    ]
}

fn extra_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-z ]{0,8}".prop_map(Value::from),
        Just(json!(["a"])),
    ]
}

/// The members of the input that neither the decoded value holds nor a warning or
/// error names.
fn unaccounted(
    input: &Map<String, Value>,
    decoded: Option<Value>,
    notes: &[String],
) -> Vec<String> {
    input
        .keys()
        .filter(|key| {
            let kept = decoded.as_ref().and_then(|d| d.get(key.as_str())).is_some();
            let named = notes.iter().any(|note| {
                note.contains(&format!("'{key}'"))
                    || note.contains(&format!("\"{key}\""))
                    || note.contains(&format!("/{key}"))
            });
            !kept && !named
        })
        .cloned()
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_member_is_dropped_silently(extras in prop::collection::vec((extra_key(), extra_value()), 1..5)) {
        let Value::Object(mut input) = serde_json::to_value(task_example()).unwrap() else {
            unreachable!("the example is an object")
        };
        for (key, value) in extras {
            input.entry(key).or_insert(value);
        }
        let json = Value::Object(input.clone()).to_string();

        let parsed = marker("TASK_UPDATE", &json);
        match &parsed.custom_payload {
            Some(payload) => {
                let decoded = serde_json::from_value::<TaskUpdate>(payload.data().clone())
                    .ok()
                    .and_then(|t| serde_json::to_value(t).ok());
                let notes: Vec<String> = parsed.warnings.iter().map(|w| w.message.clone()).collect();
                let lost = unaccounted(&input, decoded, &notes);
                prop_assert!(lost.is_empty(), "marker mode lost {:?} of {}", lost, json);
            }
            None => {
                // Rejected: nothing is accepted, and every error names its member.
                let errors = &parsed.rejected[0].errors;
                prop_assert!(!errors.is_empty());
                prop_assert!(errors.iter().all(|e| !e.path().is_empty()), "{:#?}", errors);
            }
        }

        let result = whole::<TaskUpdate>(&json);
        if result.success {
            let decoded = result.decode::<TaskUpdate>().and_then(|t| serde_json::to_value(t).ok());
            let notes: Vec<String> = result.warnings.iter().map(|w| w.message.clone()).collect();
            let lost = unaccounted(&input, decoded, &notes);
            prop_assert!(lost.is_empty(), "whole-response mode lost {:?} of {}", lost, json);
        } else {
            prop_assert!(!result.errors.is_empty());
        }
    }
}
