use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One change.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "action")]
enum Change {
    Rename(String, String),
    Remove { column_id: String },
}

fn main() {}
