//! The output-schema app's responses in every format, and the ways models break them: each reads to
//! the seed's value, is detected as its format, or fails with the error a re-prompt
//! needs (with the hint written in the response's format).

use output_schema::{AnalysisResult, TaskPlan};
use payload_core::formats::Format;
use payload_core::{ErrorKind, ExtractResult, LlmPayload, PayloadType, extract_as};
use payload_registry::Registry;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

fn responses(type_name: &str) -> Vec<(PathBuf, Format)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("responses")
        .join(type_name);
    let mut files: Vec<(PathBuf, Format)> = std::fs::read_dir(&dir)
        .expect("responses folder")
        .map(|entry| entry.expect("entry").path())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let format = match name.as_str() {
                "response.json" => Format::Json,
                "response.xml" => Format::Xml,
                "response.delimited.txt" => Format::Delimited,
                "response.tagged.txt" => Format::Tagged,
                "response.md" => Format::Markdown,
                other => panic!("unexpected file {other}"),
            };
            (path, format)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn seed_analysis() -> Value {
    json!({"analysis": "Market shows strong growth", "confidence": 0.87,
           "recommendations": ["Buy", "Hold long-term"]})
}

fn seed_task() -> Value {
    json!({"task": "Parse configuration files", "confidence": 0.85,
           "steps": ["Read file", "Parse JSON", "Validate schema"]})
}

/// `payload extract --type T --format auto FILE` over the global registry: the printed
/// result and whether the exit status was 0.
fn cli_extract(type_name: &str, file: &std::path::Path) -> (Value, bool) {
    let mut out = Vec::new();
    let args = [
        "payload",
        "extract",
        "--type",
        type_name,
        "--format",
        "auto",
        file.to_str().unwrap(),
    ];
    let code = payload_cli::run(args, Registry::global(), &mut out).expect("command runs");
    let printed: Value = serde_json::from_slice(&out).expect("JSON output");
    (printed, code == ExitCode::SUCCESS)
}

#[test]
fn every_seed_response_gives_the_same_value_from_the_command() {
    for (type_name, expected) in [
        ("analysis_result", seed_analysis()),
        ("task_plan", seed_task()),
    ] {
        let files = responses(type_name);
        assert_eq!(files.len(), 5, "{type_name}: one response per format");
        for (path, format) in files {
            let (printed, ok) = cli_extract(type_name, &path);
            assert!(ok, "{}: {printed:#}", path.display());
            assert_eq!(printed["data"], expected, "{}", path.display());
            assert_eq!(printed["format"], format.as_str(), "{}", path.display());
            let confidence = printed["confidence"].as_f64().unwrap();
            assert!(confidence >= 0.85, "{}: {confidence}", path.display());
        }
    }
}

#[test]
fn the_values_decode_to_the_types() {
    let text = std::fs::read_to_string(&responses("task_plan")[0].0).unwrap();
    let result = extract_as(&text, &TaskPlan::TYPE, None);
    let plan: TaskPlan = result.decode().expect("decodes");
    assert_eq!(plan.steps.len(), 3);
}

fn analysis(text: &str) -> ExtractResult {
    extract_as(text, &AnalysisResult::TYPE, None)
}

