//! The body of Anthropic's `POST /v1/messages`: the system prompt at the top level, the
//! conversation as user and assistant messages of content blocks (tool calls as
//! `tool_use`, their results as `tool_result` blocks of one user message), the tools,
//! and whole-response output as a forced tool whose input is the answer.

use crate::config::ClientConfig;
use crate::output_name;
use payload_agent::{ModelMessage, ModelRequest, ToolSpec};
use serde_json::{Map, Value, json};

/// The token limit sent when none is configured (Anthropic requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The JSON body for `request`, streamed.
pub(crate) fn body(config: &ClientConfig, request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert(
        "max_tokens".into(),
        json!(config.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    if !request.system.is_empty() {
        body.insert("system".into(), json!(request.system));
    }
    body.insert("messages".into(), Value::Array(messages(&request.messages)));
    let mut tools: Vec<Value> = request.tools.iter().map(tool).collect();
    if let Some(output) = &request.output {
        let name = output_name(&output.name);
        tools.push(json!({
            "name": name,
            "description": output.description,
            "input_schema": output.schema,
        }));
        body.insert("tool_choice".into(), json!({"type": "tool", "name": name}));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(temperature) = config.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// The conversation as Anthropic messages. Messages of one role in a row are joined
/// into one (the API wants the roles to alternate), which is also what puts the results
/// of one answer's tool calls into one user message.
fn messages(conversation: &[ModelMessage]) -> Vec<Value> {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for message in conversation {
        let (role, blocks) = blocks(message);
        if blocks.is_empty() {
            // An empty answer: the API refuses empty content, and it says nothing.
            continue;
        }
        match turns.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    turns
        .into_iter()
        .map(|(role, blocks)| {
            // A lone text block is sent as plain text, the common form.
            let content = match blocks.as_slice() {
                [block] if block["type"] == "text" => block["text"].clone(),
                _ => Value::Array(blocks),
            };
            json!({"role": role, "content": content})
        })
        .collect()
}

fn blocks(message: &ModelMessage) -> (&'static str, Vec<Value>) {
    match message {
        ModelMessage::User { text } => ("user", vec![text_block(text)]),
        ModelMessage::Assistant { text, tool_calls } => {
            let text = (!text.is_empty()).then(|| text_block(text));
            let calls = tool_calls.iter().map(|call| {
                json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.input})
            });
            ("assistant", text.into_iter().chain(calls).collect())
        }
        ModelMessage::Tool { id, text, .. } => (
            "user",
            vec![json!({"type": "tool_result", "tool_use_id": id, "content": text})],
        ),
    }
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn tool(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema,
    })
}
