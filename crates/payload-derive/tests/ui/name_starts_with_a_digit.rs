use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "2x_plan")]
struct Plan {
    steps: Vec<String>,
}
fn main() {}
