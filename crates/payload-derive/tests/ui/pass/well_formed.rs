use payload_core::{LlmPayload, PayloadError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod examples {
    pub fn plan() -> super::Plan {
        super::Plan {
            steps: vec!["write the migration".to_string()],
        }
    }
}

/// A plan the user can approve step by step.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "plan", marker = "PLAN")]
#[payload(register, example = examples::plan, check = Plan::check_steps)]
#[payload(rule = "at least one step", summary = "{steps.len} steps")]
#[payload(crate = "::payload_core", registry = "::payload_registry")]
struct Plan {
    steps: Vec<String>,
}

impl Plan {
    fn check_steps(&self) -> Vec<PayloadError> {
        if self.steps.is_empty() {
            vec![PayloadError::validation("/steps", "a plan has at least one step")]
        } else {
            Vec::new()
        }
    }
}

#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[payload(description = "A chart to draw.", pages("reports"), kind = "display")]
enum Chart {
    Bar { labels: Vec<String>, values: Vec<f64> },
    Line { xs: Vec<f64>, ys: Vec<f64> },
}

fn main() {
    assert_eq!(Plan::NAME, "plan");
    assert_eq!(Plan::example().map(|plan| plan.summarize()).as_deref(), Some("1 steps"));
    assert_eq!(Chart::MARKER, "CHART");
    assert_eq!(Chart::DESCRIPTION, "A chart to draw.");
    assert_eq!(Chart::KIND, payload_core::PayloadKind::Display);
    assert_eq!(Plan::KIND, payload_core::PayloadKind::Proposal);
}
