use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A note with tags.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(summary = "{txt} ({tags.len})")]
struct Note {
    text: String,
    tags: Vec<String>,
}

fn main() {}
