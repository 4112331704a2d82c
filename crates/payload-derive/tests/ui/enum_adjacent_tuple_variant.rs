use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What to do next.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "intent", content = "parameters")]
enum Intent {
    Search(String, u32),
    Reset,
}

fn main() {}
