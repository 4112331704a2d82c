//! `#[derive(LlmPayload)]` reads serde's attributes as serde deserializes: the names in
//! the format options, the schema, the instructions and the per-variant rule errors are
//! the ones the model writes, and parsing accepts exactly what serde accepts, including
//! `rename(deserialize = ...)`, `rename_all(deserialize = ...)` and `alias`.

use payload_core::{LlmPayload, ParseOptions, PayloadError, parse, schema::Dialect};
use payload_instructions::{InstructionOptions, payload_instructions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use payload_tests as _;

/// A finding, written one way and read another.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE", deserialize = "camelCase"))]
#[payload(marker = "FINDING")]
struct Finding {
    /// The row the finding is about.
    #[payload(format(xml(attribute)))]
    row_id: u32,
    /// What was found.
    #[serde(rename(serialize = "a", deserialize = "b"))]
    #[payload(format(xml(cdata)))]
    body: String,
    /// A colour.
    #[serde(default)]
    color: Option<String>,
}

#[test]
fn format_options_are_keyed_by_deserialize_names() {
    let options: Value = serde_json::from_str(Finding::FORMAT_OPTIONS).unwrap();
    let fields = &options["xml"]["properties"];
    assert!(fields.get("rowId").is_some(), "{options}");
    assert!(fields.get("b").is_some(), "{options}");
    assert!(
        fields.get("ROW_ID").is_none() && fields.get("a").is_none(),
        "{options}"
    );
}

#[test]
fn schema_and_instructions_name_what_serde_reads() {
    let schema = Finding::TYPE.schema(Dialect::Draft2020_12);
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["rowId", "b", "color"], "{schema}");
    let text = payload_instructions(&Finding::TYPE, &InstructionOptions::default());
    assert!(
        text.contains("\"b\"") && text.contains("\"rowId\""),
        "{text}"
    );
    assert!(
        !text.contains("\"a\"") && !text.contains("ROW_ID"),
        "{text}"
    );
}

#[test]
fn a_response_in_deserialize_names_parses() {
    let reply = "Found one.\nFINDING: {\"rowId\": 7, \"b\": \"duplicate email\"}";
    let parsed = parse(reply, &ParseOptions::new().payload(Finding::TYPE));
    assert_eq!(
        parsed.payload::<Finding>(),
        Some(&Finding {
            row_id: 7,
            body: "duplicate email".into(),
            color: None,
        }),
        "{parsed:?}"
    );
}

#[test]
fn a_response_in_serialize_names_does_not() {
    let reply = "FINDING: {\"ROW_ID\": 7, \"a\": \"duplicate email\"}";
    let parsed = parse(reply, &ParseOptions::new().payload(Finding::TYPE));
    assert_eq!(parsed.payload::<Finding>(), None, "{parsed:?}");
}

/// A note whose member models also spell another way.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "NOTE")]
struct Note {
    /// The note.
    text: String,
    /// A colour, which models also spell `colour`.
    #[serde(default, alias = "colour")]
    color: Option<String>,
}

#[test]
fn an_alias_is_taken_in() {
    let reply = "NOTE: {\"text\": \"x\", \"colour\": \"red\"}";
    let parsed = parse(reply, &ParseOptions::new().payload(Note::TYPE));
    let note = parsed.payload::<Note>();
    assert_eq!(
        note.and_then(|n| n.color.as_deref()),
        Some("red"),
        "{parsed:?}"
    );
    let checked = Note::TYPE.validate(&json!({"text": "x", "colour": "red"}));
    assert!(checked.is_ok(), "{checked:?}");
}

/// A card whose member is written under one name, read under another, and also under
/// an alias models use.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "CARD")]
struct Card {
    /// The title.
    title: String,
    /// A colour: written `paint`, read `color`, and `colour` too.
    #[serde(
        default,
        rename(serialize = "paint", deserialize = "color"),
        alias = "colour"
    )]
    color: Option<String>,
}

#[test]
fn an_alias_beside_a_serialize_rename_is_taken_in() {
    let reply = "CARD: {\"title\": \"x\", \"colour\": \"red\"}";
    let parsed = parse(reply, &ParseOptions::new().payload(Card::TYPE));
    assert!(parsed.rejected.is_empty(), "{parsed:?}");
    assert_eq!(
        parsed.payload::<Card>().and_then(|c| c.color.as_deref()),
        Some("red")
    );
    // A real near miss is still an error: nothing reads `colr`.
    let typo = Card::TYPE.validate(&json!({"title": "x", "colr": "red"}));
    assert!(typo.is_err(), "{typo:?}");
}

/// A step of an export, its variant written one way and read another.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "intent", content = "parameters", rename_all = "snake_case")]
enum Step {
    /// Export the sheet.
    #[serde(rename(serialize = "export_file", deserialize = "export"))]
    #[payload(check = check_export)]
    Export(ExportParams),
    /// Undo.
    Undo,
}

/// Parameters of `export`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct ExportParams {
    /// File name, without the extension.
    file_name: String,
}

fn check_export(params: &ExportParams) -> Vec<PayloadError> {
    if params.file_name.contains('.') {
        vec![PayloadError::validation(
            "/file_name",
            "the file name has no extension",
        )]
    } else {
        Vec::new()
    }
}

#[test]
fn variant_rule_errors_name_the_variant_the_model_wrote() {
    let written = json!({"intent": "export", "parameters": {"file_name": "q3.csv"}});
    let errors = Step::TYPE.validate(&written).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path(), "/parameters/file_name");
    assert_eq!(
        errors[0].message(),
        "the file name has no extension (intent \"export\")"
    );
}
