use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Plan {
    #[payload(rule = "at least one step")]
    steps: Vec<String>,
}
fn main() {}
