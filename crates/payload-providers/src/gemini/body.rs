//! The body of Gemini's `streamGenerateContent` for a request: the system prompt as the
//! `systemInstruction`, the conversation as `user` and `model` turns of parts (the
//! model's calls as `functionCall` parts with their thought signature, their results
//! as `functionResponse` parts of one user turn), the page's tools as function
//! declarations, and the output in the mode [`crate::mode::resolve`] chose:
//! `responseJsonSchema` with `responseMimeType: application/json` (native), an output
//! function the model must call (tool), JSON mode (prompted).

use super::decode::SIGNATURE_ID;
use super::wire::{
    Content, FunctionCall, FunctionCallingConfig, FunctionDeclaration, FunctionResponse,
    GenerateRequest, GenerationConfig, Part, ThinkingConfig, ToolConfig, Tools,
};
use crate::config::ClientConfig;
use crate::mode::{Sent, native, tool_schema};
use crate::output_name;
use payload_agent::{ModelMessage, ModelRequest};
use payload_core::schema::Dialect;
use serde_json::json;

/// The body for `request` sent in mode `sent`, with a thinking budget if one is set.
pub(crate) fn body<'a>(
    config: &'a ClientConfig,
    request: &'a ModelRequest,
    sent: Sent,
    thinking_budget: Option<u32>,
) -> GenerateRequest<'a> {
    let mut declarations: Vec<FunctionDeclaration<'a>> = request
        .tools
        .iter()
        .map(|spec| FunctionDeclaration {
            name: spec.name.clone(),
            description: &spec.description,
            parameters_json_schema: &spec.input_schema,
        })
        .collect();
    let page_tools = !declarations.is_empty();
    let mut generation = GenerationConfig {
        max_output_tokens: config.max_tokens,
        temperature: config.temperature,
        thinking_config: thinking_budget.map(|budget| ThinkingConfig {
            include_thoughts: true,
            thinking_budget: budget,
        }),
        ..GenerationConfig::default()
    };
    let mut tool_config = None;
    match (sent, &request.output) {
        (Sent::Native, Some(output)) => {
            generation.response_mime_type = Some("application/json");
            generation.response_json_schema =
                Some(native(output, Dialect::Gemini).unwrap_or(&output.schema));
        }
        (Sent::Tool, Some(output)) => {
            let name = output_name(&output.name);
            declarations.push(FunctionDeclaration {
                name: name.clone(),
                description: &output.description,
                parameters_json_schema: tool_schema(output, Dialect::Gemini).0,
            });
            // With the page's tools beside it, any call: the tools stay callable.
            tool_config = Some(ToolConfig {
                function_calling_config: FunctionCallingConfig {
                    mode: "ANY",
                    allowed_function_names: if page_tools { Vec::new() } else { vec![name] },
                },
            });
        }
        (Sent::Prompted, Some(_)) => generation.response_mime_type = Some("application/json"),
        _ => {}
    }
    let tools = if declarations.is_empty() {
        Vec::new()
    } else {
        vec![Tools {
            function_declarations: declarations,
        }]
    };
    GenerateRequest {
        contents: contents(&request.messages),
        system_instruction: (!request.system.is_empty()).then(|| Content {
            role: None,
            parts: vec![Part::text(&request.system)],
        }),
        tools,
        tool_config,
        generation_config: generation,
    }
}

/// The conversation as turns; parts of one role in a row join one turn (the results
/// of one answer's calls go back together, as Gemini asks).
fn contents(messages: &[ModelMessage]) -> Vec<Content<'_>> {
    let mut turns: Vec<Content<'_>> = Vec::new();
    for message in messages {
        let (role, parts) = parts(message);
        if parts.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some(last) if last.role == Some(role) => last.parts.extend(parts),
            _ => turns.push(Content {
                role: Some(role),
                parts,
            }),
        }
    }
    turns
}

fn parts(message: &ModelMessage) -> (&'static str, Vec<Part<'_>>) {
    match message {
        ModelMessage::User { text } => ("user", vec![Part::text(text)]),
        ModelMessage::Assistant {
            text, tool_calls, ..
        } => {
            let text = (!text.is_empty()).then(|| Part::text(text));
            let calls = tool_calls.iter().map(|call| Part {
                text: None,
                function_call: Some(FunctionCall {
                    name: &call.name,
                    args: &call.input,
                }),
                function_response: None,
                thought_signature: call.id.strip_prefix(SIGNATURE_ID),
            });
            ("model", text.into_iter().chain(calls).collect())
        }
        ModelMessage::Tool { name, text, .. } => (
            "user",
            vec![Part {
                text: None,
                function_call: None,
                function_response: Some(FunctionResponse {
                    name,
                    response: json!({ "result": text }),
                }),
                thought_signature: None,
            }],
        ),
    }
}
