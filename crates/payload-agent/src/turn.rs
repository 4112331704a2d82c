//! One chat turn (seed 001) as an iterator of events: the model is called with the
//! conversation and the tools; its text goes through the page's streaming parser as it
//! arrives; the tools it asks for run and their results go back to it; and so on until
//! it answers without asking for a tool, or the call limit is reached.
//!
//! The turn's text is every model call's text joined by a blank line; the `complete`
//! event carries its parse with tool precedence applied (SPEC 1.10): the last payload a
//! tool returned beats one the model wrote.

use crate::event::AgentEvent;
use crate::model::{Model, ModelChunk, ModelMessage, ModelRequest, ToolCall};
use crate::tools::{Tool, ToolContext, ToolResult};
use payload_core::{CustomPayload, ParseOptions, StreamEvent, StreamParser};
use payload_registry::{Registry, Role, UnknownPage};
use serde_json::Value;
use std::collections::VecDeque;

/// The default limit on model calls in one turn.
pub const DEFAULT_MAX_ITERATIONS: usize = 5;

/// What a page's parser is built from, as the registry builds it: the page's payload
/// types, the registered types it does not offer, its actions and the global ones.
pub fn page_options(registry: &Registry, page: &str) -> Result<ParseOptions, UnknownPage> {
    let info = registry.page(page)?;
    let foreign = registry
        .entries()
        .iter()
        .filter(|entry| entry.role == Role::Custom && !info.payloads.contains(&entry.payload))
        .map(|entry| entry.payload)
        .collect();
    Ok(ParseOptions {
        payloads: info.payloads.clone(),
        foreign,
        actions: info.actions.clone(),
        suggestions: info.page.suggestions,
    })
}

/// Runs turns on one page with one set of tools.
#[derive(Debug, Clone)]
pub struct Agent {
    page: String,
    options: ParseOptions,
    tools: Vec<&'static Tool>,
    max_iterations: usize,
}

impl Agent {
    /// An agent on `page` whose text is parsed with `options`, with no tools yet.
    pub fn new(page: impl Into<String>, options: ParseOptions) -> Agent {
        Agent {
            page: page.into(),
            options,
            tools: Vec::new(),
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }

    /// An agent on a registered page with every registered tool (tools are global).
    pub fn for_page(registry: &Registry, page: &str) -> Result<Agent, UnknownPage> {
        Ok(Agent::new(page, page_options(registry, page)?).tools(Tool::all()))
    }

    /// Sets the tools the model may call.
    pub fn tools(mut self, tools: impl IntoIterator<Item = &'static Tool>) -> Agent {
        self.tools = tools.into_iter().collect();
        self
    }

    /// Sets the limit on model calls per turn (at least 1).
    pub fn max_iterations(mut self, max: usize) -> Agent {
        self.max_iterations = max.max(1);
        self
    }

    /// Starts a turn: `messages` is the conversation ending with the user's message.
    pub fn turn<M: Model>(
        &self,
        model: M,
        messages: Vec<ModelMessage>,
        context: Value,
    ) -> Turn<'_, M> {
        Turn {
            agent: self,
            model,
            context: ToolContext::new(self.page.clone(), context),
            messages,
            parser: Some(StreamParser::new(&self.options)),
            chunks: None,
            queue: VecDeque::new(),
            iteration: 0,
            call_text: String::new(),
            calls: Vec::new(),
            tool_payloads: Vec::new(),
            tool_index: 0,
            started: false,
        }
    }
}

/// One turn in progress: an iterator of its events, ending with `complete`.
pub struct Turn<'a, M: Model> {
    agent: &'a Agent,
    model: M,
    context: ToolContext,
    messages: Vec<ModelMessage>,
    /// `None` once the turn is complete.
    parser: Option<StreamParser>,
    chunks: Option<M::Chunks>,
    queue: VecDeque<AgentEvent>,
    iteration: usize,
    call_text: String,
    calls: Vec<ToolCall>,
    tool_payloads: Vec<CustomPayload>,
    tool_index: usize,
    started: bool,
}

