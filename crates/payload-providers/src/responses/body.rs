//! The body of `POST /v1/responses` for a request: the system prompt as
//! `instructions`, the conversation as input items (messages, the model's function
//! calls, their outputs), the page's tools as strict-when-possible functions, and the
//! output in the mode [`crate::mode::resolve`] chose: `text.format` json_schema
//! (native), an output function the model must call (tool), JSON mode (prompted). A
//! Lark grammar for marker pages is a custom tool whose input the grammar constrains,
//! which the model must call to answer.

use super::decode::PROVIDER;
use super::wire::{
    GrammarFormat, InputItem, ReasoningConfig, ResponsesRequest, TextConfig, TextFormat, Tool,
};
use crate::config::ClientConfig;
use crate::mode::{Sent, native, tool_schema};
use crate::output_name;
use payload_agent::{ModelMessage, ModelRequest};
use payload_core::schema::Dialect;
use serde_json::json;

/// The name of the custom tool that carries a grammar-constrained answer.
pub const GRAMMAR_TOOL: &str = "answer";

/// What the client adds to every request besides the configuration.
#[derive(Debug, Clone, Default)]
pub(crate) struct Extras {
    /// A Lark grammar the answer of a marker page must follow.
    pub grammar: Option<String>,
    /// The reasoning effort (`minimal`, `low`, `medium`, `high`), with a summary.
    pub reasoning_effort: Option<String>,
}

/// The body for `request` sent in mode `sent`.
pub(crate) fn body<'a>(
    config: &'a ClientConfig,
    extras: &'a Extras,
    request: &'a ModelRequest,
    sent: Sent,
) -> ResponsesRequest<'a> {
    let mut tools: Vec<Tool<'a>> = request
        .tools
        .iter()
        .map(|spec| Tool::Function {
            name: spec.name.clone(),
            description: &spec.description,
            parameters: &spec.input_schema,
            // A page tool's schema is not written in the strict subset.
            strict: false,
        })
        .collect();
    let page_tools = !tools.is_empty();
    let mut tool_choice = None;
    let mut text = None;
    match (sent, &request.output) {
        (Sent::Native, Some(output)) => {
            text = Some(TextConfig {
                format: TextFormat::JsonSchema {
                    name: output_name(&output.name),
                    description: &output.description,
                    schema: native(output, Dialect::OpenAiStrict).unwrap_or(&output.schema),
                    strict: true,
                },
            });
        }
        (Sent::Tool, Some(output)) => {
            let (parameters, strict) = tool_schema(output, Dialect::OpenAiStrict);
            tools.push(Tool::Function {
                name: output_name(&output.name),
                description: &output.description,
                parameters,
                strict,
            });
            tool_choice = Some(must_call(
                "function",
                &output_name(&output.name),
                page_tools,
            ));
        }
        (Sent::Prompted, Some(_)) => {
            text = Some(TextConfig {
                format: TextFormat::JsonObject,
            });
        }
        _ => {
            if let Some(grammar) = &extras.grammar {
                tools.push(Tool::Custom {
                    name: GRAMMAR_TOOL,
                    description: "Write your whole answer as this tool's input.",
                    format: GrammarFormat {
                        kind: "grammar",
                        syntax: "lark",
                        definition: grammar,
                    },
                });
                tool_choice = Some(must_call("custom", GRAMMAR_TOOL, page_tools));
            }
        }
    }
    ResponsesRequest {
        model: &config.model,
        instructions: &request.system,
        input: request.messages.iter().flat_map(items).collect(),
        tools,
        tool_choice,
        text,
        reasoning: extras
            .reasoning_effort
            .as_deref()
            .map(|effort| ReasoningConfig {
                effort,
                summary: "auto",
            }),
        max_output_tokens: config.max_tokens,
        temperature: config.temperature,
        stream: true,
        store: false,
        include: extras
            .reasoning_effort
            .iter()
            .map(|_| "reasoning.encrypted_content")
            .collect(),
    }
}

/// The model must call `name` (of `kind`), or, with the page's tools beside it, any
/// tool: the page's tools stay callable, and the answer comes through `name`.
fn must_call(kind: &str, name: &str, page_tools: bool) -> serde_json::Value {
    if page_tools {
        json!("required")
    } else {
        json!({"type": kind, "name": name})
    }
}

fn items(message: &ModelMessage) -> Vec<InputItem<'_>> {
    match message {
        ModelMessage::User { text } => vec![InputItem::Message {
            role: "user",
            content: text,
        }],
        ModelMessage::Assistant {
            text, tool_calls, ..
        } => {
            // Reasoning items came before the answer's message and calls: they go back
            // first.
            let replay = message.replay_for(PROVIDER).map(InputItem::Replay);
            let text = (!text.is_empty()).then_some(InputItem::Message {
                role: "assistant",
                content: text,
            });
            let calls = tool_calls.iter().map(|call| InputItem::FunctionCall {
                call_id: &call.id,
                name: &call.name,
                arguments: call.input.to_string(),
            });
            replay.chain(text).chain(calls).collect()
        }
        ModelMessage::Tool { id, text, .. } => vec![InputItem::FunctionCallOutput {
            call_id: id,
            output: text,
        }],
    }
}
