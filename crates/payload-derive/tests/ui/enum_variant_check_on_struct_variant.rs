use payload_core::PayloadError;
use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One change.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "action")]
enum Change {
    #[payload(check = check_remove)]
    Remove { column_id: String },
    Clear,
}

fn check_remove(_: &String) -> Vec<PayloadError> {
    Vec::new()
}

fn main() {}
