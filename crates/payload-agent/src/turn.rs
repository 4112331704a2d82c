//! One chat turn (the chat architecture app) as an asynchronous stream of events: the model is
//! called with the conversation and the tools; its text goes through the page's streaming
//! parser as it arrives; the tools it asks for run and their results go back to it; and
//! so on until it answers without asking for a tool, or the call limit is reached.
//!
//! The turn's text is every model call's text joined by a blank line; the `complete`
//! event carries its parse with tool precedence applied (docs/spec.md §1.10): the last payload a
//! tool returned beats one the model wrote.
//!
//! When the final answer's custom payload is rejected, or a block was meant but not
//! written as one (a page marker in another case or spelling, a marker with no value
//! after it: docs/spec.md §1.16, §1.17), the turn re-asks (once by
//! default): the re-prompt message naming every error goes back to the model as a user
//! message, a `status` event says so, and the corrected answer streams in. Its parse
//! replaces the rejected answer's in `complete` (the text of earlier calls in the turn
//! is kept); a client that shows `text_delta`s as they come should take `complete` as
//! the final word.
//!
//! Reasoning (docs/spec.md §9.1) comes from two places: the provider's reasoning channel
//! ([`ModelChunk::Reasoning`], never given to the parser) and `<think>` sections in the
//! text (which the parser takes out). Both go out as `reasoning_delta` events, joined as
//! one text (a blank line between the reasoning of different calls or channels), and
//! `complete`'s `reasoning` is that text: the turn's reasoning deltas concatenated.
//!
//! A refusal ([`ModelChunk::Refusal`], or a stop with [`FinishReason::Refusal`]) and a
//! content filter's stop ([`FinishReason::ContentFilter`]) are outcomes, not text: the
//! turn sends one `refusal` event (its `reason` says which, its `message` the words, or
//! a sentence when there were none), runs no tool and does not re-ask (a payload the
//! filter cut is not a format error), then `complete` with the text that came before it.
//!
//! Nothing the model does ends the turn without `complete`: an error chunk, a stream
//! that panics, or a call that panics when started becomes an `error` event, then
//! `complete` with what arrived before it.

use crate::agent::Agent;
use crate::calls::PendingCalls;
use crate::event::AgentEvent;
use crate::finish::{FinishReason, RefusalReason};
use crate::model::{
    Model, ModelChunk, ModelError, ModelErrorKind, ModelMessage, ModelRequest, ModelStream,
    ReplayBlock, ToolCall, Usage,
};
use crate::tools::{ToolContext, ToolResult};
use futures::Stream;
use payload_core::stream::ReasoningText;
use payload_core::{
    CustomPayload, ErrorKind, ParsedResponse, PayloadError, retry::reprompt_message,
    stream::StreamEvent, stream::StreamParser,
};
use serde_json::Value;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

// `Agent::turn` lives beside the turn it starts: the agent (what a page's turns share)
// is below the turn and does not name it.
impl Agent {
    /// Starts a turn: `messages` is the conversation ending with the user's message.
    pub fn turn<M: Model>(
        &self,
        model: M,
        messages: Vec<ModelMessage>,
        context: Value,
    ) -> Turn<'_, M> {
        Turn::new(self, model, messages, context)
    }
}

/// One turn in progress: a `futures::Stream` of its events, ending with `complete`.
/// [`Turn::blocking`] iterates it on the current thread, for models that need no
/// async runtime.
pub struct Turn<'a, M: Model> {
    agent: &'a Agent,
    model: M,
    context: ToolContext,
    messages: Vec<ModelMessage>,
    /// `None` once the turn is complete.
    parser: Option<StreamParser>,
    chunks: Option<ModelStream>,
    queue: VecDeque<AgentEvent>,
    iteration: usize,
    /// This call's text, and the length of the turn's text before it (before the
    /// blank line joining it to the previous call's).
    call_text: String,
    call_start: usize,
    calls: PendingCalls,
    finish: Option<FinishReason>,
    /// This call's refusal, as its pieces arrive.
    refusal: String,
    /// This call's blocks for the provider to read back ([`ModelChunk::Replay`]).
    replay: Vec<ReplayBlock>,
    /// The turn's refusal, once an answer was a refusal.
    refused: Option<String>,
    /// The `refusal` event, sent after the parser's last block events and just before
    /// `complete`: the turn's outcome is its last word before the parse.
    refusal_event: Option<AgentEvent>,
    usage: Usage,
    tool_payloads: Vec<CustomPayload>,
    tool_index: usize,
    reasks_left: usize,
    /// The turn's reasoning, from both channels.
    reasoning: ReasoningText,
    /// Where the last reasoning came from (in which call, from which channel): a new
    /// source starts a new section.
    reasoning_from: Option<(usize, Channel)>,
    started: bool,
    /// The turn's `tracing` span (`invoke_agent`): each model call, tool call and read
    /// of an answer is a span inside it (`telemetry.rs`).
    span: tracing::Span,
}

