//! Enum payloads end to end, one enum per serde representation: the schema is a
//! `oneOf` whose branches the tag tells apart, valid model output validates and
//! extracts (whole response and after a marker), and a value whose tag is valid but
//! whose content is wrong gets that variant's errors only, at paths inside it, each
//! naming the variant. An unknown tag lists the valid tags and suggests the closest.

use payload_core::{
    ErrorKind, LlmPayload, ParseOptions, PayloadError, extract, extract_json, parse,
    schema::Dialect,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use payload_tests as _;

/// What the assistant does next in the spreadsheet.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "intent", content = "parameters", rename_all = "snake_case")]
#[payload(marker = "SHEET_INTENT")]
enum SheetIntent {
    /// Sort the rows.
    SortRows {
        /// Column name.
        column: String,
        /// Sort order.
        descending: Option<bool>,
    },
    /// Export the sheet.
    #[payload(check = check_export)]
    Export(ExportParams),
    /// Undo the last change.
    Undo,
}

/// Parameters of `export`.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExportParams {
    /// File format.
    format: FileFormat,
    /// File name, without the extension.
    file_name: Option<String>,
}

/// Export formats.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum FileFormat {
    Csv,
    Xlsx,
}

fn check_export(params: &ExportParams) -> Vec<PayloadError> {
    match &params.file_name {
        Some(name) if name.contains('.') => vec![PayloadError::validation(
            "/file_name",
            "the file name has no extension",
        )],
        _ => Vec::new(),
    }
}

/// One change to a table's columns.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "action", rename_all = "lowercase")]
enum ColumnOp {
    /// Add a column.
    Add {
        /// Column name.
        name: String,
        /// Column type.
        column_type: ColumnType,
    },
    /// Remove a column.
    Remove {
        /// The column's id.
        column_id: String,
    },
    /// Rename a column.
    Rename(RenameParams),
}

/// Parameters of `rename`.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RenameParams {
    /// The column's id.
    column_id: String,
    /// Its new name.
    #[schemars(length(min = 1))]
    new_name: String,
}

/// Column types.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ColumnType {
    Text,
    Number,
    Date,
}

/// A batch of column changes: an internally tagged enum inside an array.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
struct ColumnChanges {
    /// The changes, in order.
    operations: Vec<ColumnOp>,
}

/// A chart to draw.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(rename_all = "snake_case")]
enum Chart {
    /// A bar chart.
    Bar {
        /// Column on the x axis.
        x: String,
        /// Column on the y axis.
        y: String,
    },
    /// A pie chart of one column.
    Pie(PieParams),
    /// No chart.
    Nothing,
}

/// Parameters of a pie chart.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PieParams {
    /// The column to count.
    column: String,
}

/// How the reply should sound.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(rename_all = "snake_case")]
enum Tone {
    /// Friendly.
    Warm,
    /// Matter of fact.
    Neutral,
    /// Businesslike.
    Formal,
}

fn branches(schema: &Value) -> &Vec<Value> {
    schema["oneOf"].as_array().expect("the schema is a oneOf")
}

fn errors_of<T: LlmPayload>(value: Value) -> Vec<PayloadError> {
    T::TYPE.validate(&value).expect_err("the value is invalid")
}

fn paths(errors: &[PayloadError]) -> Vec<&str> {
    errors.iter().map(|e| e.path()).collect()
}

// ---- adjacently tagged ---------------------------------------------------------

#[test]
fn adjacent_schema_has_one_branch_per_tag() {
    let schema = SheetIntent::TYPE.schema(Dialect::Draft2020_12);
    let tags: Vec<&Value> = branches(&schema)
        .iter()
        .map(|b| &b["properties"]["intent"]["const"])
        .collect();
    assert_eq!(
        tags,
        [&json!("sort_rows"), &json!("export"), &json!("undo")]
    );
}

