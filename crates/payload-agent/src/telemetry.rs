//! The turn's `tracing` spans, named and attributed as the OpenTelemetry GenAI semantic
//! conventions (v1.37) say, so an exporter (`payload-otel`) sends them as they are:
//! `invoke_agent {page}` for the turn, `execute_tool {name}` for each tool call, and
//! `read_answer` for each read of an answer (the framework's own: what was accepted,
//! rejected and repaired, and whether a re-ask followed). The `chat {model}` span of
//! each model call is the provider client's. `otel.name` and `otel.kind` are the names
//! `tracing-opentelemetry` reads for the exported span's name and kind.
//!
//! A list the conventions type as an array is recorded as its items joined by `,`
//! (a field holds one value); the exporter splits it back. Message contents (the
//! system prompt, the conversation, the answer, tool arguments and results) are
//! recorded only when the agent was told to ([`crate::Agent::capture_content`]), in the
//! conventions' JSON shapes; nothing here ever sees a key.

use crate::finish::FinishReason;
use crate::model::{ModelMessage, ToolCall, Usage};
use payload_core::{ParsedResponse, WarningKind};
use serde_json::{Value, json};
use tracing::Span;
use tracing::field::Empty;

/// The span of one turn on `page`; with `content`, the system prompt and the
/// conversation it starts from are recorded.
pub(crate) fn turn_span(
    page: &str,
    system: &str,
    messages: &[ModelMessage],
    content: bool,
) -> Span {
    let span = tracing::info_span!(
        "turn",
        otel.name = %format_args!("invoke_agent {page}"),
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = %page,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.system_instructions = Empty,
        gen_ai.input.messages = Empty,
        gen_ai.output.messages = Empty,
        payload.refusal = Empty,
    );
    // Contents are serialized only for a span someone records.
    if content && !span.is_disabled() {
        if !system.is_empty() {
            span.record(
                "gen_ai.system_instructions",
                json!([{"type": "text", "content": system}]).to_string(),
            );
        }
        let input: Vec<Value> = messages.iter().map(message).collect();
        span.record("gen_ai.input.messages", Value::Array(input).to_string());
    }
    span
}

/// Records the turn's end on its span: the tokens of all its calls and (when contents
/// are recorded) the answer kept. A refusal is recorded where it is seen
/// (`payload.refusal`, its reason).
pub(crate) fn turn_completed(
    span: &Span,
    usage: Usage,
    answer: Option<(&str, Option<&FinishReason>)>,
) {
    span.record("gen_ai.usage.input_tokens", int(usage.input_tokens))
        .record("gen_ai.usage.output_tokens", int(usage.output_tokens));
    if let Some((text, finish)) = answer {
        let output = json!([{
            "role": "assistant",
            "parts": [{"type": "text", "content": text}],
            "finish_reason": finish.map_or("stop", FinishReason::as_str),
        }]);
        span.record("gen_ai.output.messages", output.to_string());
    }
}

/// The span of one tool call; with `content`, its arguments are recorded.
pub(crate) fn tool_span(call: &ToolCall, content: bool) -> Span {
    let span = tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        error.type = Empty,
    );
    if content {
        span.record("gen_ai.tool.call.arguments", call.input.to_string());
    }
    span
}

/// Records a tool call's outcome: an error type when the tool is unknown or failed,
/// and (with `content`) the text the model gets back.
pub(crate) fn tool_completed(span: &Span, error: Option<&'static str>, text: &str, content: bool) {
    if let Some(error) = error {
        span.record("error.type", error)
            .record("otel.status_code", "error");
    }
    if content {
        span.record("gen_ai.tool.call.result", text);
    }
}

/// The span of one read of an answer on `page`.
pub(crate) fn read_span(page: &str) -> Span {
    tracing::info_span!(
        "read_answer",
        otel.kind = "internal",
        gen_ai.agent.name = %page,
        payload.accepted = Empty,
        payload.rejected = Empty,
        payload.error_kinds = Empty,
        payload.repairs = Empty,
        payload.reask = Empty,
        payload.truncated = Empty,
    )
}

/// Records what the read found on its span: the types accepted, the blocks rejected
/// (each also an event with its type and first error kind, which the exporter
/// counts), the error kinds, the repairs, whether the answer was cut by the token
/// limit and whether it is sent back to be corrected. Call it inside the span.
pub(crate) fn read_completed(span: &Span, parsed: &ParsedResponse, truncated: bool, reask: bool) {
    // An app with no subscriber pays for no lists.
    if span.is_disabled() {
        return;
    }
    let accepted: Vec<&str> = parsed.accepted_blocks().map(|(kind, _)| kind).collect();
    let mut rejected = Vec::new();
    let mut kinds: Vec<&'static str> = Vec::new();
    let not_accepted = parsed
        .rejected
        .iter()
        .map(|r| {
            (
                r.kind.as_str(),
                r.errors.iter().map(|e| e.kind()).collect::<Vec<_>>(),
            )
        })
        .chain(
            parsed
                .missed_blocks()
                .iter()
                .map(|m| (m.kind.as_str(), vec![m.error.kind()])),
        );
    for (kind, errors) in not_accepted {
        let first = errors.first().map_or("unknown", |e| e.as_str());
        tracing::info!(
            payload.type = kind,
            error.type = first,
            errors = errors.len(),
            "payload rejected"
        );
        rejected.push(kind);
        for error in errors {
            if !kinds.contains(&error.as_str()) {
                kinds.push(error.as_str());
            }
        }
    }
    let repairs = parsed
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Repaired)
        .count();
    span.record("payload.accepted", accepted.join(","))
        .record("payload.rejected", rejected.join(","))
        .record("payload.error_kinds", kinds.join(","))
        .record("payload.repairs", int(repairs as u64))
        .record("payload.truncated", truncated)
        .record("payload.reask", reask);
}

/// A count as a signed integer: `tracing-opentelemetry` exports an `i64` as an integer
/// attribute and a `u64` as text, and the conventions type these as integers.
fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// One message in the conventions' input shape (`role` and `parts`).
fn message(message: &ModelMessage) -> Value {
    match message {
        ModelMessage::User { text } => {
            json!({"role": "user", "parts": [{"type": "text", "content": text}]})
        }
        ModelMessage::Assistant {
            text, tool_calls, ..
        } => {
            let mut parts = Vec::new();
            if !text.is_empty() {
                parts.push(json!({"type": "text", "content": text}));
            }
            parts.extend(tool_calls.iter().map(|call| {
                json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.input})
            }));
            json!({"role": "assistant", "parts": parts})
        }
        ModelMessage::Tool { id, text, .. } => json!({
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": id, "response": text}],
        }),
    }
}
