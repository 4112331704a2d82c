//! A value sent inside a JSON string (docs/values.md, "A value sent inside a string"):
//! read as the value it holds, once, with a `repaired` warning; never a cut-off value.

use crate::LlmPayload;
use crate::formats::Format;
use crate::warning::WarningKind;
use crate::{ErrorKind, extract_as, extract_json};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Verdict {
    answer: String,
    sure: bool,
}

impl LlmPayload for Verdict {
    const NAME: &'static str = "verdict";
    const MARKER: &'static str = "VERDICT";
    const DESCRIPTION: &'static str = "A verdict.";
}

/// A type whose answer is a string: a string is its answer, whatever it holds.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
struct Note(String);

impl LlmPayload for Note {
    const NAME: &'static str = "note";
    const MARKER: &'static str = "NOTE";
    const DESCRIPTION: &'static str = "A note.";
}

#[test]
fn a_value_serialized_twice_is_the_value_it_holds() {
    let value = serde_json::json!({"answer": "yes", "sure": true});
    let twice = serde_json::to_string(&value.to_string()).unwrap();
    for response in [twice.clone(), format!("\n  {twice}\n")] {
        for result in [
            extract_json(&response, &Verdict::TYPE),
            extract_as(&response, &Verdict::TYPE, Some(Format::Json)),
            extract_as(&response, &Verdict::TYPE, None),
        ] {
            assert!(result.success, "{result:?}");
            assert_eq!(result.data.as_ref(), Some(&value));
            assert_eq!(result.warnings[0].kind, WarningKind::Repaired);
            assert!(result.warnings[0].message.contains("inside a JSON string"));
        }
    }
}

#[test]
fn its_errors_keep_their_paths_and_point_at_the_string() {
    let response = "\n\"{\\\"answer\\\": \\\"yes\\\", \\\"sure\\\": \\\"maybe\\\"}\"";
    let result = extract_json(response, &Verdict::TYPE);
    assert!(!result.success);
    let error = &result.errors[0];
    assert_eq!(error.path(), "/sure");
    let location = error.location().expect("located");
    assert_eq!((location.line, location.column), (2, 1));
}

#[test]
fn only_once_and_never_for_a_type_that_takes_strings() {
    let value = serde_json::json!({"answer": "yes", "sure": true}).to_string();
    let thrice = serde_json::to_string(&serde_json::to_string(&value).unwrap()).unwrap();
    let result = extract_json(&thrice, &Verdict::TYPE);
    assert!(!result.success);
    assert_eq!(result.errors[0].kind(), ErrorKind::Parsing);
    assert!(
        result.errors[0].message().contains("inside a JSON string"),
        "{result:?}"
    );
    // A string answer is the string, brackets and all.
    let twice = serde_json::to_string(&value).unwrap();
    let result = extract_json(&twice, &Note::TYPE);
    assert!(result.success, "{result:?}");
    assert_eq!(result.data, Some(serde_json::Value::String(value)));
    assert!(result.warnings.is_empty());
}

/// The same rule wherever the value stands: in a fence, after a preamble, before
/// closing prose. The text never ends inside a value, so it is never `truncated`.
#[test]
fn a_value_serialized_twice_is_read_wherever_it_stands() {
    let value = serde_json::json!({"answer": "yes", "sure": true});
    let twice = serde_json::to_string(&value.to_string()).unwrap();
    for response in [
        format!("```json\n{twice}\n```"),
        format!("Here is the answer:\n\n{twice}"),
        format!("{twice}\n\nI hope this helps."),
        format!("Sure! {twice} Anything else?"),
        format!("Here:\n```\n{twice}\n```\nDone."),
    ] {
        for result in [
            extract_json(&response, &Verdict::TYPE),
            extract_as(&response, &Verdict::TYPE, Some(Format::Json)),
        ] {
            assert!(result.success, "{response:?}: {result:?}");
            assert_eq!(result.data.as_ref(), Some(&value));
            assert_eq!(result.warnings[0].kind, WarningKind::Repaired);
            assert!(result.warnings[0].message.contains("inside a JSON string"));
        }
        let auto = extract_as(&response, &Verdict::TYPE, None);
        assert!(
            auto.errors.iter().all(|e| e.kind() != ErrorKind::Truncated),
            "{response:?}: {auto:?}"
        );
    }
    // Inside prose, a string holding a string holding a value is the error it is alone.
    let thrice = serde_json::to_string(&twice).unwrap();
    let result = extract_json(&format!("Here: {thrice} ok"), &Verdict::TYPE);
    assert!(!result.success);
    assert_eq!(result.errors[0].kind(), ErrorKind::Parsing, "{result:?}");
}
