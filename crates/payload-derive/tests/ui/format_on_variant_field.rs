use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A command.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "intent")]
enum Command {
    Search {
        #[payload(format(xml(element = "q")))]
        query: String,
    },
}
fn main() {}
