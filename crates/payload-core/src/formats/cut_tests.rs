//! The truncation guarantee as a property (docs/spec.md §4.5): a well-formed rendered value,
//! cut at any point, is never read as valid data without a word. Each cut is either
//! refused, read with a `possibly_truncated` warning (formats without an end marker),
//! or read as exactly the whole value (the cut took only decoration, such as the last
//! `-` of an END line, that carries no data).

use super::tests::analysis_schema;
use super::*;
use crate::warning::WarningKind;
use proptest::prelude::*;
use serde_json::json;

/// A schema without `x-format`: delimited sections get END lines, markdown nests the
/// owner's fields under its header, XML has the default root.
fn plain_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "count": {"type": "integer"},
            "owner": {"$ref": "#/$defs/Owner"},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["title", "count"],
        "$defs": {"Owner": {"type": "object", "properties": {
            "name": {"type": "string"}, "note": {"type": "string"}}}}
    })
}

/// The analysis schema with END lines configured for delimited sections.
fn ended_schema() -> Value {
    let mut schema = analysis_schema();
    schema["x-format"]["delimited"] =
        json!({"section-pattern": "<<{NAME}>>", "end-pattern": "<</{NAME}>>"});
    schema
}

fn words() -> impl Strategy<Value = String> {
    prop::collection::vec("[A-Za-z][a-z]{0,6}", 1..4).prop_map(|w| w.join(" "))
}

fn analysis_value() -> impl Strategy<Value = Value> {
    (words(), 0u32..=100, prop::collection::vec(words(), 0..4)).prop_map(|(a, c, r)| {
        json!({"analysis": a, "confidence": f64::from(c) / 100.0, "recommendations": r})
    })
}

fn plain_value() -> impl Strategy<Value = Value> {
    (
        words(),
        0u32..100_000,
        words(),
        words(),
        prop::collection::vec(words(), 0..3),
    )
        .prop_map(|(title, count, name, note, tags)| {
            json!({"title": title, "count": count, "owner": {"name": name, "note": note},
                   "tags": tags})
        })
}

const TEXT_FORMATS: [Format; 4] = [
    Format::Xml,
    Format::Delimited,
    Format::Tagged,
    Format::Markdown,
];

/// Checks every cut of `value` rendered in each format.
fn check_every_cut(schema: &Value, value: &Value) -> Result<(), TestCaseError> {
    for format in TEXT_FORMATS {
        let text = render(format, value, schema);
        let whole = read_as(format, &text, schema);
        let full = match &whole.result {
            Ok(full) => full.clone(),
            Err(failure) => {
                return Err(TestCaseError::fail(format!(
                    "{format} does not read back: {failure}\n{text}"
                )));
            }
        };
        prop_assert_eq!(&full, value, "{}:\n{}", format, text);
        for cut in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let prefix = &text[..cut];
            let read = read_as(format, prefix, schema);
            let Ok(got) = &read.result else { continue };
            let flagged = read
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::PossiblyTruncated);
            prop_assert!(
                flagged || got == &full,
                "{} accepted a cut without a word:\n{}\n---> {}",
                format,
                prefix,
                got
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_cut_seed_analysis_is_never_taken_silently(value in analysis_value()) {
        check_every_cut(&analysis_schema(), &value)?;
        check_every_cut(&ended_schema(), &value)?;
    }

    #[test]
    fn a_cut_nested_value_is_never_taken_silently(value in plain_value()) {
        check_every_cut(&plain_schema(), &value)?;
    }
}

#[test]
fn the_seed_examples_cut_anywhere_are_never_taken_silently() {
    let value = json!({"analysis": "Market shows strong growth", "confidence": 0.87,
                       "recommendations": ["Buy", "Hold long-term"]});
    check_every_cut(&analysis_schema(), &value).unwrap();
    check_every_cut(&ended_schema(), &value).unwrap();
}