impl<'a, M: Model> Turn<'a, M> {
    pub(crate) fn new(
        agent: &'a Agent,
        model: M,
        messages: Vec<ModelMessage>,
        context: Value,
    ) -> Turn<'a, M> {
        let span = crate::telemetry::turn_span(
            &agent.page,
            &agent.system,
            &messages,
            agent.capture_content,
        );
        Turn {
            agent,
            model,
            context: ToolContext::new(agent.page.clone(), context),
            messages,
            parser: Some(StreamParser::with_parser(agent.parser.clone())),
            chunks: None,
            queue: VecDeque::new(),
            iteration: 0,
            call_text: String::new(),
            call_start: 0,
            calls: PendingCalls::default(),
            finish: None,
            refusal: String::new(),
            replay: Vec::new(),
            refused: None,
            refusal_event: None,
            usage: Usage::default(),
            tool_payloads: Vec::new(),
            tool_index: 0,
            reasks_left: agent.reasks,
            reasoning: ReasoningText::new(),
            reasoning_from: None,
            started: false,
            span,
        }
    }

    /// The conversation as it stands (after the turn: with its assistant messages and
    /// tool results, ready for the next turn).
    pub fn messages(&self) -> &[ModelMessage] {
        &self.messages
    }

    /// The tokens every model call of the turn used so far, added up.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The `refusal` event's message, when an answer of the turn was a refusal or a
    /// content filter's stop.
    pub fn refusal(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    /// The turn as an iterator that waits for each event on the current thread. Only
    /// for models that need no async runtime (scripts, or a model that blocks); an HTTP
    /// client needs the runtime it was built for.
    pub fn blocking(self) -> futures::executor::BlockingStream<Self>
    where
        M: Unpin,
    {
        futures::executor::block_on_stream(self)
    }

    fn call_model(&mut self) {
        self.iteration += 1;
        self.call_text.clear();
        self.refusal.clear();
        self.replay.clear();
        self.finish = None;
        self.call_start = self.parser.as_ref().map_or(0, |p| p.text().len());
        tracing::debug!(iteration = self.iteration, "calling the model");
        let request = ModelRequest {
            page: self.agent.page.clone(),
            system: self.agent.system.clone(),
            messages: self.messages.clone(),
            tools: self.agent.tools.iter().map(|t| t.spec()).collect(),
            output: self.agent.output.clone(),
            iteration: self.iteration,
        };
        let model = &mut self.model;
        match catch_unwind(AssertUnwindSafe(|| model.stream(&request))) {
            Ok(chunks) => self.chunks = Some(chunks),
            Err(panic) => self.failed(panicked(panic)),
        }
    }

    fn chunk(&mut self, chunk: ModelChunk) {
        match chunk {
            ModelChunk::Text(text) => self.text(&text),
            ModelChunk::Reasoning(text) => {
                // Not in the text, so in no part: it stands before the part the
                // answer writes next.
                let part = self.parser.as_ref().map_or(0, StreamParser::parts_begun);
                self.reasoning(Channel::Provider, &text, part)
            }
            ModelChunk::Refusal(text) => self.refusal.push_str(&text),
            ModelChunk::Replay(block) => self.replay.push(block),
            ModelChunk::ToolCallDelta {
                index,
                id,
                name,
                arguments,
            } => self.calls.piece(index, id, name, &arguments),
            ModelChunk::ToolCall { id, name, input } => self.calls.whole(id, name, input),
            ModelChunk::Finish(reason) => self.finish = Some(reason),
            ModelChunk::Usage(usage) => {
                self.usage.input_tokens += usage.input_tokens;
                self.usage.output_tokens += usage.output_tokens;
            }
            ModelChunk::Error(error) => self.failed(error),
        }
    }

    fn text(&mut self, text: &str) {
        let Some(parser) = self.parser.as_mut() else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let mut events = Vec::new();
        // Calls after the first continue the turn's text after a blank line; where the
        // prompt opens the reasoning, each call's text starts inside a section of its
        // own (the parser opens the first one).
        if self.call_text.is_empty() && !parser.text().is_empty() {
            let seam = if self.agent.options.reasoning_opened_by_prompt {
                "\n\n<think>"
            } else {
                "\n\n"
            };
            parser.push_into(seam, &mut events);
        }
        self.call_text.push_str(text);
        parser.push_into(text, &mut events);
        self.events(events);
    }

    /// Queues the parser's events, its reasoning joined to the turn's.
    fn events(&mut self, events: Vec<StreamEvent>) {
        for event in events {
            match event {
                StreamEvent::ReasoningDelta { text, part } => {
                    self.reasoning(Channel::Text, &text, part)
                }
                event => self.queue.push_back(AgentEvent::from(event)),
            }
        }
    }

    /// More reasoning from `channel`, joined to the turn's and sent as a delta.
    fn reasoning(&mut self, channel: Channel, text: &str, part: usize) {
        if self.reasoning_from != Some((self.iteration, channel)) {
            self.reasoning_from = Some((self.iteration, channel));
            self.reasoning.section();
        }
        if let Some(text) = self.reasoning.push(text) {
            self.queue
                .push_back(AgentEvent::Stream(StreamEvent::ReasoningDelta {
                    text,
                    part,
                }));
        }
    }

    /// The model failed: report it and complete with what arrived.
    fn failed(&mut self, error: ModelError) {
        self.chunks = None;
        tracing::warn!(iteration = self.iteration, kind = ?error.kind, %error, "the model failed");
        self.queue.push_back(AgentEvent::Error {
            message: error.to_string(),
        });
        self.complete();
    }

    /// The model's answer ended: run its tools and call it again, or complete.
    fn answer_ended(&mut self) {
        self.chunks = None;
        let calls = self.calls.finish();
        tracing::info!(
            iteration = self.iteration,
            finish = ?self.finish,
            tool_calls = calls.len(),
            input_tokens = self.usage.input_tokens,
            output_tokens = self.usage.output_tokens,
            "the model answered"
        );
        self.messages.push(ModelMessage::Assistant {
            text: self.call_text.clone(),
            tool_calls: calls.clone(),
            replay: std::mem::take(&mut self.replay),
        });
        if let Some(reason) = RefusalReason::of(&self.refusal, self.finish.as_ref()) {
            let message = reason.describe(&std::mem::take(&mut self.refusal));
            tracing::info!(
                iteration = self.iteration,
                reason = reason.as_str(),
                "the model refused"
            );
            self.span.record("payload.refusal", reason.as_str());
            self.refused = Some(message.clone());
            self.refusal_event = Some(AgentEvent::Refusal { message, reason });
            return self.complete();
        }
        if calls.is_empty() {
            return self.complete();
        }
        if self.finish == Some(FinishReason::Length) {
            // A call cut by the token limit has arguments that are cut too.
            self.queue.push_back(AgentEvent::Error {
                message: "the model hit its token limit while asking for a tool; stopping"
                    .to_string(),
            });
            return self.complete();
        }
        if self.iteration >= self.agent.max_iterations {
            self.queue.push_back(AgentEvent::Error {
                message: format!(
                    "the model still asked for tools after {} calls; stopping",
                    self.iteration
                ),
            });
            return self.complete();
        }
        for call in calls {
            self.run_tool(call);
        }
        self.queue.push_back(AgentEvent::Status {
            message: "Thinking...".to_string(),
        });
        self.call_model();
    }

    fn run_tool(&mut self, call: ToolCall) {
        self.queue.push_back(AgentEvent::ToolStart {
            id: call.id.clone(),
            tool: call.name.clone(),
            input: call.input.clone(),
        });
        let content = self.agent.capture_content;
        let span = crate::telemetry::tool_span(&call, content);
        let tool = self.agent.tools.iter().find(|t| t.name == call.name);
        let context = &self.context;
        let (result, error) = span.in_scope(|| match tool {
            Some(tool) => {
                match catch_unwind(AssertUnwindSafe(|| tool.call(&call.input, context))) {
                    Ok(result) => (result, None),
                    Err(_) => (
                        ToolResult::error(format_args!("the tool '{}' failed", call.name)),
                        Some("panicked"),
                    ),
                }
            }
            None => (
                ToolResult::error(format_args!("there is no tool named '{}'", call.name)),
                Some("unknown_tool"),
            ),
        });
        crate::telemetry::tool_completed(&span, error, &result.text, content);
        drop(span);
        for message in self.context.take_progress() {
            self.queue.push_back(AgentEvent::ToolProgress {
                id: call.id.clone(),
                tool: call.name.clone(),
                message,
            });
        }
        let index = self.tool_index;
        self.tool_index += 1;
        if let Some(payload) = &result.payload {
            self.tool_payloads.push(payload.clone());
        }
        self.messages.push(ModelMessage::Tool {
            id: call.id.clone(),
            name: call.name.clone(),
            text: result.text.clone(),
        });
        self.queue.push_back(AgentEvent::ToolComplete {
            id: call.id,
            tool: call.name,
            index,
            marker: format!("[[tool:{index}]]"),
            text: result.text,
            payload: result.payload,
        });
    }

    fn complete(&mut self) {
        self.chunks = None;
        let Some(parser) = self.parser.take() else {
            // Nothing more to parse: the outcome still goes out.
            if let Some(refusal) = self.refusal_event.take() {
                self.queue.push_back(refusal);
            }
            return;
        };
        // What a re-ask keeps: the turn's text before this answer.
        let before = parser.text()[..self.call_start.min(parser.text().len())].to_string();
        // The read of the answer is a span of its own; the re-asked call is not in it.
        let read = crate::telemetry::read_span(&self.agent.page);
        let (mut parsed, errors) = read.in_scope(|| {
            // The turn sends `complete` itself, once it knows the answer is kept.
            let mut events = Vec::new();
            let parsed = parser.finish_before_complete(&mut events);
            self.events(events);
            // The outcome comes after the parser's last block events.
            if let Some(refusal) = self.refusal_event.take() {
                self.queue.push_back(refusal);
            }
            let errors = self.reask_errors(&parsed);
            let truncated = self.finish == Some(FinishReason::Length);
            crate::telemetry::read_completed(&read, &parsed, truncated, errors.is_some());
            (parsed, errors)
        });
        drop(read);
        if let Some(errors) = errors {
            return self.reask(&parsed, &errors, &before);
        }
        parsed.apply_tool_payloads(&self.tool_payloads);
        // Both channels' reasoning, as the deltas sent it.
        parsed.set_reasoning(self.reasoning.text().map(str::to_owned));
        let answer = self
            .agent
            .capture_content
            .then_some((self.call_text.as_str(), self.finish.as_ref()));
        crate::telemetry::turn_completed(&self.span, self.usage, answer);
        self.queue
            .push_back(AgentEvent::Stream(StreamEvent::Complete(Box::new(parsed))));
    }

    /// The errors to send back to the model to be corrected, if the answer's custom
    /// payload was rejected (or a block was meant but not written as one), re-asks are
    /// left, no tool returned a payload (it would supersede the model's anyway) and
    /// the answer was not cut by the token limit (a longer answer would be cut again).
    fn reask_errors(&self, parsed: &ParsedResponse) -> Option<Vec<PayloadError>> {
        if self.reasks_left == 0
            || self.refused.is_some()
            || !self.tool_payloads.is_empty()
            || self.finish == Some(FinishReason::Length)
        {
            return None;
        }
        // Rejected payloads, and blocks the model meant to send but did not write as
        // blocks (a near-miss marker, a marker with no value: docs/spec.md §1.16, §1.17).
        let errors: Vec<_> = parsed
            .rejected
            .iter()
            .filter(|r| self.agent.options.payloads.iter().any(|p| p.name == r.kind))
            .flat_map(|r| r.errors.iter().cloned())
            .chain(parsed.missed_blocks().iter().map(|m| m.error.clone()))
            .collect();
        (!errors.is_empty()).then_some(errors)
    }

    /// Sends `errors` back to the model. The new parser holds the turn's text before
    /// the rejected answer (read again without events: they were sent), so the
    /// corrected answer's parse continues it.
    fn reask(&mut self, parsed: &ParsedResponse, errors: &[PayloadError], before: &str) {
        self.reasks_left -= 1;
        let mut parser = StreamParser::with_parser(self.agent.parser.clone());
        parser.push(before);
        self.parser = Some(parser);
        let too_many = errors.iter().all(|e| e.kind() == ErrorKind::ExtraPayload);
        self.messages.push(ModelMessage::user(reask_message(
            parsed,
            errors,
            &self.agent.options.payloads,
        )));
        self.queue.push_back(AgentEvent::Status {
            message: if too_many {
                "The answer held more payloads than the page allows; asking the model to correct it"
            } else {
                "The payload was not valid; asking the model to correct it"
            }
            .to_string(),
        });
        self.call_model();
    }
}