#[test]
fn adjacent_valid_output_validates_and_extracts() {
    let reply = "Sure, here is the command:\n```json\n{\"intent\": \"sort_rows\", \"parameters\": {\"column\": \"Salary\", \"descending\": true}}\n```";
    let (intent, result) = extract::<SheetIntent>(reply);
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(
        intent,
        Some(SheetIntent::SortRows {
            column: "Salary".into(),
            descending: Some(true)
        })
    );
    let (undo, _) = extract::<SheetIntent>(r#"{"intent": "undo"}"#);
    assert_eq!(undo, Some(SheetIntent::Undo));
}

#[test]
fn adjacent_wrong_content_names_the_variant_only() {
    let errors = errors_of::<SheetIntent>(json!({
        "intent": "export",
        "parameters": {"format": "pdf", "fancy_styling": true}
    }));
    assert_eq!(
        paths(&errors),
        ["/parameters/format", "/parameters/fancy_styling"],
        "{errors:#?}"
    );
    for error in &errors {
        assert!(
            error.message().ends_with("(intent \"export\")"),
            "{}",
            error.message()
        );
    }
    assert_eq!(errors[0].expected(), Some("one of csv, xlsx"));
    assert!(errors[1].expected().unwrap().contains("format, file_name"));
}

#[test]
fn adjacent_missing_content_member_is_missing_inside_the_variant() {
    let errors = errors_of::<SheetIntent>(json!({"intent": "sort_rows", "parameters": {}}));
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].kind(), ErrorKind::Missing);
    assert_eq!(errors[0].path(), "/parameters/column");
    assert_eq!(
        errors[0].message(),
        "required member 'column' is missing (intent \"sort_rows\")"
    );
}

#[test]
fn unknown_tag_lists_the_tags_and_suggests_the_closest() {
    let errors = errors_of::<SheetIntent>(json!({
        "intent": "exprot", "parameters": {"format": "csv"}
    }));
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].path(), "/intent");
    assert_eq!(errors[0].expected(), Some("one of sort_rows, export, undo"));
    assert!(
        errors[0]
            .suggestion()
            .unwrap()
            .starts_with("use \"export\""),
        "{:?}",
        errors[0].suggestion()
    );
}

#[test]
fn missing_tag_is_missing_and_the_fitting_variant_is_suggested() {
    let errors = errors_of::<SheetIntent>(json!({"parameters": {"format": "csv"}}));
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].kind(), ErrorKind::Missing);
    assert_eq!(errors[0].path(), "/intent");
}

#[test]
fn variant_rules_run_on_the_content_with_paths_inside_it() {
    let value = json!({"intent": "export", "parameters": {"format": "csv", "file_name": "q3.csv"}});
    let errors = errors_of::<SheetIntent>(value);
    assert_eq!(paths(&errors), ["/parameters/file_name"]);
    assert_eq!(
        errors[0].message(),
        "the file name has no extension (intent \"export\")"
    );
    assert!(
        SheetIntent::TYPE
            .validate(
                &json!({"intent": "export", "parameters": {"format": "csv", "file_name": "q3"}})
            )
            .is_ok()
    );
}

#[test]
fn marker_mode_reads_an_enum_payload() {
    let reply = "I'll sort by salary, highest first.\n\nSHEET_INTENT: {\"intent\": \"sort_rows\", \"parameters\": {\"column\": \"Salary\", \"descending\": true}}";
    let parsed = parse(reply, &ParseOptions::new().payload(SheetIntent::TYPE));
    let payload = parsed.custom_payload.expect("the payload is accepted");
    assert_eq!(payload.kind, "sheet_intent");
    assert_eq!(payload.data()["parameters"]["column"], "Salary");
    assert_eq!(parsed.message, "I'll sort by salary, highest first.");

    let wrong = "Exporting now.\nSHEET_INTENT: {\"intent\": \"export\", \"parameters\": {\"format\": \"pdf\"}}";
    let parsed = parse(wrong, &ParseOptions::new().payload(SheetIntent::TYPE));
    assert!(parsed.custom_payload.is_none());
    let errors = &parsed.rejected[0].errors;
    assert_eq!(paths(errors), ["/parameters/format"], "{errors:#?}");
    assert!(errors[0].message().contains("(intent \"export\")"));
}

// ---- internally tagged, inside an array ---------------------------------------

#[test]
fn internal_schema_and_valid_output() {
    let schema = ColumnOp::TYPE.schema(Dialect::Draft2020_12);
    assert_eq!(branches(&schema).len(), 3);
    assert_eq!(branches(&schema)[0]["properties"]["action"]["const"], "add");
    let reply = r#"Here are the changes:
{"operations": [
  {"action": "add", "name": "Salary", "column_type": "number"},
  {"action": "rename", "column_id": "col_2", "new_name": "Company"},
  {"action": "remove", "column_id": "col_7"}
]}"#;
    let (changes, result) = extract::<ColumnChanges>(reply);
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(changes.unwrap().operations.len(), 3);
}

#[test]
fn internal_errors_in_an_array_name_the_item_and_its_variant() {
    let errors = errors_of::<ColumnChanges>(json!({"operations": [
        {"action": "add", "name": "Salary", "column_type": "number"},
        {"action": "add", "name": "Start date", "column_type": "datetime"},
        {"action": "rename", "column_id": "col_2"},
        {"action": "delete", "column_id": "col_7"}
    ]}));
    assert_eq!(
        paths(&errors),
        [
            "/operations/1/column_type",
            "/operations/2/new_name",
            "/operations/3/action"
        ],
        "{errors:#?}"
    );
    assert!(errors[0].message().ends_with("(action \"add\")"));
    assert!(errors[1].message().ends_with("(action \"rename\")"));
    assert_eq!(errors[2].expected(), Some("one of add, remove, rename"));
}

