//! Whole-response JSON never loses, invents or crashes (docs/spec.md §4.4, §7.2, §7.3, §8.3):
//! the cases that were found wrong, each as a test, and the guarantees as properties
//! over generated text (the same checks the fuzz targets assert, from
//! `payload_benches::json_invariants`).

use payload_benches::json_invariants::{
    check_cut_off, check_extract, check_first_value_read_once, check_json_text,
};
use payload_core::__internals::json;
use payload_core::formats::Format;
use payload_core::limits::MAX_DEPTH;
use payload_core::{ErrorKind, LlmPayload, Location, WarningKind, extract_as};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use payload_tests as _;

/// Tags and a note.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "TAGGED_NOTE")]
struct TaggedNote {
    /// The tags.
    tags: Vec<String>,
    /// A note.
    #[serde(default)]
    note: Option<String>,
}

/// Any object at all.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "ANY_OBJECT")]
struct AnyObject {
    /// Every member.
    #[serde(flatten)]
    members: Map<String, Value>,
}

/// A row with an integer id.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "ROW_REF")]
struct RowRef {
    /// The row.
    row_id: u64,
}

const ORIGIN: Location = Location { line: 1, column: 1 };

fn json_extract<T: LlmPayload>(text: &str) -> payload_core::ExtractResult {
    extract_as(text, &T::TYPE, Some(Format::Json))
}

fn has_warning(result: &payload_core::ExtractResult, kind: WarningKind) -> bool {
    result.warnings.iter().any(|w| w.kind == kind)
}

#[test]
fn tilde_and_long_backtick_fences_are_fences_in_whole_response_mode() {
    for (open, close) in [("~~~json", "~~~"), ("````json", "````"), ("~~~~", "~~~~~")] {
        for format in [Some(Format::Json), None] {
            // The fenced value is tried first ("this is it"), before one earlier in
            // the text.
            let text =
                format!("It was {{\"row_id\": 8}} before.\n{open}\n{{\"row_id\": 7}}\n{close}\n");
            let result = extract_as(&text, &RowRef::TYPE, format);
            assert!(result.success, "{open} {format:?}: {:?}", result.errors);
            assert_eq!(
                result.data.unwrap()["row_id"],
                7,
                "{open} {format:?}: the fenced value wins"
            );
        }
    }
}

#[test]
fn a_code_fence_inside_a_string_is_text() {
    let text = r#"{"tags": ["b"], "note": "example: ```{tags: ['z']}```"}"#;
    let result = json_extract::<TaggedNote>(text);
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(result.data.unwrap()["tags"], json!(["b"]));
}

