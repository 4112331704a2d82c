//! A chain of models tried in order ([`Fallback`]): when one fails before any of its
//! answer arrived, for a reason another model may not have (the connection, the
//! server, a timeout, a rate limit the client could not wait out), the same request
//! goes to the next. The HTTP clients have already retried what their own server can
//! retry (a 429 after its `Retry-After`, up to the request's deadline), so an error
//! reaching the chain is exhausted for that model.
//!
//! Once any of the answer (text, reasoning, a refusal, a tool call) has been passed on, nothing is
//! sent elsewhere: the text was shown and cannot be unsent, so a later failure ends the
//! stream as it would without the chain. Chunks without content (usage, a finish)
//! before the first content are held, so a model given up on leaves nothing behind.
//! A refused request (`Rejected`, `Refused`, `Protocol`) is not sent elsewhere either:
//! the request itself is at fault, and another model would be asked the same.

use crate::model::{Model, ModelChunk, ModelError, ModelErrorKind, ModelRequest, ModelStream};
use futures::{Stream, StreamExt};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

/// One model's try at a request in a [`Fallback`] chain.
#[derive(Debug, Clone, PartialEq)]
pub struct FallbackAttempt {
    /// The model's place in the chain, from 0.
    pub model: usize,
    /// Why it was given up on; `None` for the model whose answer streamed.
    pub error: Option<ModelError>,
}

type Models = Arc<Mutex<Vec<Box<dyn Model>>>>;
type Log = Arc<Mutex<Vec<FallbackAttempt>>>;

/// Models tried in order for each request: `Fallback::new([primary, backup])`.
pub struct Fallback {
    models: Models,
    attempts: Log,
}

impl std::fmt::Debug for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fallback")
            .field("models", &lock(&self.models).len())
            .field("attempts", &self.attempts())
            .finish()
    }
}

impl Fallback {
    /// The chain of `models`, the first tried first.
    pub fn new(models: impl IntoIterator<Item = Box<dyn Model>>) -> Fallback {
        Fallback {
            models: Arc::new(Mutex::new(models.into_iter().collect())),
            attempts: Arc::default(),
        }
    }

    /// Adds `model` at the end of the chain.
    pub fn or(self, model: impl Model + 'static) -> Fallback {
        lock(&self.models).push(Box::new(model));
        self
    }

