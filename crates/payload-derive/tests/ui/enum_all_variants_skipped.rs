use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What happened last.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
enum Outcome {
    #[serde(skip_deserializing)]
    Done,
    #[serde(skip_deserializing)]
    Failed { reason: String },
}

fn main() {}
