//! A scripted streaming model: each call returns the next answer of a script, its text
//! cut into small pieces the way a streaming API delivers tokens. Tests and demos run a
//! whole agent turn with it, no network involved.

use payload_agent::{FinishReason, Model, ModelChunk, ModelRequest, ModelStream};
use std::collections::VecDeque;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Step {
    /// Text, streamed in pieces.
    Text(String),
    /// A tool call.
    Call(&'static str, serde_json::Value),
}

/// A model that replays a script, one answer per call.
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    answers: VecDeque<Vec<Step>>,
    piece: usize,
    calls: usize,
    /// Every request received, for tests to inspect.
    pub requests: Vec<ModelRequest>,
}

impl ScriptedModel {
    /// A model answering with `answers` in order, text cut into `piece`-char pieces.
    pub fn new(answers: Vec<Vec<Step>>, piece: usize) -> Self {
        ScriptedModel {
            answers: answers.into(),
            piece: piece.max(1),
            calls: 0,
            requests: Vec::new(),
        }
    }
}

impl Model for &mut ScriptedModel {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        self.requests.push(request.clone());
        let mut chunks = Vec::new();
        for step in self.answers.pop_front().unwrap_or_default() {
            match step {
                Step::Text(text) => {
                    let chars: Vec<char> = text.chars().collect();
                    for piece in chars.chunks(self.piece) {
                        chunks.push(ModelChunk::Text(piece.iter().collect()));
                    }
                }
                Step::Call(name, input) => {
                    self.calls += 1;
                    chunks.push(ModelChunk::ToolCall {
                        id: format!("call_{}", self.calls),
                        name: name.to_string(),
                        input,
                    });
                }
            }
        }
        chunks.push(ModelChunk::Finish(FinishReason::Stop));
        Box::pin(futures::stream::iter(chunks))
    }
}