impl<'a, M: Model> Turn<'a, M> {
    /// The conversation as it stands (after the turn: with its assistant messages and
    /// tool results, ready for the next turn).
    pub fn messages(&self) -> &[ModelMessage] {
        &self.messages
    }

    fn call_model(&mut self) {
        self.iteration += 1;
        self.call_text.clear();
        self.calls.clear();
        let request = ModelRequest {
            page: self.agent.page.clone(),
            messages: self.messages.clone(),
            tools: self.agent.tools.iter().map(|t| t.spec()).collect(),
            iteration: self.iteration,
        };
        self.chunks = Some(self.model.stream(&request));
    }

    fn text(&mut self, text: &str) {
        let Some(parser) = self.parser.as_mut() else {
            return;
        };
        if text.is_empty() {
            return;
        }
        // Calls after the first continue the turn's text after a blank line.
        if self.call_text.is_empty() && !parser.text().is_empty() {
            let separator = parser.push("\n\n");
            self.queue
                .extend(separator.into_iter().map(AgentEvent::from));
        }
        self.call_text.push_str(text);
        let events = self
            .parser
            .as_mut()
            .map(|p| p.push(text))
            .unwrap_or_default();
        self.queue.extend(events.into_iter().map(AgentEvent::from));
    }

    /// The model's answer ended: run its tools and call it again, or complete.
    fn answer_ended(&mut self) {
        self.chunks = None;
        let calls = std::mem::take(&mut self.calls);
        self.messages.push(ModelMessage::Assistant {
            text: std::mem::take(&mut self.call_text),
            tool_calls: calls.clone(),
        });
        if calls.is_empty() {
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
        let result = match self.agent.tools.iter().find(|t| t.name == call.name) {
            Some(tool) => (tool.execute)(&call.input, &self.context),
            None => ToolResult::error(format_args!("there is no tool named '{}'", call.name)),
        };
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
            return;
        };
        let (events, mut parsed) = parser.finish();
        let before_complete = events
            .into_iter()
            .filter(|e| !matches!(e, StreamEvent::Complete(_)));
        self.queue.extend(before_complete.map(AgentEvent::from));
        parsed.apply_tool_payloads(&self.tool_payloads);
        self.queue.push_back(AgentEvent::Complete(parsed));
    }

    /// Advances the turn by one model chunk (or one step of bookkeeping).
    fn advance(&mut self) {
        if !self.started {
            self.started = true;
            self.queue.push_back(AgentEvent::Status {
                message: "Thinking...".to_string(),
            });
            self.call_model();
            return;
        }
        let next = self.chunks.as_mut().and_then(Iterator::next);
        match next {
            Some(ModelChunk::Text(text)) => self.text(&text),
            Some(ModelChunk::ToolCall { id, name, input }) => {
                self.calls.push(ToolCall { id, name, input })
            }
            Some(ModelChunk::Error(message)) => {
                self.queue.push_back(AgentEvent::Error { message });
                self.complete();
            }
            Some(ModelChunk::End) | None => self.answer_ended(),
        }
    }

    /// The turn as a `futures::Stream` (the model is still pulled synchronously: run it
    /// on a blocking thread when the model blocks on I/O).
    #[cfg(feature = "stream")]
    pub fn into_stream(self) -> impl futures::Stream<Item = AgentEvent> + use<'a, M> {
        futures::stream::iter(self)
    }
}

