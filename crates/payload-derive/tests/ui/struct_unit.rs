use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A marker.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Done;

fn main() {}
