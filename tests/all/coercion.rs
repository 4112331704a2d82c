//! Compiled coercion against the walk it replaced (the schema read at every node), for
//! every registered type (built-in, the example apps', the StructuredRAG corpus'
//! types): on random values, on values made of what models write where coercion acts
//! (numbers, booleans and enum values as strings, members in another case or
//! separator style, single values for lists, bare arrays), and on each type's example
//! mutated the ways models get values wrong, both give the same value, members in the
//! same order, and the same `coerced` warnings
//! (`payload_benches::json_invariants::check_coercion`).

use crate::validation_plan::{any_value, mutated, mutation, types, with_examples};
use payload_benches::json_invariants::check_coercion;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A value made of what coercion acts on, with the names and words of the registered
/// types written the ways models write them.
fn coercible_value() -> impl Strategy<Value = Value> {
    let name = prop::sample::select(vec![
        "answer",
        "Answer",
        "ANSWER",
        "confidence",
        "Confidence",
        "context_score",
        "contextScore",
        "Context-Score",
        "answerable_question",
        "AnswerableQuestion",
        "paraphrased_questions",
        "answers",
        "Answers",
        "rationale",
        "category",
        "Category",
        "faithfulness_score",
        "FaithfulnessScore",
        "row_id",
        "rowId",
        "name",
        "Name",
        "kind",
        "action",
        "x",
    ]);
    let text = prop::sample::select(vec![
        "42",
        " 7 ",
        "-3.5",
        "3.0",
        "1e2",
        "042",
        "+5",
        "N/A",
        "true",
        "True",
        "FALSE",
        "yes",
        "High",
        "low",
        "Add",
        "DELETE",
        "fiqa",
        "FiQA",
        "Quora",
        "trec_covid",
        "Trec-Covid",
        "",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec![0i64, 1, 3, 5, -1, 256]).prop_map(|n| json!(n)),
        prop::sample::select(vec![0.5, 2.0, 4.5]).prop_map(|f| json!(f)),
        text.prop_map(|t| Value::String(t.to_string())),
    ];
    leaf.prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((name.clone(), inner), 0..4).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<String, Value>>(),
                )
            }),
        ]
    })
}

/// `value` written in another style, chosen by `style`: its keys in capitals or with
/// dashes (at each level by the next digit of `style` in base 3), its numbers and
/// booleans as their text.
fn restyled(value: &Value, style: usize) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, member)| {
                    let key = match style % 3 {
                        0 => key.to_uppercase(),
                        1 => key.replace('_', "-"),
                        _ => key.clone(),
                    };
                    (key, restyled(member, style / 3))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|i| restyled(i, style)).collect()),
        Value::Number(n) if style % 2 == 0 => Value::String(n.to_string()),
        Value::Bool(b) if style % 2 == 0 => Value::String(b.to_string()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn compiled_coercion_is_the_reference_on_any_value(index in any::<prop::sample::Index>(), value in any_value()) {
        let types = types();
        check_coercion(&types[index.index(types.len())], &value);
    }

    #[test]
    fn compiled_coercion_is_the_reference_on_coercible_values(index in any::<prop::sample::Index>(), value in coercible_value()) {
        let types = types();
        check_coercion(&types[index.index(types.len())], &value);
    }

    #[test]
    fn compiled_coercion_is_the_reference_on_mutated_examples(
        index in any::<prop::sample::Index>(),
        mutations in prop::collection::vec((0usize..64, mutation()), 1..4),
        style in 0usize..27,
    ) {
        let types = with_examples(types());
        let payload = &types[index.index(types.len())];
        let value: Value = mutated(payload, &mutations);
        check_coercion(payload, &value);
        check_coercion(payload, &restyled(&value, style));
    }
}

#[test]
fn every_example_restyled_is_coerced_as_the_reference_coerces_it() {
    let types = with_examples(types());
    assert!(
        types
            .iter()
            .any(|t| t.name == "generate_answers_with_confidence"),
        "the corpus' types are registered"
    );
    for payload in &types {
        let example = payload.example().expect("an example");
        for style in 0..27 {
            check_coercion(payload, &restyled(&example, style));
        }
        if let Value::Object(members) = &example {
            // A bare array where the type wants an object of one list member.
            for member in members.values().filter(|m| m.is_array()) {
                check_coercion(payload, member);
            }
        }
    }
}
