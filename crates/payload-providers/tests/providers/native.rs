//! Native output for realistic types against loopback servers: what a dialect cannot
//! enforce is left out of what is sent and checked locally (an answer that breaks it is
//! re-asked), and a tagged enum at the top is wrapped in an object member on the way
//! out and unwrapped on the way back.

use crate::support::*;
use payload_agent::{ModelMessage, ModelRequest, OutputMode};
use payload_core::{LlmPayload, retry::RetryPolicy};
use payload_providers::{Anthropic, ExtractOptions, Gemini, OpenAiResponses};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A sign-up, with a length and bounds no provider enforces everywhere.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "signup", marker = "SIGNUP")]
struct Signup {
    /// The name.
    #[schemars(length(min = 1, max = 80))]
    name: String,
    /// The age.
    #[schemars(range(min = 13, max = 150))]
    age: u8,
}

/// A command, tagged at the top.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[payload(name = "command", marker = "COMMAND")]
enum Command {
    /// Add an item.
    Add {
        /// The item.
        item: String,
    },
    /// Remove one.
    Remove {
        /// Its id.
        id: u32,
    },
}

fn request() -> ModelRequest {
    let mut request = ModelRequest::new(vec![ModelMessage::user("Sign me up")]);
    request.system = "Answer in JSON.".into();
    request
}

fn options() -> ExtractOptions {
    let mut policy = RetryPolicy::attempts(2);
    policy.delay = std::time::Duration::ZERO;
    ExtractOptions::new(policy).mode(OutputMode::Native)
}

fn responses_text(text: &str) -> Reply {
    let delta = json!({"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "content_index": 0, "delta": text});
    let done = json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 20, "output_tokens": 8}}});
    Reply::Stream(format!("event: response.output_text.delta\ndata: {delta}\n\nevent: response.completed\ndata: {done}\n\n").into_bytes())
}

fn gemini_text(text: &str) -> Reply {
    let chunk = json!({"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 8}});
    Reply::Stream(format!("data: {chunk}\r\n\r\n").into_bytes())
}

#[tokio::test]
async fn a_tagged_enum_at_the_top_is_wrapped_out_and_unwrapped_back() {
    let server = Server::start(vec![responses_text(
        r#"{"value": {"kind": "add", "item": "milk"}}"#,
    )]);
    let mut model = OpenAiResponses::new("gpt-5-mini")
        .base_url(format!("{}/v1", server.url))
        .no_api_key();
    let extraction =
        payload_providers::extract_in::<Command>(&mut model, request(), options()).await;
    assert_eq!(
        extraction.value,
        Some(Command::Add {
            item: "milk".into()
        }),
        "{:?}",
        extraction.outcome
    );
    let format = &server.received()[0].body["text"]["format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["schema"]["required"], json!(["value"]));
    assert!(format["schema"]["properties"]["value"]["anyOf"].is_array());
}

#[tokio::test]
async fn what_gemini_does_not_enforce_is_checked_locally_and_re_asked() {
    let server = Server::start(vec![
        // The empty name breaks minLength, which was not sent: the parser refuses it.
        gemini_text(r#"{"name": "", "age": 30}"#),
        gemini_text(r#"{"name": "Ada", "age": 30}"#),
    ]);
    let mut model = Gemini::new("gemini-2.5-flash")
        .base_url(&server.url)
        .no_api_key();
    let extraction =
        payload_providers::extract_in::<Signup>(&mut model, request(), options()).await;
    assert_eq!(
        extraction.value,
        Some(Signup {
            name: "Ada".into(),
            age: 30
        })
    );
    assert_eq!(extraction.outcome.attempts.len(), 2);
    let sent = &server.received()[0].body["generationConfig"]["responseJsonSchema"];
    assert!(
        sent["properties"]["name"].get("minLength").is_none(),
        "{sent}"
    );
    assert_eq!(
        sent["properties"]["age"]["maximum"], 150,
        "Gemini enforces bounds"
    );
    let reask = &server.received()[1].body["contents"];
    assert!(
        reask[2]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("/name"),
        "{reask}"
    );
}

#[test]
fn anthropic_is_sent_no_numeric_bounds_and_openai_is_sent_them() {
    let output = payload_providers::structured_output(&Signup::TYPE);
    assert!(
        output
            .unenforced
            .contains(&"anthropic-strict: /properties/age minimum".to_string()),
        "{:?}",
        output.unenforced
    );
    assert!(
        output
            .unenforced
            .contains(&"openai-strict: /properties/name minLength".to_string())
    );
    let mut request = request();
    request.output = Some(output);
    let body = Anthropic::new("claude-sonnet-4-5").body(&request);
    let schema = &body["output_config"]["format"]["schema"];
    assert!(
        schema["properties"]["age"].get("maximum").is_none(),
        "{schema}"
    );
    let body = OpenAiResponses::new("gpt-5-mini").body(&request);
    assert_eq!(
        body["text"]["format"]["schema"]["properties"]["age"]["maximum"],
        150
    );
}
