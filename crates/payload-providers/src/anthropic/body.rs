//! The body of Anthropic's `POST /v1/messages`: the system prompt at the top level, the
//! conversation as user and assistant messages of content blocks (tool calls as
//! `tool_use`, their results as `tool_result` blocks of one user message), the tools,
//! extended thinking with its budget, and the output in the mode
//! [`crate::mode::resolve`] chose: `output_config.format` json_schema (native), an
//! output tool with `strict: true` when its schema is strict (tool), nothing but the
//! instructions (prompted).

use super::decode::PROVIDER;
use crate::config::ClientConfig;
use crate::mode::{Sent, native, tool_schema};
use crate::output_name;
use payload_agent::{ModelMessage, ModelRequest};
use payload_core::schema::Dialect;
use serde::Serialize;
use serde_json::Value;

/// The token limit sent when none is configured (Anthropic requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The body of `POST /v1/messages`.
#[derive(Debug, Serialize)]
pub(crate) struct MessagesRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: &'a str,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    stream: bool,
}

#[derive(Debug, Serialize)]
struct Message<'a> {
    role: &'static str,
    content: MessageContent<'a>,
}

/// A lone text block is sent as plain text, the common form.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum MessageContent<'a> {
    Text(&'a str),
    Blocks(Vec<Block<'a>>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
    },
    /// A block of the answer sent back as it came (a signed thinking block).
    #[serde(untagged)]
    Replay(&'a Value),
}

#[derive(Debug, Serialize)]
struct Tool<'a> {
    name: String,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ToolChoice {
    /// This tool.
    Tool { name: String },
    /// Any tool.
    Any,
}

#[derive(Debug, Serialize)]
struct OutputConfig<'a> {
    format: OutputFormat<'a>,
}

#[derive(Debug, Serialize)]
struct OutputFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    schema: &'a Value,
}

#[derive(Debug, Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

/// The body for `request` sent in mode `sent`, with extended thinking if a budget is
/// set. The API refuses forced tool use with thinking on, so then the output tool is
/// offered, not forced (the answer comes through it or as text). The token limit must
/// exceed the thinking budget: a limit at or under it is raised by the budget, so the
/// answer keeps the room configured for it.
pub(crate) fn body<'a>(
    config: &'a ClientConfig,
    request: &'a ModelRequest,
    sent: Sent,
    thinking_budget: Option<u32>,
) -> MessagesRequest<'a> {
    let mut tools: Vec<Tool<'a>> = request
        .tools
        .iter()
        .map(|spec| Tool {
            name: spec.name.clone(),
            description: &spec.description,
            input_schema: &spec.input_schema,
            strict: false,
        })
        .collect();
    let page_tools = !tools.is_empty();
    let mut tool_choice = None;
    let mut output_config = None;
    match (sent, &request.output) {
        (Sent::Native, Some(output)) => {
            output_config = Some(OutputConfig {
                format: OutputFormat {
                    kind: "json_schema",
                    schema: native(output, Dialect::AnthropicStrict).unwrap_or(&output.schema),
                },
            });
        }
        (Sent::Tool, Some(output)) => {
            let name = output_name(&output.name);
            let (input_schema, strict) = tool_schema(output, Dialect::AnthropicStrict);
            tools.push(Tool {
                name: name.clone(),
                description: &output.description,
                input_schema,
                strict,
            });
            if thinking_budget.is_none() {
                tool_choice = Some(if page_tools {
                    ToolChoice::Any
                } else {
                    ToolChoice::Tool { name }
                });
            }
        }
        _ => {}
    }
    let mut max_tokens = config.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    if let Some(budget) = thinking_budget.filter(|b| *b >= max_tokens) {
        max_tokens = max_tokens.saturating_add(budget);
    }
    MessagesRequest {
        model: &config.model,
        max_tokens,
        system: &request.system,
        messages: messages(&request.messages),
        tools,
        tool_choice,
        output_config,
        thinking: thinking_budget.map(|budget| Thinking {
            kind: "enabled",
            budget_tokens: budget,
        }),
        // Thinking takes no temperature but the default.
        temperature: config.temperature.filter(|_| thinking_budget.is_none()),
        stream: true,
    }
}

/// The conversation as Anthropic messages. Messages of one role in a row are joined
/// into one (the API wants the roles to alternate), which is also what puts the results
/// of one answer's tool calls into one user message.
fn messages(conversation: &[ModelMessage]) -> Vec<Message<'_>> {
    let mut turns: Vec<(&'static str, Vec<Block<'_>>)> = Vec::new();
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
        .map(|(role, mut blocks)| {
            let content = match blocks.as_slice() {
                [Block::Text { text }] => MessageContent::Text(text),
                _ => MessageContent::Blocks(std::mem::take(&mut blocks)),
            };
            Message { role, content }
        })
        .collect()
}

fn blocks(message: &ModelMessage) -> (&'static str, Vec<Block<'_>>) {
    match message {
        ModelMessage::User { text } => ("user", vec![Block::Text { text }]),
        ModelMessage::Assistant {
            text, tool_calls, ..
        } => {
            // The thinking blocks came first in the answer, and go back first: the API
            // checks that the blocks before the tool calls are the ones it signed.
            let replay = message.replay_for(PROVIDER).map(Block::Replay);
            let text = (!text.is_empty()).then_some(Block::Text { text });
            let calls = tool_calls.iter().map(|call| Block::ToolUse {
                id: &call.id,
                name: &call.name,
                input: &call.input,
            });
            ("assistant", replay.chain(text).chain(calls).collect())
        }
        ModelMessage::Tool { id, text, .. } => (
            "user",
            vec![Block::ToolResult {
                tool_use_id: id,
                content: text,
            }],
        ),
    }
}

/// Whether an Anthropic model has structured outputs (`output_config.format`): the
/// Claude 4.5 generation and later, and Opus 4.1; not Claude 3, Sonnet 4 or Opus 4.
pub(crate) fn has_structured_outputs(model: &str) -> bool {
    const WITHOUT: [&str; 7] = [
        "claude-3",
        "claude-2",
        "claude-instant",
        "claude-sonnet-4-0",
        "claude-sonnet-4-2025",
        "claude-opus-4-0",
        "claude-opus-4-2025",
    ];
    !WITHOUT.iter().any(|prefix| model.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::has_structured_outputs;

    #[test]
    fn structured_outputs_by_model() {
        assert!(has_structured_outputs("claude-sonnet-4-5"));
        assert!(has_structured_outputs("claude-opus-4-1-20250805"));
        assert!(has_structured_outputs("claude-haiku-4-5-20251001"));
        assert!(!has_structured_outputs("claude-3-5-sonnet-20241022"));
        assert!(!has_structured_outputs("claude-sonnet-4-20250514"));
        assert!(!has_structured_outputs("claude-opus-4-0"));
    }
}
