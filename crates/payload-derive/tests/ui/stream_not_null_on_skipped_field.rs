use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(partial)]
struct Plan {
    steps: Vec<String>,
    #[serde(skip_deserializing)]
    #[payload(stream(not_null))]
    owner: String,
}
fn main() {}
