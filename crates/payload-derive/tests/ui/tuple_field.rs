use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A point on a board.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Move {
    piece: String,
    to: (u8, u8),
}

fn main() {}
