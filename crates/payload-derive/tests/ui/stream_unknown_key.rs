use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(partial)]
struct Plan {
    #[payload(stream(done))]
    steps: Vec<String>,
}
fn main() {}
