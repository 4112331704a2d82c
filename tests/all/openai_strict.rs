//! The `openai-strict` dialect over every registered payload type: each has a schema
//! that keeps OpenAI's strict-mode rules (checked by rules written from the documented
//! list, `openai_strict/rules.rs`), or a refusal that names the feature it lacks; and
//! values written the strict way (`null` for what a type leaves out) validate under the
//! strict schema and, with `PayloadType::strict_nulls`, here.

#[path = "openai_strict/rules.rs"]
mod rules;
#[path = "openai_strict/strict_form.rs"]
mod strict_form;

use output_schema::AnalysisResult;
use payload_core::formats::Format;
use payload_core::{
    LlmPayload, PayloadType, extract_as_with, limits::Limits, schema::Dialect,
    schema::StrictRefusalKind,
};
use payload_registry::Registry;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use payload_tests as _;

/// The registered types that have a strict schema.
const STRICT: [&str; 10] = [
    "analysis_result",
    "assess_answerability",
    "classify_document_with_rationale",
    "generate_answer",
    "generate_answer_with_confidence",
    "generate_answers_with_confidence",
    "paraphrase_questions",
    "ragas",
    "rate_context",
    "search_refinement",
];

/// The registered types that have none, why, and a word the reason must say.
const REFUSED: [(&str, StrictRefusalKind, &str); 7] = [
    (
        "contacts_command",
        StrictRefusalKind::UnionBesideMembers,
        "flattened enum",
    ),
    (
        "data_proposal",
        StrictRefusalKind::FreeFormMap,
        "free-form map",
    ),
    (
        "schema_proposal",
        StrictRefusalKind::NotAnObjectRoot,
        "union of variants",
    ),
    (
        "selfhelp_response",
        StrictRefusalKind::UnsupportedKeyword,
        "minLength",
    ),
    (
        "suggested_actions",
        StrictRefusalKind::NotAnObjectRoot,
        "array",
    ),
    (
        "suggested_values",
        StrictRefusalKind::NotAnObjectRoot,
        "array",
    ),
    (
        "task_plan",
        StrictRefusalKind::UnsupportedKeyword,
        "minLength",
    ),
];

fn registered() -> Vec<&'static PayloadType> {
    Registry::global().types().collect()
}

fn strict_validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("the strict schema compiles: {e}"))
}

#[test]
fn every_registered_type_is_strict_or_says_why() {
    let types = registered();
    assert_eq!(
        types.len(),
        STRICT.len() + REFUSED.len(),
        "every type is expected"
    );
    let mut strict = Vec::new();
    for payload in &types {
        let best_effort = payload.schema(Dialect::OpenAiStrict);
        match payload.strict_schema() {
            Ok(schema) => {
                let broken = rules::violations(&schema);
                assert!(broken.is_empty(), "{}: {broken:#?}", payload.name);
                assert_eq!(schema, best_effort, "{}: one strict schema", payload.name);
                strict_validator(&schema);
                strict.push(payload.name);
            }
            Err(refusal) => {
                let (_, kind, feature) = REFUSED
                    .iter()
                    .find(|(name, ..)| *name == payload.name)
                    .unwrap_or_else(|| panic!("{} was expected strict: {refusal}", payload.name));
                assert_eq!(refusal.kind, *kind, "{}: {refusal}", payload.name);
                assert!(
                    refusal.to_string().contains(feature),
                    "{}: {refusal}",
                    payload.name
                );
                // The refusal is not a false alarm: the best effort breaks a rule.
                assert!(
                    !rules::violations(&best_effort).is_empty(),
                    "{}: refused, yet its best effort is strict",
                    payload.name
                );
            }
        }
    }
    strict.sort_unstable();
    println!(
        "{} of {} registered types are strict-capable: {strict:?}",
        strict.len(),
        types.len()
    );
    assert_eq!(strict, STRICT);
}

