use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A surface.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "SURFACE", tag = "a2ui-json")]
struct Surface {
    steps: Vec<String>,
}
fn main() {}
