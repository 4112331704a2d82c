//! The two types of the output-schema app, with its `x-format` blocks: `AnalysisResult` declares
//! them with `#[payload(format(...))]`, `TaskPlan` with schemars' `extend`; both reach the
//! schema as the same `x-format` object.

use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An analysis of the data the user gave, with how sure it is and what to do next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "analysis_result",
    register,
    example = crate::examples::analysis_result,
    summary = "{analysis}",
    format(
        xml(root = "analysis-result"),
        delimited(section = "===={NAME}===="),
        tagged(case = "uppercase")
    )
)]
pub struct AnalysisResult {
    /// Detailed analysis of the data.
    pub analysis: String,
    /// Confidence level in the analysis, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Option<f64>,
    /// Top recommendations based on the analysis.
    #[serde(default)]
    #[payload(format(
        xml(element = "recommendations", item = "recommendation"),
        delimited(list = "bullet"),
        tagged(multi = "separate-tags")
    ))]
    pub recommendations: Vec<String>,
}

/// A task broken into the steps that carry it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "task_plan",
    register,
    example = crate::examples::task_plan,
    summary = "{task} ({steps.len} steps)"
)]
#[schemars(extend("x-format" = {
    "xml": {
        "root-element": "response",
        "properties": {"steps": {"element": "steps", "item-element": "step"}}
    },
    "delimited": {
        "section-pattern": "---{NAME}---",
        "end-pattern": "---END-{NAME}---",
        "properties": {"steps": {"list-format": "numbered"}}
    }
}))]
pub struct TaskPlan {
    /// Main task description.
    #[schemars(length(min = 5))]
    pub task: String,
    /// How sure the plan is, from 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: f64,
    /// The steps, in order.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub steps: Vec<String>,
}
