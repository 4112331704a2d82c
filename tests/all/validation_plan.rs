//! The compiled validation plan against the validator and the walk after validation,
//! for every registered type (built-in and the example apps'): on random values and on
//! each type's example mutated the ways models get values wrong, the plan says clean
//! only of a valid value with nothing to report, invalid only of a value the validator
//! refuses, and "report" only of one refused or reported
//! (`payload_benches::json_invariants::check_plan`). And it is not idle: it finds the
//! examples of the types the benchmarks parse clean.
//!
//! On the same values, the alias test's questions get the full decode's answers: "why
//! does serde refuse this?" the words of its first error, "what does serde read?" its
//! roundtrip (`Decoder::refusal` and `Decoder::roundtrip` skip only the second,
//! path-tracking decode and the rules the answer does not depend on), and the lazy step 0 of validation (the schema's
//! errors built only when a candidate name needs them) finds what the eager one finds:
//! the same value, errors and warnings.

use payload_benches::json_invariants::{check_lazy_step_0, check_plan};
use payload_core::__internals::decode::{refusals, roundtrips};
use payload_core::__internals::plan::Verdict;
use payload_core::{
    ErrorKind, LlmPayload, ParseOptions, PayloadError, PayloadType, extract_json, parse,
};
use payload_registry::Registry;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value, json};

pub(crate) fn types() -> Vec<PayloadType> {
    Registry::global().types().copied().collect()
}

/// The registered types and [`Shopping`], whose members have serde aliases.
fn types_with_aliases() -> Vec<PayloadType> {
    let mut all = types();
    all.push(Shopping::TYPE);
    all
}

/// A shopping list whose members models also spell other ways (serde aliases, one
/// required, two optional, one nested in a list), and whose `kind` can be wrong beside
/// an alias: what validation's step 0 renames.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "SHOPPING", example = shopping)]
struct Shopping {
    /// What to buy.
    items: Vec<Item>,
    /// A note, which models also call a remark.
    #[serde(default, alias = "remark")]
    note: Option<String>,
}

/// One thing to buy.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Item {
    /// Its name.
    name: String,
    /// How much, which models also write `qty`.
    #[serde(alias = "qty")]
    quantity: f64,
    /// How long it keeps, in minutes, which models also write `mins`.
    #[serde(default, alias = "mins")]
    minutes: Option<u32>,
    /// Fresh or frozen.
    kind: Kind,
}

/// How an item is kept.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// Kept cool.
    Fresh,
    /// Kept frozen.
    Frozen,
}

/// A [`Shopping`] list as models write them: each member under its name, an alias, a
/// near miss or another name, with a value that may be wrong.
fn shopping_list() -> impl Strategy<Value = Value> {
    let spelled = |names: &[&'static str]| prop::sample::select(names.to_vec());
    let item = (
        spelled(&["name", "Name", "nme"]),
        spelled(&["quantity", "qty", "Quantity", "QTY", "amount"]),
        prop::sample::select(vec![json!(2), json!(2.5), json!("2"), json!("two")]),
        spelled(&["minutes", "mins", "Minutes", "time"]),
        prop::sample::select(vec![
            json!("fresh"),
            json!("Frozen"),
            json!("thawed"),
            json!(3),
        ]),
    )
        .prop_map(|(name, quantity, amount, minutes, kind)| {
            let mut item = Map::new();
            item.insert(name.to_string(), json!("eggs"));
            item.insert(quantity.to_string(), amount);
            item.insert(minutes.to_string(), json!(30));
            item.insert("kind".to_string(), kind);
            Value::Object(item)
        });
    (
        prop::collection::vec(item, 0..4),
        prop::option::of(spelled(&["note", "remark", "Note", "notes"])),
    )
        .prop_map(|(items, note)| {
            let mut list = Map::new();
            list.insert("items".to_string(), Value::Array(items));
            if let Some(note) = note {
                list.insert(note.to_string(), json!("before noon"));
            }
            Value::Object(list)
        })
}

/// The example of [`Shopping`].
fn shopping() -> Shopping {
    let item = |name: &str, quantity: f64, kind: Kind| Item {
        name: name.to_string(),
        quantity,
        minutes: Some(30),
        kind,
    };
    Shopping {
        items: vec![
            item("eggs", 6.0, Kind::Fresh),
            item("peas", 0.5, Kind::Frozen),
        ],
        note: Some("before noon".to_string()),
    }
}

/// Any JSON value, small, with the names and words payload types use.
pub(crate) fn any_value() -> impl Strategy<Value = Value> {
    let word = prop::sample::select(vec![
        "add",
        "update",
        "delete",
        "move",
        "name",
        "label",
        "value",
        "row_id",
        "Stage",
        "",
        "2024-03-01",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        prop::sample::select(vec![0i64, 1, 2, 3, -1, 255, 256, 1000, 1001]).prop_map(|n| json!(n)),
        prop::sample::select(vec![0.5, 1.0, 2.0, 1e20, 0.123_456_789, -3.0])
            .prop_map(|f| Value::Number(Number::from_f64(f).expect("finite"))),
        word.clone().prop_map(|w| Value::String(w.to_string())),
    ];
    leaf.prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((word.clone(), inner), 0..4).prop_map(|members| {
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

/// One way a model gets a value wrong, applied at the `at`-th node (in pre-order).
#[derive(Debug, Clone)]
pub(crate) enum Mutation {
    Replace(Value),
    RemoveMember,
    AddMember(String, Value),
    IntegerAsFloat,
    DuplicateItem,
    RemoveItem,
    /// The `n`-th member (modulo their count) renamed in place, to an alias or a near
    /// miss of a member.
    RenameMember(usize, String),
}

/// Names a model writes for members: serde aliases of the registered types (`qty`,
/// `mins`), other spellings of their members, and names no type declares.
pub(crate) fn member_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "qty",
        "mins",
        "remark",
        "kind",
        "Quantity",
        "QTY",
        "Name",
        "name",
        "Answer",
        "confidence",
        "Title",
        "row_id",
        "rowId",
        "label",
        "x",
    ])
    .prop_map(str::to_string)
}

pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any_value().prop_map(Mutation::Replace),
        Just(Mutation::RemoveMember),
        ("[a-z_]{1,8}", any_value()).prop_map(|(k, v)| Mutation::AddMember(k, v)),
        Just(Mutation::IntegerAsFloat),
        Just(Mutation::DuplicateItem),
        Just(Mutation::RemoveItem),
        (0usize..4, member_name()).prop_map(|(n, to)| Mutation::RenameMember(n, to)),
    ]
}

