use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Nothing to say.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
enum Nothing {}

fn main() {}
