use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A page of results.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct ResultPage<T> {
    items: Vec<T>,
}
fn main() {}
