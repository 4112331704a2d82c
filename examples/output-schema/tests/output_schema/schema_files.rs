//! The output-schema app's way: the types' extended JSON Schemas as files (`schemas/`), read at run
//! time. Every seed response in every format reads through them to the same value as
//! through the derived types, with `payload extract --schema` as with the API, and the
//! instructions from a file are the derived type's.

use output_schema::{AnalysisResult, TaskPlan};
use payload_core::{LlmPayload, PayloadType, extract_as, runtime::RuntimeOptions};
use payload_instructions::{InstructionOptions, whole_response_instructions};
use payload_registry::Registry;
use serde_json::Value;
use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn from_file(type_name: &str) -> &'static PayloadType {
    let path = dir("schemas").join(format!("{type_name}.schema.json"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap()
}

fn responses(type_name: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir("responses").join(type_name))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn every_seed_response_reads_the_same_through_the_schema_file() {
    for derived in [&AnalysisResult::TYPE, &TaskPlan::TYPE] {
        let runtime = from_file(derived.name);
        assert_eq!(runtime.name, derived.name, "the name comes from the title");
        assert_eq!(runtime.description, derived.description);
        for path in responses(derived.name) {
            let text = std::fs::read_to_string(&path).unwrap();
            let a = extract_as(&text, derived, None);
            let b = extract_as(&text, runtime, None);
            assert!(b.success, "{}: {:?}", path.display(), b.errors);
            assert_eq!(a.data, b.data, "{}", path.display());
            assert_eq!(a.format, b.format, "{}", path.display());
        }
    }
}

#[test]
fn the_command_reads_a_response_through_a_schema_file() {
    for path in responses("task_plan") {
        let schema = dir("schemas").join("task_plan.schema.json");
        let args = [
            "payload",
            "extract",
            "--schema",
            schema.to_str().unwrap(),
            path.to_str().unwrap(),
        ];
        let mut out = Vec::new();
        payload_cli::run(args, Registry::global(), &mut out).unwrap();
        let printed: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(printed["success"], true, "{}: {printed}", path.display());
        assert_eq!(printed["data"]["steps"][2], "Validate schema");
    }
}

#[test]
fn instructions_from_the_file_state_its_shape_and_bounds_as_the_derived_type_does() {
    let options = InstructionOptions::default();
    let derived = whole_response_instructions(&TaskPlan::TYPE, &options);
    let runtime = whole_response_instructions(from_file("task_plan"), &options);
    for said in [
        "A task broken into the steps that carry it out.",
        "\"task\": string,  // at least 5 characters.",
        "\"steps\"?: [string]  // non-empty.",
        "- Required fields: task, confidence (steps is optional).",
        "- steps, when given: non-empty.",
    ] {
        assert!(runtime.contains(said), "{said:?} not in:\n{runtime}");
        assert!(derived.contains(said), "{said:?} not in:\n{derived}");
    }
    // The file writes its bounds as integers, the Rust type as floats.
    assert!(runtime.contains("confidence: from 0 to 1."));
    assert!(derived.contains("confidence: from 0.0 to 1.0."));
}

fn cli(args: &[&str]) -> Result<String, payload_cli::CliError> {
    let mut out = Vec::new();
    payload_cli::run(args.iter().copied(), Registry::global(), &mut out)?;
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn the_command_teaches_a_schema_file_and_refuses_a_broken_one() {
    let schema = dir("schemas").join("task_plan.schema.json");
    let schema = schema.to_str().unwrap();
    let detailed = cli(&[
        "payload",
        "instructions",
        "--schema",
        schema,
        "--format",
        "xml",
    ])
    .unwrap();
    assert!(
        detailed.contains("<response>") && detailed.contains("<step>"),
        "{detailed}"
    );
    let concise = cli(&[
        "payload",
        "instructions",
        "--schema",
        schema,
        "--verbosity",
        "concise",
    ])
    .unwrap();
    assert!(concise.len() < detailed.len());
    assert!(
        concise.contains("TASK_PLAN"),
        "the marker comes from the title: {concise}"
    );

    let broken = std::env::temp_dir().join(format!("broken-{}.schema.json", std::process::id()));
    std::fs::write(&broken, r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}, "x-format": {"yaml": {}}}"##).unwrap();
    let error = cli(&[
        "payload",
        "extract",
        "--schema",
        broken.to_str().unwrap(),
        "--format",
        "json",
        schema,
    ])
    .unwrap_err();
    std::fs::remove_file(&broken).unwrap();
    // The file's name, then (its cause, printed once) every problem with it.
    let cause = std::error::Error::source(&error).expect("the schema's problems");
    assert!(!error.to_string().contains(&cause.to_string()));
    let said = error.chain();
    assert!(
        said.contains("/properties/a/$ref") && said.contains("/x-format/yaml"),
        "{said}"
    );
    let both = cli(&[
        "payload",
        "extract",
        "--type",
        "task_plan",
        "--schema",
        schema,
    ])
    .unwrap_err();
    assert!(both.to_string().contains("cannot be used with"), "{both}");
}
