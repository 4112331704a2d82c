//! An answer read as it arrives: text as soon as it is safe to show, and each A2UI
//! message as soon as it is complete and its surface's rules allow (A2UI's "yield as
//! elements complete"), in the order written.
//!
//! Built on the framework's stream: each element of the block's list comes as a
//! `payload_element` event on the chunk that completes it, and a `payload_progress`
//! event's `open` pointer says which element is still arriving (a single object, as
//! models sometimes write, is a list of one); each element is read as a
//! [`ServerMessage`] once, whichever says it first, and handed to [`Surfaces::ready`].

use crate::message::{NAME, ServerMessage};
use crate::surface::{SurfaceError, Surfaces};
use payload_core::ParsedResponse;
use payload_core::stream::{StreamEvent, StreamParser};
use serde_json::Value;

/// What a chunk makes ready, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamPart {
    /// Text to show (consecutive deltas of one chunk joined).
    Text(String),
    /// Messages a client may be sent now.
    Ui(Vec<ServerMessage>),
}

/// An A2UI answer being read.
#[derive(Debug)]
pub struct A2uiStream {
    stream: StreamParser,
    elements: Elements,
}

/// What the stream's events have handed on so far.
#[derive(Debug)]
struct Elements {
    surfaces: Surfaces,
    /// How many elements of the current block's list have been handed on.
    taken: usize,
}

impl A2uiStream {
    /// A stream for `agent`'s page, starting from `surfaces` (the conversation's).
    pub fn new(agent: &crate::A2uiAgent, surfaces: Surfaces) -> A2uiStream {
        A2uiStream {
            stream: StreamParser::new(agent.options()),
            elements: Elements { surfaces, taken: 0 },
        }
    }

    /// Reads a chunk: what it makes ready, or why a surface cannot be drawn.
    pub fn push(&mut self, chunk: &str) -> Result<Vec<StreamPart>, SurfaceError> {
        let events = self.stream.push(chunk);
        self.elements.take(events)
    }

    /// Ends the answer: what its end makes ready, and the final parse.
    pub fn finish(self) -> Result<(Vec<StreamPart>, ParsedResponse), SurfaceError> {
        let A2uiStream {
            stream,
            mut elements,
        } = self;
        let (events, parsed) = stream.finish();
        Ok((elements.take(events)?, parsed))
    }

    /// The surfaces as the answer so far leaves them (for a live preview with
    /// placeholders: [`crate::Surface::preview`]).
    pub fn surfaces(&self) -> &Surfaces {
        &self.elements.surfaces
    }
}

impl Elements {
    fn take(&mut self, events: Vec<StreamEvent>) -> Result<Vec<StreamPart>, SurfaceError> {
        let mut out: Vec<StreamPart> = Vec::new();
        for event in events {
            match event {
                StreamEvent::TextDelta { text, .. } => match out.last_mut() {
                    Some(StreamPart::Text(last)) => last.push_str(&text),
                    _ => out.push(StreamPart::Text(text)),
                },
                StreamEvent::PayloadStart { kind, .. } if kind == NAME => self.taken = 0,
                // An element of the block's list, on the chunk that completes it
                // (docs/spec.md §5.6): handed on at once, in order.
                StreamEvent::PayloadElement {
                    kind,
                    pointer,
                    index,
                    element,
                    ..
                } if kind == NAME && pointer.is_empty() && index == self.taken => {
                    self.taken += 1;
                    // An element that is not a message is left to the final parse,
                    // which rejects the block with the reason.
                    if let Ok(message) = serde_json::from_value::<ServerMessage>(element) {
                        let ready = self.surfaces.ready(&message)?;
                        if !ready.is_empty() {
                            out.push(StreamPart::Ui(ready));
                        }
                    }
                }
                StreamEvent::PayloadProgress {
                    kind,
                    partial,
                    open,
                    ..
                } if kind == NAME => {
                    let ready = self.complete_elements(&partial, open.as_deref())?;
                    if !ready.is_empty() {
                        out.push(StreamPart::Ui(ready));
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Hands on the elements of the block's value that are complete and not yet
    /// handed on: those before the open one (all, once the value has closed). A
    /// single object, as models sometimes write, is a list of one.
    fn complete_elements(
        &mut self,
        partial: &Value,
        open: Option<&str>,
    ) -> Result<Vec<ServerMessage>, SurfaceError> {
        let elements: &[Value] = match partial {
            Value::Array(items) => items,
            Value::Object(_) => std::slice::from_ref(partial),
            _ => &[],
        };
        let complete = match (partial, open) {
            (_, None) => elements.len(),
            // The list itself open, between elements: every element shown is complete.
            (Value::Array(_), Some("")) => elements.len(),
            (Value::Array(_), Some(open)) => open_index(open).min(elements.len()),
            _ => 0,
        };
        let mut ready = Vec::new();
        while self.taken < complete {
            let element = &elements[self.taken];
            self.taken += 1;
            // An element that is not a message is left to the final parse, which
            // rejects the block with the reason.
            if let Ok(message) = serde_json::from_value::<ServerMessage>(element.clone()) {
                ready.extend(self.surfaces.ready(&message)?);
            }
        }
        Ok(ready)
    }
}

/// The index of the list element an open pointer (`/3/updateComponents/...`) is in.
fn open_index(open: &str) -> usize {
    open.strip_prefix('/')
        .and_then(|rest| rest.split('/').next())
        .and_then(|first| first.parse().ok())
        .unwrap_or(0)
}
