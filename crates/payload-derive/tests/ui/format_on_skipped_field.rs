use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A report.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Report {
    title: String,
    #[serde(skip_deserializing)]
    #[payload(format(xml(cdata)))]
    rendered: String,
}

fn main() {}
