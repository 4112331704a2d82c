use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(check = has_steps)]
struct Plan {
    steps: Vec<String>,
}

fn has_steps(plan: &Plan) -> bool {
    !plan.steps.is_empty()
}
fn main() {}