impl<M: Model> Iterator for Turn<'_, M> {
    type Item = AgentEvent;

    fn next(&mut self) -> Option<AgentEvent> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(event);
            }
            // The parser is gone once `complete` is queued: nothing follows it.
            self.parser.as_ref()?;
            self.advance();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use payload_core::ServerSentEvent;
    use serde_json::json;

    fn shout(input: &Value, ctx: &ToolContext) -> ToolResult {
        ctx.progress("shouting");
        let text = input["text"].as_str().unwrap_or_default().to_uppercase();
        ToolResult::text(text.clone()).with_payload("shout", json!({"text": text}))
    }

    static SHOUT: Tool = Tool::new(
        "shout",
        "Upper-cases text",
        || json!({"type": "object"}),
        shout,
    );

    fn names(events: &[AgentEvent]) -> Vec<&'static str> {
        events.iter().map(|e| e.event_name()).collect()
    }

    #[test]
    fn a_turn_calls_the_tool_feeds_it_back_and_completes() {
        let agent = Agent::new("chat", ParseOptions::new()).tools([&SHOUT]);
        let model = |request: &ModelRequest| -> Vec<ModelChunk> {
            if request.iteration == 1 {
                assert_eq!(request.tools[0].name, "shout");
                vec![
                    ModelChunk::Text("Let me shout.".into()),
                    ModelChunk::ToolCall {
                        id: "c1".into(),
                        name: "shout".into(),
                        input: json!({"text": "hi"}),
                    },
                    ModelChunk::End,
                ]
            } else {
                let last = request.messages.last().unwrap();
                assert_eq!(
                    last,
                    &ModelMessage::Tool {
                        id: "c1".into(),
                        name: "shout".into(),
                        text: "HI".into()
                    }
                );
                vec![ModelChunk::Text("Done: HI.".into())]
            }
        };
        let events: Vec<AgentEvent> = agent
            .turn(model, vec![ModelMessage::user("shout hi")], json!({}))
            .collect();
        assert_eq!(
            names(&events),
            [
                "status",
                "text_delta",
                "tool_start",
                "tool_progress",
                "tool_complete",
                "status",
                "text_delta",
                "complete"
            ]
        );
        let AgentEvent::ToolComplete {
            marker, payload, ..
        } = &events[4]
        else {
            unreachable!()
        };
        assert_eq!(marker, "[[tool:0]]");
        assert_eq!(payload.as_ref().unwrap().kind, "shout");
        let AgentEvent::Complete(parsed) = events.last().unwrap() else {
            unreachable!()
        };
        assert_eq!(parsed.message, "Let me shout.\n\nDone: HI.");
        assert_eq!(parsed.custom_payload.as_ref().unwrap().kind, "shout");
    }

    #[test]
    fn a_model_that_keeps_calling_tools_is_stopped() {
        let agent = Agent::new("chat", ParseOptions::new())
            .tools([&SHOUT])
            .max_iterations(2);
        let mut calls = 0;
        let model = |_: &ModelRequest| {
            calls += 1;
            vec![ModelChunk::ToolCall {
                id: format!("c{calls}"),
                name: "shout".into(),
                input: json!({}),
            }]
        };
        let events: Vec<AgentEvent> = agent.turn(model, vec![], json!({})).collect();
        let names = names(&events);
        assert_eq!(names.iter().filter(|n| **n == "tool_complete").count(), 1);
        assert_eq!(&names[names.len() - 2..], ["error", "complete"]);
    }

    #[test]
    fn unknown_tools_and_model_errors_are_reported() {
        let agent = Agent::new("chat", ParseOptions::new());
        let model = |request: &ModelRequest| {
            if request.iteration == 1 {
                vec![ModelChunk::ToolCall {
                    id: "x".into(),
                    name: "nope".into(),
                    input: json!({}),
                }]
            } else {
                vec![
                    ModelChunk::Text("Partial".into()),
                    ModelChunk::Error("overloaded".into()),
                ]
            }
        };
        let events: Vec<AgentEvent> = agent.turn(model, vec![], json!({})).collect();
        let AgentEvent::ToolComplete { text, .. } = &events[2] else {
            panic!("{events:?}")
        };
        assert!(text.contains("no tool named 'nope'"));
        assert_eq!(
            names(&events)[names(&events).len() - 2..],
            ["error", "complete"]
        );
        let AgentEvent::Complete(parsed) = events.last().unwrap() else {
            unreachable!()
        };
        assert_eq!(parsed.message, "Partial");
    }

    #[cfg(feature = "stream")]
    #[test]
    fn a_turn_is_also_a_futures_stream() {
        use futures::StreamExt;
        let agent = Agent::new("chat", ParseOptions::new());
        let model = |_: &ModelRequest| vec![ModelChunk::Text("Hello.".into())];
        let turn = agent.turn(model, vec![], json!({}));
        let events: Vec<AgentEvent> = futures::executor::block_on(turn.into_stream().collect());
        assert_eq!(names(&events), ["status", "text_delta", "complete"]);
    }
}