/// Responses a model really writes that are still the seed's value.
#[test]
fn malformed_but_readable_responses() {
    let cases: &[(&str, Format, &str)] = &[
        (
            "json in prose and a fence",
            Format::Json,
            "Sure! Here's my analysis:\n```json\n{\"analysis\": \"Market shows strong growth\", \"confidence\": 0.87, \"recommendations\": [\"Buy\", \"Hold long-term\"],}\n```\nLet me know if you need more.",
        ),
        (
            "xml with prose around",
            Format::Xml,
            "Here is the analysis you asked for:\n\n<analysis-result>\n<analysis>Market shows strong growth</analysis>\n<confidence>0.87</confidence>\n<recommendations><recommendation>Buy</recommendation><recommendation>Hold long-term</recommendation></recommendations>\n</analysis-result>\n\nHope this helps!",
        ),
        (
            "xml in a fence",
            Format::Xml,
            "```xml\n<?xml version=\"1.0\"?>\n<analysis-result>\n  <analysis>Market shows strong growth</analysis>\n  <confidence>0.87</confidence>\n  <recommendations>\n    <recommendation>Buy</recommendation>\n    <recommendation>Hold long-term</recommendation>\n  </recommendations>\n</analysis-result>\n```",
        ),
        (
            "xml with a missing close tag",
            Format::Xml,
            "<analysis-result>\n  <analysis>Market shows strong growth\n  <confidence>0.87</confidence>\n  <recommendations>\n    <recommendation>Buy</recommendation>\n    <recommendation>Hold long-term</recommendation>\n  </recommendations>\n</analysis-result>",
        ),
        (
            "xml items without their container",
            Format::Xml,
            "<analysis-result>\n  <analysis>Market shows strong growth</analysis>\n  <confidence>0.87</confidence>\n  <recommendation>Buy</recommendation>\n  <recommendation>Hold long-term</recommendation>\n</analysis-result>",
        ),
        (
            "delimited with lowercase delimiters",
            Format::Delimited,
            "====analysis====\nMarket shows strong growth\n====confidence====\n0.87\n====recommendations====\n• Buy\n• Hold long-term",
        ),
        (
            "delimited with a numbered list instead of bullets",
            Format::Delimited,
            "====ANALYSIS====\nMarket shows strong growth\n\n====CONFIDENCE====\n0.87\n\n====RECOMMENDATIONS====\n1. Buy\n2. Hold long-term\n",
        ),
        (
            "delimited with prose around",
            Format::Delimited,
            "Here you go:\n\n====ANALYSIS====\nMarket shows strong growth\n====CONFIDENCE====\n0.87\n====RECOMMENDATIONS====\n- Buy\n- Hold long-term",
        ),
        (
            "tagged among prose",
            Format::Tagged,
            "I looked at the numbers.\n<ANALYSIS>Market shows strong growth</ANALYSIS>\nMy confidence: <CONFIDENCE>0.87</CONFIDENCE>\n<RECOMMENDATIONS>Buy</RECOMMENDATIONS>\n<RECOMMENDATIONS>Hold long-term</RECOMMENDATIONS>\nThat's all.",
        ),
        (
            "tagged in lowercase with a missing close tag",
            Format::Tagged,
            "<analysis>Market shows strong growth\n<confidence>0.87</confidence>\n<recommendations>Buy</recommendations>\n<recommendations>Hold long-term</recommendations>",
        ),
        (
            "markdown in a fence with bold headers and a numbered list",
            Format::Markdown,
            "```markdown\n# Market report\n\n## **Analysis:**\nMarket shows strong growth\n\n## Confidence\n0.87\n\n## Recommendations\n1. Buy\n2. Hold long-term\n```",
        ),
    ];
    for (name, format, text) in cases {
        let result = analysis(text);
        assert!(result.success, "{name}: {:#?}", result.errors);
        assert_eq!(result.format, format.as_str(), "{name}");
        assert!(result.confidence >= 0.5, "{name}: {}", result.confidence);
        assert_eq!(result.data, Some(seed_analysis()), "{name}");
    }
}

#[test]
fn a_bare_ampersand_is_text() {
    let result = analysis(
        "<analysis-result><analysis>R&D spending drives growth</analysis><confidence>0.9</confidence></analysis-result>",
    );
    assert!(result.success, "{:#?}", result.errors);
    assert_eq!(result.format, "xml");
    assert_eq!(
        result.data.unwrap()["analysis"],
        "R&D spending drives growth"
    );
}

/// The seed's responses with one change each, in every format.
fn variants(replace: (&str, &str)) -> Vec<(Format, String)> {
    responses("analysis_result")
        .into_iter()
        .map(|(path, format)| {
            let text = std::fs::read_to_string(path).unwrap();
            (format, text)
        })
        .map(|(format, text)| (format, text.replace(replace.0, replace.1)))
        .collect()
}

#[test]
fn a_missing_field_is_reported_with_the_format_s_hint() {
    let hints = [
        (Format::Xml, "In XML: <analysis>...</analysis>"),
        (
            Format::Delimited,
            "In delimited sections: ====ANALYSIS==== ...",
        ),
        (
            Format::Tagged,
            "In tagged content: <ANALYSIS>...</ANALYSIS>",
        ),
        (
            Format::Markdown,
            "In markdown: ## Analysis, then the value on the lines below",
        ),
    ];
    for (format, hint) in hints {
        let (_, full) = variants(("", ""))
            .into_iter()
            .find(|(f, _)| *f == format)
            .unwrap();
        // Drop the lines of the analysis field (its open/close lines and its value).
        let text: String = full
            .lines()
            .filter(|l| {
                !l.to_ascii_lowercase().contains("analysis")
                    || l.to_ascii_lowercase().contains("analysis-result")
            })
            .filter(|l| !l.contains("Market shows strong growth"))
            .map(|l| format!("{l}\n"))
            .collect();
        let result = analysis(&text);
        assert!(!result.success, "{format}: {text}");
        assert_eq!(result.format, format.as_str(), "{text}");
        let error = &result.errors[0];
        assert_eq!(
            error.kind(),
            ErrorKind::Missing,
            "{format}: {:#?}",
            result.errors
        );
        assert_eq!(error.path(), "/analysis");
        let suggestion = error.suggestion().unwrap_or_default();
        assert!(suggestion.contains(hint), "{format}: {suggestion}");
        assert_eq!(
            result.partial_data.as_ref().unwrap()["confidence"],
            json!(0.87),
            "{format}"
        );
    }
}

