//! Reasoning in whole-response mode (docs/spec.md §9.1): removed before detection and reading,
//! returned as `reasoning`.

use crate::LlmPayload;
use crate::formats::Format;
use crate::warning::WarningKind;
use crate::{extract_as, extract_json};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Verdict {
    answer: String,
    reasoning: Option<String>,
}

impl LlmPayload for Verdict {
    const NAME: &'static str = "verdict";
    const MARKER: &'static str = "VERDICT";
    const DESCRIPTION: &'static str = "A verdict.";
}

const RESPONSE: &str =
    "<think>\nFirst try: {\"answer\": \"draft\"}\n</think>\n\n{\"answer\": \"final\"}";

#[test]
fn a_draft_in_reasoning_never_wins_over_the_answer() {
    for result in [
        extract_json(RESPONSE, &Verdict::TYPE),
        extract_as(RESPONSE, &Verdict::TYPE, Some(Format::Json)),
        extract_as(RESPONSE, &Verdict::TYPE, None),
    ] {
        assert!(result.success, "{result:?}");
        assert_eq!(result.format, "json");
        assert_eq!(result.data.unwrap()["answer"], "final");
        assert_eq!(
            result.reasoning.as_deref(),
            Some("First try: {\"answer\": \"draft\"}")
        );
    }
}

#[test]
fn a_leading_think_does_not_make_the_response_xml() {
    for text in [
        "<think>\nThe user wants a verdict.\nSo: yes.\n</think>\n\n{\"answer\": \"yes\"}",
        "<think>Short.</think>\n```json\n{\"answer\": \"yes\"}\n```",
    ] {
        let result = extract_as(text, &Verdict::TYPE, None);
        assert!(result.success, "{result:?}");
        assert_eq!(result.format, "json");
        assert_eq!(result.data.as_ref().unwrap()["answer"], "yes");
        let json = serde_json::to_value(&result).unwrap();
        assert!(json["reasoning"].as_str().unwrap().ends_with('.'));
    }
    // No reasoning: no `reasoning` key at all.
    let plain =
        serde_json::to_value(extract_json("{\"answer\": \"yes\"}", &Verdict::TYPE)).unwrap();
    assert!(plain.get("reasoning").is_none());
}

#[test]
fn a_reasoning_element_inside_an_xml_answer_is_a_member() {
    let text = "<think>plan</think>\n<verdict>\n<reasoning>because</reasoning>\n<answer>yes</answer>\n</verdict>";
    let result = extract_as(text, &Verdict::TYPE, Some(Format::Xml));
    assert!(result.success, "{result:?}");
    let data = result.data.unwrap();
    assert_eq!(data["reasoning"], "because");
    assert_eq!(data["answer"], "yes");
    assert_eq!(result.reasoning.as_deref(), Some("plan"));
}

#[test]
fn an_unclosed_section_leaves_no_answer_and_says_why() {
    let result = extract_json("<think>{\"answer\": \"draft\"}", &Verdict::TYPE);
    assert!(!result.success);
    assert_eq!(result.reasoning.as_deref(), Some("{\"answer\": \"draft\"}"));
    assert_eq!(result.warnings[0].kind, WarningKind::UnclosedReasoning);
}
