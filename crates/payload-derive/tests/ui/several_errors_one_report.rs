use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "Plan", nmae = "plan", example = "make_plan")]
struct Plan {
    steps: Vec<String>,
}

fn uses_the_type<T: payload_core::LlmPayload>() {}

fn also_uses() {
    uses_the_type::<Plan>();
}
fn main() {}
