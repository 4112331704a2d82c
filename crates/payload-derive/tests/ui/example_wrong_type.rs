use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(example = make_steps)]
struct Plan {
    steps: Vec<String>,
}

fn make_steps() -> Vec<String> {
    vec!["write the migration".to_string()]
}
fn main() {}
