use payload_core::PayloadError;
use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One change.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "action", content = "parameters")]
enum Change {
    #[payload(check = check_remove)]
    Remove(RemoveParams),
    Clear,
}

/// Parameters of `remove`.
#[derive(Serialize, Deserialize, JsonSchema)]
struct RemoveParams {
    column_id: String,
}

fn check_remove(_: &Change) -> Vec<PayloadError> {
    Vec::new()
}

fn main() {}
