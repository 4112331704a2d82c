use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Plan {
    #[payload(format(xml(item = 5)))]
    steps: Vec<String>,
}
fn main() {}
