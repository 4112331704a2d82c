use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A title.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(transparent)]
struct Title {
    text: String,
}

fn main() {}
