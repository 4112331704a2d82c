use payload_core::Partial;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, JsonSchema, Partial)]
struct Page<T> {
    items: Vec<T>,
}
fn main() {}
