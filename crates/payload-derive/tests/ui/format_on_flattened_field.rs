use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who wrote it.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Author {
    name: String,
}

/// A report.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
struct Report {
    title: String,
    #[serde(flatten)]
    #[payload(format(xml(attribute)))]
    author: Author,
}

fn main() {}