#[test]
fn members_after_an_early_close_are_kept() {
    let result = json_extract::<AnyObject>(r#"{"key": "value"}, "key2": "value2"}"#);
    assert!(result.success, "{:?}", result.errors);
    assert!(has_warning(&result, WarningKind::Repaired));
    assert_eq!(
        result.data.unwrap(),
        json!({"key": "value", "key2": "value2"})
    );

    let result = json_extract::<AnyObject>(r#"{"key1": ["v1", "v2"}, "key2": ["v3", "v4"]}"#);
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(
        result.data.unwrap(),
        json!({"key1": ["v1", "v2"], "key2": ["v3", "v4"]})
    );
}

#[test]
fn an_early_close_with_no_real_end_is_an_error_not_a_smaller_value() {
    let result = json_extract::<AnyObject>(r#"{"key": "value"}, "key2": "value2""#);
    assert!(!result.success, "{:?}", result.data);
    assert_eq!(result.errors[0].kind(), ErrorKind::Truncated);
}

#[test]
fn a_member_fragment_is_never_the_answer() {
    let text = r#"{"a": 1, "b" ["x"] "c": ["y"]}"#;
    let result = json_extract::<AnyObject>(text);
    assert!(!result.success, "accepted {:?}", result.data);
}

#[test]
fn several_values_the_first_that_fits_wins_and_the_others_are_named() {
    let text = "First {\"tags\": [\"a\"]} then {\"tags\": [\"b\"]}";
    let result = json_extract::<TaggedNote>(text);
    assert_eq!(result.data.as_ref().unwrap()["tags"], json!(["a"]));
    let warning = result
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::ExtraValue)
        .expect("extra_value warning");
    assert!(warning.message.contains("column 28"), "{}", warning.message);

    // An example that does not fit comes first: the value that fits is read.
    let text = "For example {\"x\": 1}; the answer: {\"tags\": [\"b\"]}";
    let result = json_extract::<TaggedNote>(text);
    assert_eq!(result.data.as_ref().unwrap()["tags"], json!(["b"]));
    assert!(has_warning(&result, WarningKind::ExtraValue));
}

#[test]
fn the_inner_quote_rule_is_one_rule() {
    let text = r#"{"title": "6" screen", "n": 5}"#;
    let decoded = json::decode(text, ORIGIN).unwrap();
    assert_eq!(decoded.value["title"], "6\" screen");
    let result = json_extract::<AnyObject>(&format!("Here: {text} done"));
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(result.data.unwrap()["n"], 5);
}

#[test]
fn duplicate_keys_keep_the_last_value_with_a_warning() {
    for text in [
        r#"{"tags": ["a"], "tags": ["b"]}"#,
        r#"{'tags': ['a'], tags: ['b'],}"#,
    ] {
        let result = json_extract::<TaggedNote>(text);
        assert_eq!(
            result.data.as_ref().unwrap()["tags"],
            json!(["b"]),
            "{text}"
        );
        let warning = result
            .warnings
            .iter()
            .find(|w| w.kind == WarningKind::DuplicateKey)
            .expect("duplicate_key warning");
        assert!(warning.message.contains("`tags`"), "{}", warning.message);
    }
}

#[test]
fn a_huge_integer_is_an_error_at_its_path_never_a_rounded_float() {
    let text = format!("{{\"row_id\": 1{}}}", "0".repeat(299));
    let result = json_extract::<RowRef>(&text);
    assert!(!result.success);
    assert_eq!(result.errors[0].kind(), ErrorKind::Validation);
    assert_eq!(result.errors[0].path(), "/row_id");
    let decoded = json::decode(&text, ORIGIN).unwrap();
    assert_eq!(decoded.notes.inexact_paths(), ["/row_id"]);
    // A float literal is a float: no note.
    let decoded = json::decode("{\"x\": 1e300}", ORIGIN).unwrap();
    assert!(decoded.notes.is_empty());
}

#[test]
fn exactly_max_depth_levels_are_read() {
    let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(json::decode(&nest(MAX_DEPTH), ORIGIN).is_ok());
    let error = json::decode(&nest(MAX_DEPTH + 1), ORIGIN).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Parsing);
    assert!(
        error.message().contains("deeper than 128"),
        "{}",
        error.message()
    );
    let sloppy = |n: usize| format!("{}{}", "[1 ".repeat(n), ",]".repeat(n));
    assert!(json::decode(&sloppy(MAX_DEPTH), ORIGIN).is_ok());
    assert!(json::decode(&sloppy(MAX_DEPTH + 1), ORIGIN).is_err());
}

#[test]
fn many_duplicate_keys_make_a_bounded_report() {
    let members: Vec<String> = (0..5000).map(|i| format!("\"k\": {i}")).collect();
    let text = format!("{{{}}}", members.join(", "));
    let decoded = json::decode(&text, ORIGIN).unwrap();
    assert_eq!(decoded.value["k"], 4999);
    let warnings = decoded.duplicate_warnings("");
    assert_eq!(warnings.len(), 101);
    assert!(
        warnings[100].message.starts_with("4899 more"),
        "{}",
        warnings[100].message
    );
}

// ---- properties -------------------------------------------------------------------

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z \"'`{}\\[\\]:,\\\\\n]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z_]{1,6}", value(), 1..6).prop_map(|m| m.into_iter().collect())
}

/// A JSON text in one of the styles models write it.
fn styled(value: &Value, style: u8) -> String {
    match style % 3 {
        0 => serde_json::to_string(value).unwrap(),
        1 => serde_json::to_string_pretty(value).unwrap(),
        _ => serde_json::to_string_pretty(value)
            .unwrap()
            .replace("\n}", ",\n}")
            .replace("\n]", ",\n]"),
    }
}

/// A code fence opener as models write it: a run of backticks or tildes, then an info
/// string (none, a language, a scalar, words, a bracket), then a line break or not.
fn fence_opener() -> impl Strategy<Value = String> {
    let run = prop_oneof![Just("```"), Just("~~~"), Just("````"), Just("``")];
    let info = prop_oneof![
        Just(String::new()),
        Just(String::from("json")),
        Just(String::from(" json")),
        Just(String::from("1")),
        Just(String::from(" 1")),
        Just(String::from(" -2.5e3")),
        Just(String::from(" true")),
        Just(String::from("json 1")),
        Just(String::from(" \"s\"")),
        Just(String::from(" a note")),
        Just(String::from("js `x`")),
        Just(String::from(" {")),
        Just(String::from("json [")),
        "[a-z0-9 .:]{0,6}".prop_map(String::from),
    ];
    let end = prop_oneof![Just(""), Just("\n"), Just("\r\n"), Just(" ")];
    (run, info, end).prop_map(|(run, info, end)| format!("{run}{info}{end}"))
}