#[test]
fn confidence_in_words_or_out_of_range_is_a_validation_error() {
    for (bad, message) in [("high", "high"), ("1.3", "1.3")] {
        for (format, text) in variants(("0.87", bad)) {
            // In JSON a model quotes the word: `"confidence": "high"`.
            let text = if format == Format::Json && bad == "high" {
                text.replace(": high", ": \"high\"")
            } else {
                text
            };
            let result = analysis(&text);
            assert!(!result.success, "{format} {bad}");
            assert_eq!(result.format, format.as_str(), "{bad}: {text}");
            let error = result
                .errors
                .iter()
                .find(|e| e.path() == "/confidence")
                .unwrap_or_else(|| panic!("{format} {bad}: {:#?}", result.errors));
            assert_eq!(error.kind(), ErrorKind::Validation, "{format} {bad}");
            // The value received is named, in the message or as `received`.
            let shown = format!("{} {:?}", error.message(), error.received());
            assert!(shown.contains(message), "{format}: {shown}");
            if bad == "1.3" && format != Format::Json {
                assert!(error.message().contains("1.3"), "{}", error.message());
            }
        }
    }
}

#[test]
fn the_command_exits_1_on_failure() {
    let dir = std::env::temp_dir().join(format!("output-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.xml");
    std::fs::write(
        &file,
        "<analysis-result><confidence>1.3</confidence></analysis-result>",
    )
    .unwrap();
    let (printed, ok) = cli_extract("analysis_result", &file);
    std::fs::remove_dir_all(&dir).ok();
    assert!(!ok);
    assert_eq!(printed["success"], false);
    assert_eq!(printed["format"], "xml");
    let kinds: Vec<&str> = printed["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["missing"], "{printed:#}");
}

/// The seed's task example, in its own formats, with its own patterns.
#[test]
fn task_plan_variants() {
    let task = |text: &str| extract_as(text, &TaskPlan::TYPE, None);
    // END markers in lowercase, bullets instead of numbers, prose before.
    let result = task(
        "Plan below.\n---task---\nParse configuration files\n---end-task---\n---CONFIDENCE---\n0.85\n---END-CONFIDENCE---\n---STEPS---\n- Read file\n- Parse JSON\n- Validate schema\n---END-STEPS---",
    );
    assert!(result.success, "{:#?}", result.errors);
    assert_eq!(result.format, "delimited");
    assert_eq!(result.data, Some(seed_task()));
    // A task under five characters and no steps break minLength and minItems.
    let result =
        task("<response><task>Run</task><confidence>0.5</confidence><steps></steps></response>");
    assert!(!result.success);
    let paths: Vec<&str> = result.errors.iter().map(|e| e.path()).collect();
    assert_eq!(paths, ["/task", "/steps"], "{:#?}", result.errors);
    // Missing task in delimited sections: the hint shows the seed's END pattern.
    let result = task(
        "---CONFIDENCE---\n0.85\n---END-CONFIDENCE---\n---STEPS---\n1. Read file\n---END-STEPS---",
    );
    assert_eq!(result.format, "delimited");
    let hint = result.errors[0].suggestion().unwrap();
    assert!(
        hint.contains("In delimited sections: ---TASK--- ... ---END-TASK---"),
        "{hint}"
    );
}

#[test]
fn the_instructions_ask_for_each_format_with_the_seed_names() {
    let instructions = |t: &PayloadType, format: &str| {
        let mut out = Vec::new();
        let args = ["payload", "instructions", t.name, "--format", format];
        payload_cli::run(args, Registry::global(), &mut out).expect("instructions");
        String::from_utf8(out).unwrap()
    };
    let xml = instructions(&AnalysisResult::TYPE, "xml");
    assert!(
        xml.contains("<recommendation>Increase inventory</recommendation>"),
        "{xml}"
    );
    let delimited = instructions(&AnalysisResult::TYPE, "delimited");
    assert!(
        delimited.contains("====RECOMMENDATIONS====\n- Increase inventory\n"),
        "{delimited}"
    );
    let tagged = instructions(&AnalysisResult::TYPE, "tagged");
    assert!(
        tagged.contains("<RECOMMENDATIONS>Monitor competitors</RECOMMENDATIONS>"),
        "{tagged}"
    );
    let task = instructions(&TaskPlan::TYPE, "delimited");
    assert!(
        task.contains(
            "---STEPS---\n1. Read file\n2. Parse JSON\n3. Validate schema\n---END-STEPS---"
        ),
        "{task}"
    );
    let markdown = instructions(&TaskPlan::TYPE, "markdown");
    assert!(
        markdown.contains("## Task\nParse configuration files"),
        "{markdown}"
    );
}
