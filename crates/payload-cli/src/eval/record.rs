//! A model that records what each of its calls did, for `payload eval`: when the first
//! content arrived, whether the answer called tools, why it stopped, the tokens it
//! used. The agent's turn sees the model unchanged.

use futures::StreamExt;
use payload_agent::{FinishReason, Model, ModelChunk, ModelRequest, ModelStream, Usage};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What one call to the model did.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// How long until its first text, reasoning or tool call.
    pub first_content: Option<Duration>,
    /// Whether the answer called a tool (the next call then carries the results).
    pub called_tools: bool,
    /// Why it stopped, when the provider said.
    pub finish: Option<FinishReason>,
    /// The tokens it used, when the provider said.
    pub usage: Option<Usage>,
    /// The model's failure, if it failed.
    pub error: Option<String>,
    /// The answer's text.
    pub text: String,
    /// What it sent on its refusal channel (the model's or the provider's words).
    pub refusal: String,
}

impl Call {
    /// The refusal or content filter's stop this call ended in, if it did (the rule
    /// the agent's turn and whole-response extraction follow: docs/spec.md §9.4).
    pub(crate) fn refused(&self) -> Option<crate::chat::RefusalOutcome> {
        let reason = payload_agent::RefusalReason::of(&self.refusal, self.finish.as_ref())?;
        Some(crate::chat::RefusalOutcome {
            message: reason.describe(&self.refusal),
            reason,
        })
    }
}

/// The calls of one turn, shared between the model and the runner.
pub(crate) type CallLog = Arc<Mutex<Vec<Call>>>;

/// Wraps a model and logs its calls in `log`.
pub(crate) struct Recorder {
    inner: Box<dyn Model>,
    log: CallLog,
}

impl Recorder {
    pub(crate) fn new(inner: Box<dyn Model>) -> (Recorder, CallLog) {
        let log = CallLog::default();
        (
            Recorder {
                inner,
                log: log.clone(),
            },
            log,
        )
    }
}

impl Model for Recorder {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        let sent = Instant::now();
        let index = {
            let mut calls = self.log.lock().unwrap_or_else(|e| e.into_inner());
            calls.push(Call {
                first_content: None,
                called_tools: false,
                finish: None,
                usage: None,
                error: None,
                text: String::new(),
                refusal: String::new(),
            });
            calls.len() - 1
        };
        let log = self.log.clone();
        Box::pin(self.inner.stream(request).inspect(move |chunk| {
            let mut calls = log.lock().unwrap_or_else(|e| e.into_inner());
            let Some(call) = calls.get_mut(index) else {
                return;
            };
            let content = matches!(
                chunk,
                ModelChunk::Text(_)
                    | ModelChunk::Reasoning(_)
                    | ModelChunk::ToolCall { .. }
                    | ModelChunk::ToolCallDelta { .. }
            );
            if content && call.first_content.is_none() {
                call.first_content = Some(sent.elapsed());
            }
            match chunk {
                ModelChunk::Text(text) => call.text.push_str(text),
                ModelChunk::Refusal(words) => call.refusal.push_str(words),
                ModelChunk::ToolCall { .. } | ModelChunk::ToolCallDelta { .. } => {
                    call.called_tools = true
                }
                ModelChunk::Finish(reason) => call.finish = Some(reason.clone()),
                ModelChunk::Usage(usage) => call.usage = Some(*usage),
                ModelChunk::Error(error) => call.error = Some(error.to_string()),
                _ => {}
            }
        }))
    }
}
