use payload_core::Partial;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, JsonSchema, Partial)]
struct Pair(String, u8);
fn main() {}
