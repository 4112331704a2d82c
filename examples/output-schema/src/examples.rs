//! The example instances shown in the instructions: the seed's own examples.

use crate::types::{AnalysisResult, TaskPlan};

/// The output-schema app's "intelligent multi-format generation" example.
pub fn analysis_result() -> AnalysisResult {
    AnalysisResult {
        analysis: "Market trends show strong upward momentum in Q3".into(),
        confidence: Some(0.87),
        recommendations: vec![
            "Increase inventory".into(),
            "Expand marketing".into(),
            "Monitor competitors".into(),
        ],
    }
}

/// The output-schema app's "parse configuration files" example.
pub fn task_plan() -> TaskPlan {
    TaskPlan {
        task: "Parse configuration files".into(),
        confidence: 0.85,
        steps: vec![
            "Read file".into(),
            "Parse JSON".into(),
            "Validate schema".into(),
        ],
    }
}
