use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A point.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Point(i32, i32);

fn main() {}