/// A bare scalar as models write it, valid or not.
fn bare_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        (-1e9f64..1e9).prop_map(|f| f.to_string()),
        Just("1e-400".to_string()),
        Just("123456789012345678901234567890".to_string()),
        Just("true".to_string()),
        Just("None".to_string()),
        Just("\"text\"".to_string()),
        Just("'text'".to_string()),
        Just("-".to_string()),
        Just(".5".to_string()),
    ]
}

proptest! {
    #[test]
    fn reading_any_text_keeps_the_guarantees(text in "[\\[\\]{}\"':,a-z0-9 .\\-\n`\\\\]{0,60}") {
        check_json_text(&text);
    }

    /// Fence openers with any info string, around bare scalars and values, closed or
    /// not: an info string is never read as the value, and every guarantee of
    /// `check_json_text` holds (the `repair` fuzz target found ```` ``` 1 ```` read as 1).
    #[test]
    fn fences_info_strings_and_bare_scalars_keep_the_guarantees(
        opener in fence_opener(),
        body in prop_oneof![bare_scalar(), value().prop_map(|v| v.to_string())],
        closer in prop_oneof![Just(""), Just("\n```"), Just("\n~~~"), Just("```")],
        gap in prop_oneof![Just(""), Just("\n"), Just(" ")],
    ) {
        let text = format!("{opener}{gap}{body}{closer}");
        if let Some(decoded) = check_json_text(&text) {
            // What follows the run on the opener's line is its info string: a value
            // read from a fenced text starts on a later line, or opens with a bracket.
            let line = text.lines().next().unwrap_or("");
            if payload_core::fence::opener(line).is_some() && !line.contains(['{', '[']) {
                prop_assert!(text.contains('\n'), "{text:?} read as {}", decoded.value);
            }
        }
        check_json_text(&body);
    }

    #[test]
    fn reading_values_keeps_the_guarantees(value in value(), style in any::<u8>()) {
        let text = styled(&value, style);
        let decoded = check_json_text(&text).expect("a value models write is read");
        prop_assert_eq!(decoded.value, value);
        check_cut_off(&text);
        check_first_value_read_once(&text);
        check_first_value_read_once(&format!("{text}\nand {text}"));
    }

    #[test]
    fn whole_responses_never_lose_a_value_silently(
        first in object(),
        second in object(),
        prose in "[A-Za-z ,.]{0,20}",
        split in any::<prop::sample::Index>(),
    ) {
        let one = serde_json::to_string(&first).unwrap();
        let two = serde_json::to_string(&second).unwrap();
        let text = format!("{prose}\n{one}\n{prose}\n{two}");
        check_extract(&text, &AnyObject::TYPE, 2);
        check_first_value_read_once(&text);

        // The object closed early after some member: every member is kept, or it is
        // an error; never the smaller object.
        let members: Vec<String> = first
            .iter()
            .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), v))
            .collect();
        if members.len() > 1 {
            let at = 1 + split.index(members.len() - 1);
            let early = format!("{{{}}}, {}}}", members[..at].join(", "), members[at..].join(", "));
            check_first_value_read_once(&early);
            let result = json_extract::<AnyObject>(&early);
            if let Some(data) = result.data {
                prop_assert_eq!(data, Value::Object(first.clone()), "{}", early);
            }
        }
    }
}

#[test]
fn a_float_whose_digits_are_lost_is_noted_at_its_path() {
    for text in [
        "[1e-400]",
        r#"{"a": 123456789012345678901234567890.5}"#,
        "{'a': [0.1000000000000000000001]}",
    ] {
        let decoded = payload_benches::json_invariants::check_json_text(text).unwrap();
        assert_eq!(decoded.notes.imprecise_paths().len(), 1, "{text}");
    }
    let held = payload_benches::json_invariants::check_json_text("[0.1, 2.50, -0.0]").unwrap();
    assert!(held.notes.is_empty());
}

// ---- copied notation (docs/spec.md §3.4) ----------------------------------------------------