/// `example` without the top-level members its schema does not require, when the type
/// still takes it that way (its own rules may need some of them).
fn sparse(payload: &PayloadType, example: &Value) -> Option<Value> {
    let schema = payload.schema(Dialect::Draft2020_12);
    let required = schema.get("required")?.as_array()?;
    let mut sparse = example.as_object()?.clone();
    sparse.retain(|name, _| required.iter().any(|r| r == name.as_str()));
    let sparse = Value::Object(sparse);
    (sparse != *example && payload.validate(&sparse).is_ok()).then_some(sparse)
}

/// Checks `value` (valid for `payload`) written the strict way: valid under the strict
/// schema when there is one, and here with the opt-in, on the validate and extract
/// paths. Returns whether the plain descriptor refuses the strict form.
fn check_strict_form(payload: &PayloadType, value: &Value) -> bool {
    let form = strict_form::of(value, &payload.schema(Dialect::Draft2020_12));
    if let Ok(schema) = payload.strict_schema() {
        let validator = strict_validator(&schema);
        let errors: Vec<String> = validator
            .iter_errors(&form)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {form}\n{errors:#?}", payload.name);
    }
    let reading = payload.strict_nulls();
    assert!(reading.reads_strict_nulls() && !payload.reads_strict_nulls());
    if let Err(errors) = reading.validate(&form) {
        panic!("{}: {form}\n{errors:#?}", payload.name);
    }
    let text = form.to_string();
    let result = extract_as_with(&text, &reading, Some(Format::Json), Limits::DEFAULT);
    assert!(result.success, "{}: {:#?}", payload.name, result.errors);
    payload.validate(&form).is_err()
}

#[test]
fn examples_written_the_strict_way_validate_strictly_and_here() {
    let (mut examples, mut sparse_ones, mut need_opt_in) = (0, 0, 0);
    for payload in registered() {
        let Some(example) = payload.example() else {
            continue;
        };
        examples += 1;
        if check_strict_form(payload, &example) {
            need_opt_in += 1;
        }
        if let Some(sparse) = sparse(payload, &example) {
            sparse_ones += 1;
            if check_strict_form(payload, &sparse) {
                need_opt_in += 1;
            }
        }
    }
    println!(
        "{examples} examples, {sparse_ones} sparse ones, {need_opt_in} strict forms need the opt-in"
    );
    assert_eq!(
        examples,
        registered().len(),
        "every registered type has an example"
    );
    assert!(
        sparse_ones > 0 && need_opt_in > 0,
        "the opt-in is exercised"
    );
}

#[test]
fn without_the_opt_in_a_null_for_an_optional_list_is_refused() {
    let form = json!({"analysis": "a", "confidence": null, "recommendations": null});
    let plain = AnalysisResult::TYPE;
    assert!(
        plain.validate(&form).is_err(),
        "behaviour without the opt-in is unchanged"
    );
    plain
        .strict_nulls()
        .validate(&form)
        .expect("valid with the opt-in");
    let result = extract_as_with(
        &form.to_string(),
        &plain.strict_nulls(),
        None,
        Limits::DEFAULT,
    );
    assert_eq!(
        result.data,
        Some(json!({"analysis": "a", "confidence": null}))
    );
    let decoded: AnalysisResult = result.decode().expect("decodes");
    assert!(decoded.recommendations.is_empty());
    // A required member's null is never taken as absent.
    let missing = json!({"analysis": null, "confidence": null, "recommendations": null});
    assert!(plain.strict_nulls().validate(&missing).is_err());
}

#[test]
fn the_cli_prints_the_reason_a_type_is_not_strict() {
    let mut out = Vec::new();
    let args = [
        "payload",
        "schema",
        "task_plan",
        "--dialect",
        "openai-strict",
    ];
    let error = payload_cli::run(args, Registry::global(), &mut out).expect_err("refused");
    // The error's own words, then its cause (`source()`): printed once each.
    assert_eq!(
        error.to_string(),
        "payload type 'task_plan' has no OpenAI strict schema"
    );
    let cause = std::error::Error::source(&error).expect("the refusal");
    assert!(!error.to_string().contains(&cause.to_string()));
    assert_eq!(
        error.chain(),
        "payload type 'task_plan' has no OpenAI strict schema: `minLength` cannot be strict, \
         and dropping it would change what is accepted (at /properties/task/minLength)"
    );
    assert!(out.is_empty(), "nothing printed on stdout");
    let args = [
        "payload",
        "schema",
        "rate_context",
        "--dialect",
        "openai-strict",
    ];
    payload_cli::run(args, Registry::global(), &mut out).expect("strict");
    let printed: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(printed["properties"]["context_score"]["maximum"], 5);
}

/// A ticket with optional members of every kind: a number, a list with a default, a
/// nested object (itself with an optional member) and an enum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "TICKET")]
struct Ticket {
    /// The title.
    title: String,
    /// Priority, 0 to 255.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    priority: Option<u8>,
    /// Labels.
    #[serde(default)]
    labels: Vec<String>,
    /// Who owns it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<Owner>,
    /// Where it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<Status>,
}

/// A ticket's owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Owner {
    /// The owner's name.
    name: String,
    /// Their email, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    email: Option<String>,
}

