use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One change.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "action")]
enum Change {
    #[payload(marker = "REMOVE")]
    Remove { column_id: String },
    Clear,
}

fn main() {}
