use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, JsonSchema)]
struct Step {
    title: String,
}

/// A plan whose steps have no partial form.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(partial)]
struct Plan {
    steps: Vec<Step>,
}
fn main() {}