/// Where a ticket stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    /// Not done.
    Open,
    /// Done.
    Closed,
}

fn ticket() -> impl Strategy<Value = Ticket> {
    let owner = ("[a-z]{1,8}", proptest::option::of("[a-z]{1,5}@x\\.org"))
        .prop_map(|(name, email)| Owner { name, email });
    let status = prop_oneof![Just(Status::Open), Just(Status::Closed)];
    (
        "[ -~]{0,12}",
        proptest::option::of(any::<u8>()),
        proptest::collection::vec("[a-z]{0,4}", 0..3),
        proptest::option::of(owner),
        proptest::option::of(status),
    )
        .prop_map(|(title, priority, labels, owner, status)| Ticket {
            title,
            priority,
            labels,
            owner,
            status,
        })
}

fn analysis() -> impl Strategy<Value = AnalysisResult> {
    (
        "[ -~]{0,12}",
        proptest::option::of(0.0f64..=1.0),
        proptest::collection::vec("[a-z]{0,4}", 0..3),
    )
        .prop_map(|(analysis, confidence, recommendations)| AnalysisResult {
            analysis,
            confidence,
            recommendations,
        })
}

/// Writes `value` the strict way, checks it against the strict schema, and reads it
/// back with the opt-in: the decoded value is the one written.
fn strict_round_trip<T: LlmPayload + PartialEq + std::fmt::Debug>(value: &T) {
    let payload = T::TYPE;
    let json = serde_json::to_value(value).unwrap();
    let form = strict_form::of(&json, &payload.schema(Dialect::Draft2020_12));
    let schema = payload.strict_schema().expect("strict");
    assert!(strict_validator(&schema).is_valid(&form), "{form}");
    let result = extract_as_with(
        &form.to_string(),
        &payload.strict_nulls(),
        Some(Format::Json),
        Limits::DEFAULT,
    );
    assert!(result.success, "{form}: {:#?}", result.errors);
    assert_eq!(result.decode::<T>().as_ref(), Some(value));
}

proptest! {
    #[test]
    fn tickets_round_trip_the_strict_way(value in ticket()) {
        strict_round_trip(&value);
    }

    #[test]
    fn analyses_round_trip_the_strict_way(value in analysis()) {
        strict_round_trip(&value);
    }
}

#[test]
fn the_ticket_schema_is_strict_with_every_member_required() {
    let schema = Ticket::TYPE.strict_schema().expect("strict");
    assert!(rules::violations(&schema).is_empty());
    assert_eq!(
        schema["properties"]["priority"],
        json!({"type": ["integer", "null"], "minimum": 0, "maximum": 255,
               "description": "Priority, 0 to 255."})
    );
    // A null the type's schema also takes is kept as written.
    let form =
        json!({"title": "t", "priority": null, "labels": null, "owner": null, "status": null});
    let reading = Ticket::TYPE.strict_nulls();
    assert!(reading.validate(&form).is_ok());
    assert!(Ticket::TYPE.validate(&form).is_err());
}
