use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, JsonSchema)]
struct Step {
    title: String,
}

/// A command whose variant holds a type with no partial form.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "command")]
#[payload(partial)]
enum Command {
    Plan { steps: Vec<Step> },
    Stop,
}
fn main() {}