// ---- externally tagged -------------------------------------------------------

#[test]
fn external_schema_valid_output_and_errors() {
    let schema = Chart::TYPE.schema(Dialect::Draft2020_12);
    assert_eq!(branches(&schema).len(), 3);
    let (chart, result) = extract::<Chart>(r#"{"bar": {"x": "Month", "y": "Revenue"}}"#);
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(
        chart,
        Some(Chart::Bar {
            x: "Month".into(),
            y: "Revenue".into()
        })
    );
    assert!(Chart::TYPE.validate(&json!("nothing")).is_ok());

    let errors = errors_of::<Chart>(json!({"bar": {"x": "Month"}}));
    assert_eq!(paths(&errors), ["/bar/y"], "{errors:#?}");
    assert!(errors[0].message().ends_with("(variant \"bar\")"));

    let errors = errors_of::<Chart>(json!({"pie": {"column": "Region", "colors": 3}}));
    assert_eq!(paths(&errors), ["/pie/colors"], "{errors:#?}");

    let errors = errors_of::<Chart>(json!({"bars": {"x": "Month", "y": "Revenue"}}));
    assert_eq!(paths(&errors), ["/bars"], "{errors:#?}");
    assert!(errors[0].suggestion().unwrap().starts_with("use \"bar\""));

    // The name of a variant with content, written alone: the content is what is missing.
    let errors = errors_of::<Chart>(json!("bar"));
    assert_eq!(paths(&errors), [""], "{errors:#?}");
    assert!(
        errors[0].message().contains("\"bar\" holds content")
            && !errors[0].message().contains("known"),
        "{errors:#?}"
    );
    assert_eq!(errors[0].expected(), Some("{\"bar\": ...}"));

    let errors = errors_of::<Chart>(json!("none"));
    assert_eq!(paths(&errors), [""], "{errors:#?}");
    assert_eq!(errors[0].expected(), Some("one of bar, pie, nothing"));
}

// ---- unit-only ------------------------------------------------------------------

#[test]
fn unit_only_enum_is_a_string_enum() {
    let schema = Tone::TYPE.schema(Dialect::Draft2020_12);
    let values: Vec<&Value> = branches(&schema).iter().map(|b| &b["const"]).collect();
    assert_eq!(
        values,
        [&json!("warm"), &json!("neutral"), &json!("formal")]
    );
    assert!(Tone::TYPE.validate(&json!("formal")).is_ok());
    let errors = errors_of::<Tone>(json!("formel"));
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].expected(), Some("one of warm, neutral, formal"));
    assert_eq!(
        errors[0].suggestion(),
        Some("use \"formal\" (allowed: warm, neutral, formal)")
    );
    // Inside an object, as a model writes it in a whole response; another case is
    // coerced with a warning, not rejected.
    let (reply, result) = extract::<Reply>("{\"text\": \"Done.\", \"tone\": \"Formal\"}");
    assert!(result.success, "{:?}", result.errors);
    assert_eq!(reply.unwrap().tone, Tone::Formal);
    assert_eq!(result.warnings.len(), 1);
    let result = extract_json("{\"text\": \"Done.\", \"tone\": \"shouty\"}", &Reply::TYPE);
    assert_eq!(paths(&result.errors), ["/tone"]);
}

/// A reply with its tone.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Reply {
    /// The text.
    text: String,
    /// How it sounds.
    tone: Tone,
}

mod whole_response_scalars {
    use payload_core::{LlmPayload, extract_json};
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// The register to answer in.
    #[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
    #[serde(rename_all = "lowercase")]
    enum Tone {
        Formal,
        Casual,
    }

    #[test]
    fn a_unit_only_enum_is_read_from_a_bare_word_or_a_json_string() {
        for answer in ["\"formal\"", "formal", "  Formal \n", "`casual`"] {
            let result = extract_json(answer, &Tone::TYPE);
            assert!(result.success, "{answer:?}: {:?}", result.errors);
        }
        let result = extract_json("friendly", &Tone::TYPE);
        assert!(!result.success);
        assert!(result.errors[0].expected().unwrap().contains("formal"));
        let result = extract_json("I'd go with formal.\nIt suits the audience.", &Tone::TYPE);
        assert!(!result.success);
    }
}
