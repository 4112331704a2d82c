use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A path on a board.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Path {
    squares: Vec<(u8, u8)>,
}

fn main() {}
