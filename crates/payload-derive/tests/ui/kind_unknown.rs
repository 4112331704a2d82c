use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Starts a timer.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "TIMER", kind = "action")]
struct Timer {
    minutes: u32,
}
fn main() {}