/// The re-ask: the re-prompt naming only what was refused (`errors`), and, when the
/// answer also held accepted payloads, one sentence asking for them again unchanged, so
/// the corrected answer (which replaces the whole answer) keeps every card that was
/// right and changes only what was refused.
fn reask_message(
    parsed: &ParsedResponse,
    errors: &[payload_core::PayloadError],
    types: &[payload_core::PayloadType],
) -> String {
    let mut text = reprompt_message(errors);
    // Each accepted payload by the marker the model wrote it with.
    let accepted: Vec<&str> = parsed
        .payloads()
        .map(|p| {
            types
                .iter()
                .find(|t| t.name == p.kind)
                .map_or(p.kind.as_str(), |t| t.marker)
        })
        .collect();
    if !accepted.is_empty() {
        let n = accepted.len();
        text.push_str(&format!(
            "{} in your answer {} accepted ({}): write {} again unchanged, where {} stood, \
             and change only what is listed above.\n",
            if n == 1 {
                "One payload"
            } else {
                "The other payloads"
            },
            if n == 1 { "was" } else { "were" },
            accepted.join(", "),
            if n == 1 { "it" } else { "them" },
            if n == 1 { "it" } else { "they" },
        ));
    }
    text
}

impl<M: Model + Unpin> Stream for Turn<'_, M> {
    type Item = AgentEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<AgentEvent>> {
        let this = self.get_mut();
        let span = this.span.clone();
        let _entered = span.enter();
        loop {
            if let Some(event) = this.queue.pop_front() {
                return Poll::Ready(Some(event));
            }
            // The parser is gone once `complete` is queued: nothing follows it.
            if this.parser.is_none() {
                return Poll::Ready(None);
            }
            if !this.started {
                this.started = true;
                this.queue.push_back(AgentEvent::Status {
                    message: "Thinking...".to_string(),
                });
                this.call_model();
                continue;
            }
            let Some(chunks) = this.chunks.as_mut() else {
                this.answer_ended();
                continue;
            };
            match catch_unwind(AssertUnwindSafe(|| chunks.as_mut().poll_next(cx))) {
                Ok(Poll::Pending) => return Poll::Pending,
                Ok(Poll::Ready(Some(chunk))) => this.chunk(chunk),
                Ok(Poll::Ready(None)) => this.answer_ended(),
                Err(panic) => this.failed(panicked(panic)),
            }
        }
    }
}

/// Where reasoning came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    /// The provider's reasoning channel.
    Provider,
    /// A `<think>` section in the text.
    Text,
}

/// A panic's message as a model error.
fn panicked(panic: Box<dyn std::any::Any + Send>) -> ModelError {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    ModelError::new(
        ModelErrorKind::Panicked,
        format!("the model panicked: {what}"),
    )
}

#[cfg(test)]
mod tests;