    /// Every model's try at the last request, in order.
    pub fn attempts(&self) -> Vec<FallbackAttempt> {
        lock(&self.attempts).clone()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether another model may succeed where this one failed.
fn may_fall_back(error: &ModelError) -> bool {
    matches!(
        error.kind,
        ModelErrorKind::RateLimited
            | ModelErrorKind::Server
            | ModelErrorKind::Connection
            | ModelErrorKind::Timeout
    )
}

/// Whether a chunk is part of the answer (after which nothing is sent elsewhere).
fn is_content(chunk: &ModelChunk) -> bool {
    match chunk {
        ModelChunk::Text(text) | ModelChunk::Refusal(text) | ModelChunk::Reasoning(text) => {
            !text.is_empty()
        }
        ModelChunk::ToolCallDelta { .. } | ModelChunk::ToolCall { .. } | ModelChunk::Replay(_) => {
            true
        }
        _ => false,
    }
}

impl Model for Fallback {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        let fresh: Log = Arc::default();
        self.attempts = fresh.clone();
        let count = lock(&self.models).len();
        if count == 0 {
            let error =
                ModelError::new(ModelErrorKind::Rejected, "the fallback chain has no model");
            return Box::pin(futures::stream::iter([ModelChunk::Error(error)]));
        }
        let first = start(&self.models, 0, request);
        Box::pin(Chain {
            models: self.models.clone(),
            log: fresh,
            request: request.clone(),
            count,
            index: 0,
            current: first,
            content: false,
            held: Vec::new(),
            out: Vec::new(),
        })
    }
}

impl Model for &mut Fallback {
    fn stream(&mut self, request: &ModelRequest) -> ModelStream {
        (**self).stream(request)
    }
}

fn start(models: &Models, index: usize, request: &ModelRequest) -> ModelStream {
    let mut models = lock(models);
    models[index].stream(request)
}

/// The stream of one request through the chain.
struct Chain {
    models: Models,
    log: Log,
    request: ModelRequest,
    count: usize,
    index: usize,
    current: ModelStream,
    content: bool,
    /// Chunks without content before the first content.
    held: Vec<ModelChunk>,
    /// Chunks ready to go out, in reverse order.
    out: Vec<ModelChunk>,
}

impl Chain {
    fn record(&self, error: Option<ModelError>) {
        lock(&self.log).push(FallbackAttempt {
            model: self.index,
            error,
        });
    }
}

impl Stream for Chain {
    type Item = ModelChunk;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ModelChunk>> {
        let this = self.get_mut();
        loop {
            if let Some(chunk) = this.out.pop() {
                return Poll::Ready(Some(chunk));
            }
            // The chain is over once its last model is done (never polled again).
            if this.index >= this.count {
                return Poll::Ready(None);
            }
            match this.current.poll_next_unpin(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => {
                    this.record(None);
                    this.index = this.count;
                    let mut rest = std::mem::take(&mut this.held);
                    rest.reverse();
                    this.out = rest;
                }
                Poll::Ready(Some(ModelChunk::Error(error)))
                    if !this.content && may_fall_back(&error) && this.index + 1 < this.count =>
                {
                    tracing::info!(model = this.index, kind = ?error.kind, %error, "falling back to the next model");
                    this.record(Some(error));
                    this.held.clear();
                    this.index += 1;
                    this.current = start(&this.models, this.index, &this.request);
                }
                Poll::Ready(Some(ModelChunk::Error(error))) => {
                    this.record(Some(error.clone()));
                    this.index = this.count;
                    let mut rest = std::mem::take(&mut this.held);
                    rest.push(ModelChunk::Error(error));
                    rest.reverse();
                    this.out = rest;
                }
                Poll::Ready(Some(chunk)) if !this.content && !is_content(&chunk) => {
                    this.held.push(chunk);
                }
                Poll::Ready(Some(chunk)) => {
                    this.content = true;
                    let mut rest = std::mem::take(&mut this.held);
                    rest.push(chunk);
                    rest.reverse();
                    this.out = rest;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FinishReason;
    use crate::model::Usage;

    fn failing(kind: ModelErrorKind, calls: Arc<Mutex<usize>>) -> Box<dyn Model> {
        Box::new(move |_: &ModelRequest| {
            *lock(&calls) += 1;
            vec![
                ModelChunk::Usage(Usage::default()),
                ModelChunk::Error(ModelError::new(kind, "down")),
            ]
        })
    }

    fn answering(text: &'static str) -> Box<dyn Model> {
        Box::new(move |_: &ModelRequest| {
            vec![
                ModelChunk::Text(text.into()),
                ModelChunk::Finish(FinishReason::Stop),
            ]
        })
    }

    fn run(chain: &mut Fallback) -> Vec<ModelChunk> {
        futures::executor::block_on(chain.stream(&ModelRequest::new(vec![])).collect())
    }

    #[test]
    fn a_transport_failure_or_exhausted_rate_limit_goes_to_the_next_model() {
        let calls = Arc::new(Mutex::new(0));
        let mut chain = Fallback::new([
            failing(ModelErrorKind::RateLimited, calls.clone()),
            failing(ModelErrorKind::Connection, calls.clone()),
            answering("Hi."),
        ]);
        assert_eq!(
            run(&mut chain),
            [
                ModelChunk::Text("Hi.".into()),
                ModelChunk::Finish(FinishReason::Stop)
            ],
            "nothing of the models given up on is left"
        );
        let attempts = chain.attempts();
        let kinds: Vec<_> = attempts
            .iter()
            .map(|a| (a.model, a.error.as_ref().map(|e| e.kind)))
            .collect();
        assert_eq!(
            kinds,
            [
                (0, Some(ModelErrorKind::RateLimited)),
                (1, Some(ModelErrorKind::Connection)),
                (2, None)
            ]
        );
    }

    #[test]
    fn a_rejected_request_or_a_failure_after_content_is_not_sent_elsewhere() {
        let calls = Arc::new(Mutex::new(0));
        let mut chain = Fallback::new([failing(ModelErrorKind::Rejected, calls.clone())])
            .or(|_: &ModelRequest| vec![ModelChunk::Text("never".into())]);
        let chunks = run(&mut chain);
        assert!(
            matches!(&chunks[..], [ModelChunk::Usage(_), ModelChunk::Error(e)] if e.kind == ModelErrorKind::Rejected)
        );
        assert_eq!(chain.attempts().len(), 1);

        let mut chain = Fallback::new([Box::new(|_: &ModelRequest| {
            vec![
                ModelChunk::Text("Partial".into()),
                ModelChunk::Error(ModelError::new(ModelErrorKind::Connection, "dropped")),
            ]
        }) as Box<dyn Model>])
        .or(|_: &ModelRequest| vec![ModelChunk::Text("never".into())]);
        let chunks = run(&mut chain);
        assert_eq!(chunks[0], ModelChunk::Text("Partial".into()));
        assert!(matches!(&chunks[1], ModelChunk::Error(_)));
        assert_eq!(chunks.len(), 2);
    }

    #[test]
    fn the_last_models_failure_ends_the_stream() {
        let calls = Arc::new(Mutex::new(0));
        let mut chain = Fallback::new([
            failing(ModelErrorKind::Server, calls.clone()),
            failing(ModelErrorKind::Timeout, calls.clone()),
        ]);
        let chunks = run(&mut chain);
        assert!(
            matches!(chunks.last(), Some(ModelChunk::Error(e)) if e.kind == ModelErrorKind::Timeout)
        );
        assert_eq!(*lock(&calls), 2);
        assert_eq!(chain.attempts().len(), 2);
        let empty: Vec<ModelChunk> = futures::executor::block_on(
            Fallback::new([])
                .stream(&ModelRequest::new(vec![]))
                .collect(),
        );
        assert!(matches!(&empty[..], [ModelChunk::Error(e)] if e.kind == ModelErrorKind::Rejected));
    }
}
