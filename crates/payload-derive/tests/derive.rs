//! `#[derive(LlmPayload)]`: compile-fail cases (one misuse per file in `ui/`, each with
//! the message it must give) and the constants a well-formed derive produces.

use payload_core::{LlmPayload, PayloadError};
use payload_registry::PayloadEntry;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}

/// Compile-fail cases that make several mistakes on purpose, with how many each makes;
/// every other case makes one.
const SEVERAL_MISTAKES: &[(&str, usize)] = &[("several_errors_one_report.stderr", 3)];

/// Cases whose misuse is a missing trait, so `E0277` is the error that describes it (with
/// the fix in its note), not a follow-on one, and how many times rustc gives it: a
/// member type without a partial form is reported once, at the member's type (every
/// use of the member in the generated code is spanned there, so rustc's reports of the
/// field, of the partial form's `Debug`, `Clone` and `PartialEq`, and of its reading
/// are one report).
const MISSING_TRAIT: &[(&str, usize)] = &[
    ("partial_member_without_partial.stderr", 1),
    ("partial_variant_member_without_partial.stderr", 1),
];

/// A member type with no partial form is reported at the member itself (the line of
/// `steps: Vec<Step>` in each case, a struct's member and a variant's), not at the derive.
#[test]
fn a_member_without_a_partial_form_is_reported_at_the_member() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    for case in [
        "partial_member_without_partial",
        "partial_variant_member_without_partial",
    ] {
        let source =
            std::fs::read_to_string(dir.join(format!("{case}.rs"))).expect("the case is readable");
        let line = source
            .lines()
            .position(|l| l.contains("steps: Vec<Step>"))
            .expect("the member")
            + 1;
        let stderr = std::fs::read_to_string(dir.join(format!("{case}.stderr")))
            .expect("its output is readable");
        let first = stderr
            .lines()
            .find(|l| l.trim_start().starts_with("-->"))
            .expect("a location");
        assert!(first.contains(&format!("{case}.rs:{line}:")), "{first}");
    }
}

/// One misuse gives the errors that describe it and nothing else: ours, and serde's where
/// serde refuses the same declaration (so at most two). An `E0277` means a stub or an
/// impl failed on a missing trait, a follow-on error about nothing the user wrote.
#[test]
fn each_misuse_reports_only_itself() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/ui is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|ext| ext != "stderr") {
            continue;
        }
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("a .stderr file is readable");
        let headers: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("error:") || line.starts_with("error["))
            .collect();
        assert!(
            MISSING_TRAIT.iter().any(|(name, _)| *name == file) || !text.contains("error[E0277]"),
            "{file}: a follow-on `trait not implemented` error:\n{text}"
        );
        let allowed = SEVERAL_MISTAKES
            .iter()
            .chain(MISSING_TRAIT)
            .find(|(name, _)| *name == file)
            .map_or(2, |(_, count)| *count);
        assert!(
            (1..=allowed).contains(&headers.len()),
            "{file}: {} errors for at most {allowed} mistakes:\n{text}",
            headers.len()
        );
        checked += 1;
    }
    assert!(
        checked >= 30,
        "only {checked} .stderr files found in {dir:?}"
    );
}

/// Proposes creating a new table or changing
/// an existing table's schema.
///
/// Use it only when the user asked for a change.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    pages("tables", "chat"),
    example = create_jobs,
    check = check_proposal,
    rule = "`create` needs `table_name` to be a new table",
    rule = "`alter` needs every operation to name an existing column",
    summary = "{mode} {table_name}: {operations.len} operations"
)]
struct SchemaProposal {
    /// `create` or `alter`.
    mode: String,
    /// The table the proposal is about.
    table_name: String,
    /// What to do to the table, in order.
    operations: Vec<String>,
}

fn create_jobs() -> SchemaProposal {
    SchemaProposal {
        mode: "create".into(),
        table_name: "Jobs".into(),
        operations: vec!["add title".into(), "add salary".into()],
    }
}

fn check_proposal(proposal: &SchemaProposal) -> Vec<PayloadError> {
    let mut errors = Vec::new();
    if proposal.mode != "create" && proposal.mode != "alter" {
        errors.push(PayloadError::validation(
            "/mode",
            "mode is `create` or `alter`",
        ));
    }
    errors
}

#[test]
fn constants_come_from_the_declaration() {
    assert_eq!(SchemaProposal::NAME, "schema_proposal");
    assert_eq!(SchemaProposal::MARKER, "SCHEMA_PROPOSAL");
    assert_eq!(
        SchemaProposal::DESCRIPTION,
        "Proposes creating a new table or changing an existing table's schema.\n\n\
         Use it only when the user asked for a change."
    );
    assert_eq!(
        SchemaProposal::RULES,
        [
            "`create` needs `table_name` to be a new table",
            "`alter` needs every operation to name an existing column",
        ]
    );
    assert_eq!(SchemaProposal::TYPE.name, "schema_proposal");
}

#[test]
fn example_check_and_summary_call_the_declared_code() {
    let example = SchemaProposal::example().expect("the example is declared");
    assert_eq!(example.table_name, "Jobs");
    assert!(example.check().is_empty());
    assert_eq!(example.summarize(), "create Jobs: 2 operations");

    let wrong = json!({"mode": "drop", "table_name": "Jobs", "operations": []});
    let errors = SchemaProposal::TYPE.validate(&wrong).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn pages_register_the_type_with_its_pages() {
    let entries: Vec<&PayloadEntry> = payload_registry::__private::inventory::iter::<PayloadEntry>
        .into_iter()
        .filter(|entry| entry.payload.is::<SchemaProposal>())
        .collect();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].pages, ["tables", "chat"]);
    assert!(
        !payload_registry::__private::inventory::iter::<PayloadEntry>
            .into_iter()
            .any(|entry| entry.payload.is::<Tone>()),
        "a type without `pages` or `register` is not registered"
    );
}

/// How the reply should sound.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(rename_all = "snake_case")]
#[payload(name = "reply_tone", marker = "TONE", example = warm, summary = tone_summary)]
enum Tone {
    Warm,
    Neutral,
    Formal,
}

fn warm() -> Tone {
    Tone::Warm
}

fn tone_summary(tone: &Tone) -> String {
    format!("tone {tone:?}")
}

#[test]
fn enums_get_the_same_constants_and_a_string_schema() {
    assert_eq!(Tone::NAME, "reply_tone");
    assert_eq!(Tone::MARKER, "TONE");
    assert_eq!(Tone::DESCRIPTION, "How the reply should sound.");
    assert!(Tone::RULES.is_empty());
    assert_eq!(Tone::example(), Some(Tone::Warm));
    assert_eq!(Tone::Formal.summarize(), "tone Formal");
    assert!(Tone::TYPE.validate(&json!("neutral")).is_ok());
    assert!(Tone::TYPE.validate(&json!("shouty")).is_err());
}

#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct NoteCard {
    text: String,
}

#[test]
fn defaults_without_attribute_or_doc() {
    assert_eq!(NoteCard::NAME, "note_card");
    assert_eq!(NoteCard::MARKER, "NOTE_CARD");
    assert_eq!(NoteCard::DESCRIPTION, "");
    assert!(NoteCard::example().is_none());
    let card = NoteCard {
        text: "Remember the milk".into(),
    };
    assert_eq!(card.summarize(), "note_card (text: Remember the milk)");
}