/// Where to go next in the app.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "NAVIGATE")]
struct Navigate {
    /// The tab to open.
    tab: String,
    /// Why.
    #[serde(default)]
    reason: Option<String>,
}

/// The one error a response with copied choices at `/tab` must give.
fn assert_asks_for_one_value(errors: &[payload_core::PayloadError], first: &str) {
    assert_eq!(errors.len(), 1, "{errors:?}");
    let error = &errors[0];
    assert_eq!(error.kind(), ErrorKind::Validation, "{error:?}");
    assert_eq!(error.path(), "/tab");
    assert_eq!(
        error.suggestion(),
        Some(format!("send one of the values, e.g. \"{first}\"").as_str())
    );
    assert!(error.location().is_some());
}

#[test]
fn copied_choices_are_a_validation_error_in_whole_response_mode() {
    for text in [
        r#"{"tab": "Jobs" | "Applications"}"#,
        "Here you go:\n```json\n{\"reason\": \"asked\", \"tab\": \"Jobs\"|\"Applications\"}\n```",
        "{\n  \"tab\": 'Jobs' | 'Applications',\n}",
    ] {
        for format in [Some(Format::Json), None] {
            let result = extract_as(text, &Navigate::TYPE, format);
            assert!(!result.success, "{text:?} was read as {:?}", result.data);
            assert_asks_for_one_value(&result.errors, "Jobs");
        }
    }
}

#[test]
fn copied_choices_are_a_validation_error_in_marker_mode() {
    let options = payload_core::ParseOptions::new().payload(Navigate::TYPE);
    let text = "Opening it.\n\nNAVIGATE: {\"tab\": \"create\" | \"update\"}\n\nDone.";
    let parsed = payload_core::Parser::new(&options).parse(text);
    assert!(parsed.custom_payload.is_none(), "{parsed:?}");
    assert_eq!(parsed.rejected.len(), 1, "{parsed:?}");
    assert_asks_for_one_value(&parsed.rejected[0].errors, "create");
    assert_eq!(parsed.rejected[0].errors[0].location().unwrap().line, 3);
    // The stream decides the same under any chunking (the quote rule waits for the
    // text after `|`), and nothing is lost.
    let parser = payload_core::Parser::new(&options);
    for size in 1..8 {
        payload_benches::invariants::check_marker_mode(&parser, &options, text, &[size]);
    }
}

proptest! {
    /// Copied choices as any member of any object, read in every mode that reads JSON,
    /// are never accepted: a `validation` error at that member (docs/spec.md §3.4).
    #[test]
    fn copied_choices_are_never_accepted(
        members in object(),
        choices in prop::collection::vec("[A-Za-z][a-z ]{0,8}", 2..4),
        gap in "[ \t]{0,2}",
        style in any::<u8>(),
    ) {
        let written: Vec<String> = choices.iter().map(|c| Value::from(c.as_str()).to_string()).collect();
        let written = written.join(&format!("{gap}|{gap}"));
        let mut members = members;
        members.insert("tab".into(), Value::from("PLACEHOLDER"));
        let text = styled(&Value::Object(members), style)
            .replace("\"PLACEHOLDER\"", &written);
        check_json_text(&text);
        check_extract(&text, &AnyObject::TYPE, 0);
        check_first_value_read_once(&text);
        let decoded = json::decode(&text, ORIGIN);
        let error = decoded.expect_err("copied choices were read as a value");
        prop_assert_eq!(error.kind(), ErrorKind::Validation);
        prop_assert_eq!(error.path(), "/tab");
        let auto = extract_as(&text, &AnyObject::TYPE, None);
        prop_assert!(!auto.success, "{}", text);
    }
}

/// The tone of a reply.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "TONE")]
#[serde(rename_all = "lowercase")]
enum Tone {
    /// Formal.
    Formal,
    /// Casual.
    Casual,
}

#[test]
fn a_whole_response_of_copied_choices_is_not_a_scalar_answer() {
    assert!(extract_as("\"formal\"", &Tone::TYPE, None).success);
    for text in ["\"formal\" | \"casual\"", "  'formal'|'casual'\n"] {
        let result = extract_as(text, &Tone::TYPE, None);
        assert!(!result.success, "{text:?} was read as {:?}", result.data);
        assert_eq!(result.errors[0].kind(), ErrorKind::Validation);
        assert_eq!(
            result.errors[0].suggestion(),
            Some("send one of the values, e.g. \"formal\"")
        );
    }
}