/// Applies `mutation` at the `at`-th node of `value`; whether a node took it.
fn mutate(value: &mut Value, at: &mut usize, mutation: &Mutation) -> bool {
    if *at == 0 {
        let took = match (mutation, &mut *value) {
            (Mutation::Replace(new), _) => {
                *value = new.clone();
                true
            }
            (Mutation::RemoveMember, Value::Object(members)) => {
                let first = members.keys().next().cloned();
                first.is_some_and(|key| members.remove(&key).is_some())
            }
            (Mutation::AddMember(key, new), Value::Object(members)) => {
                members.insert(key.clone(), new.clone());
                true
            }
            (Mutation::IntegerAsFloat, Value::Number(n)) => match n.as_i64() {
                Some(i) => {
                    *value = json!(i as f64);
                    true
                }
                None => false,
            },
            (Mutation::DuplicateItem, Value::Array(items)) if !items.is_empty() => {
                items.push(items[0].clone());
                true
            }
            (Mutation::RemoveItem, Value::Array(items)) => items.pop().is_some(),
            (Mutation::RenameMember(n, to), Value::Object(members)) => {
                let Some(from) = members.keys().nth(n % members.len().max(1)).cloned() else {
                    return false;
                };
                let renamed: Map<String, Value> = std::mem::take(members)
                    .into_iter()
                    .map(|(key, member)| {
                        if key == from {
                            (to.clone(), member)
                        } else {
                            (key, member)
                        }
                    })
                    .collect();
                *members = renamed;
                true
            }
            _ => false,
        };
        *at = usize::MAX;
        return took;
    }
    *at -= 1;
    match value {
        Value::Array(items) => items.iter_mut().any(|item| mutate(item, at, mutation)),
        Value::Object(members) => members
            .values_mut()
            .any(|member| mutate(member, at, mutation)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_plan_agrees_with_the_validator_on_any_value(index in any::<prop::sample::Index>(), value in any_value()) {
        let types = types();
        check_plan(&types[index.index(types.len())], &value);
    }

    #[test]
    fn the_alias_test_reads_what_the_full_decode_reads_on_any_value(index in any::<prop::sample::Index>(), value in any_value()) {
        let types = types();
        decoder_agrees(&types[index.index(types.len())], &value);
    }

    #[test]
    fn the_alias_test_reads_what_the_full_decode_reads_on_mutated_examples(
        index in any::<prop::sample::Index>(),
        mutations in prop::collection::vec((0usize..64, mutation()), 1..4),
    ) {
        let types = with_examples(types());
        let payload = &types[index.index(types.len())];
        decoder_agrees(payload, &mutated(payload, &mutations));
    }

    #[test]
    fn the_lazy_step_0_finds_what_the_eager_one_finds_on_any_value(index in any::<prop::sample::Index>(), value in any_value()) {
        let types = types_with_aliases();
        check_lazy_step_0(&types[index.index(types.len())], &value);
    }

    #[test]
    fn the_lazy_step_0_finds_what_the_eager_one_finds_on_mutated_examples(
        index in any::<prop::sample::Index>(),
        mutations in prop::collection::vec((0usize..64, mutation()), 1..6),
    ) {
        let types = with_examples(types_with_aliases());
        let payload = &types[index.index(types.len())];
        check_lazy_step_0(payload, &mutated(payload, &mutations));
    }

    #[test]
    fn the_lazy_step_0_finds_what_the_eager_one_finds_on_shopping_lists(value in shopping_list()) {
        check_lazy_step_0(&Shopping::TYPE, &value);
    }

    #[test]
    fn an_alias_is_never_missing_or_unknown_whatever_its_value(value in shopping_list()) {
        alias_is_read(&value);
    }

    #[test]
    fn the_plan_agrees_with_the_validator_on_mutated_examples(
        index in any::<prop::sample::Index>(),
        mutations in prop::collection::vec((0usize..64, mutation()), 1..4),
    ) {
        let types = with_examples(types());
        let payload = &types[index.index(types.len())];
        check_plan(payload, &mutated(payload, &mutations));
    }
}

/// Where a [`Shopping`] list writes a member under its serde alias, whatever that
/// member's value and whatever else is wrong, no error says the member is missing and
/// nothing (error or warning) calls the alias unknown, in either mode (docs/values.md):
/// the model is told about the value it wrote, not asked again for a member it wrote.
fn alias_is_read(value: &Value) {
    const ALIASES: [(&str, &str); 3] =
        [("qty", "quantity"), ("mins", "minutes"), ("remark", "note")];
    let whole = extract_json(&value.to_string(), &Shopping::TYPE);
    let parsed = parse(
        &format!("{}: {value}", Shopping::MARKER),
        &ParseOptions::new().payload(Shopping::TYPE),
    );
    let errors: Vec<&PayloadError> = whole
        .errors
        .iter()
        .chain(parsed.rejected.iter().flat_map(|rejected| &rejected.errors))
        .collect();
    let warnings: Vec<&str> = whole
        .warnings
        .iter()
        .chain(&parsed.warnings)
        .map(|warning| warning.message.as_str())
        .collect();
    let mut objects = vec![(String::new(), value)];
    if let Some(Value::Array(items)) = value.get("items") {
        objects.extend(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| (format!("/items/{i}"), item)),
        );
    }
    for (object, members) in objects {
        for (alias, main) in ALIASES {
            if members.get(alias).is_none() {
                continue;
            }
            let at_alias = format!("{object}/{alias}");
            let at_main = format!("{object}/{main}");
            for error in &errors {
                assert!(
                    error.path() != at_alias
                        && !(error.path() == at_main && error.kind() == ErrorKind::Missing),
                    "{value}: {error:#?}"
                );
            }
            let quoted = format!("'{alias}'");
            for warning in &warnings {
                assert!(!warning.contains(&quoted), "{value}: {warning}");
            }
        }
    }
}

/// Those of `types` that have an example.
pub(crate) fn with_examples(types: Vec<PayloadType>) -> Vec<PayloadType> {
    types
        .into_iter()
        .filter(|t| t.example().is_some())
        .collect()
}

/// The alias test's `Decoder` answers (a refusal's words, a roundtrip) are what the
/// full decode says of `value`.
fn decoder_agrees(payload: &PayloadType, value: &Value) {
    let (refusal, full) = refusals(payload, value);
    assert_eq!(refusal, full);
    let (roundtrip, full) = roundtrips(payload, value);
    assert_eq!(roundtrip, full);
}

/// The example of `payload` (which has one) with `mutations` applied.
pub(crate) fn mutated(payload: &PayloadType, mutations: &[(usize, Mutation)]) -> Value {
    let mut value = payload.example().expect("an example");
    for (at, mutation) in mutations {
        let mut at = *at;
        mutate(&mut value, &mut at, mutation);
    }
    value
}

#[test]
fn every_example_agrees_and_the_benchmarked_types_are_clean() {
    let mut clean = Vec::new();
    for payload in types() {
        let Some(example) = payload.example() else {
            continue;
        };
        if check_plan(&payload, &example).verdict == Verdict::Clean {
            clean.push(payload.name);
        }
    }
    for name in [
        "data_proposal",
        "schema_proposal",
        "suggested_values",
        "suggested_actions",
    ] {
        assert!(clean.contains(&name), "{name} is not clean: {clean:?}");
    }
}
