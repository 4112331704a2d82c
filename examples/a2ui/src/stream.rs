//! An answer read as it arrives: text as soon as it is safe to show, and each A2UI
//! message as soon as it is complete and its surface's rules allow (A2UI's "yield as
//! elements complete"), in the order written.
//!
//! Built on the framework's stream: each element of the block's list comes as a
//! `payload_element` event on the chunk that completes it, and a `payload_progress`
//! event's `open` pointer says which element is still arriving (a single object, as
//! models sometimes write, is a list of one); each element is read as a
//! [`Message`] of the page's version once, whichever says it first, and handed to
//! [`Surfaces::ready`].
//!
//! With [`Delivery::Progressive`] ([`A2uiStream::progressive`]), as A2UI's SDKs stream,
//! the message still arriving is drawn too: its components and data as far as they can
//! be shown (`src/progressive.rs`), each surface's tree sent again each time it
//! changes. Whichever the delivery, what a client holds once the answer has ended is
//! what the whole answer sends (`tests/agent.rs` checks it at every chunking).

use crate::progressive::{Unfinished, unfinished};
use crate::protocol::{Message, Protocol};
use crate::surface::{Delivery, SurfaceError, Surfaces};
use payload_core::stream::{Previews, StreamEvent, StreamParser};
use payload_core::{ParsedResponse, PayloadError};
use serde_json::Value;

/// What a chunk makes ready, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamPart {
    /// Text to show (consecutive deltas of one chunk joined).
    Text(String),
    /// Messages a client may be sent now.
    Ui(Vec<Message>),
    /// What cannot be sent, and why: an element of the block's list that is not a
    /// message of the page's A2UI version (on the chunk that completes it), or a block refused whole
    /// (its JSON does not read, it is one block too many) that held no such element.
    /// The final parse rejects the block with these reasons; the stream goes on, and
    /// the app may stop the model and ask again with them.
    Refused(Vec<PayloadError>),
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
    /// The version the page speaks.
    protocol: Protocol,
    surfaces: Surfaces,
    /// How many elements of the current block's list have been handed on.
    taken: usize,
    /// The data of the message still arriving last sent ([`Delivery::Progressive`]):
    /// the message's index in its block, and what was sent.
    sent_data: Option<(usize, Message)>,
    /// Whether an element of the current block was refused (its block's refusal then
    /// says nothing new).
    refused: bool,
}

impl A2uiStream {
    /// A stream for `agent`'s page, starting from `surfaces` (the conversation's),
    /// handing messages on as their [`Delivery`] says.
    pub fn new(agent: &crate::A2uiAgent, surfaces: Surfaces) -> A2uiStream {
        // A progressive client draws every chunk; a whole one needs only the elements,
        // which come on the chunk that completes them whatever the previews.
        let previews = match surfaces.delivery() {
            Delivery::Whole => Previews::Doubling,
            Delivery::Progressive => Previews::EveryChunk,
        };
        A2uiStream {
            stream: StreamParser::new(agent.options()).with_previews(previews),
            elements: Elements {
                protocol: agent.protocol(),
                surfaces,
                taken: 0,
                sent_data: None,
                refused: false,
            },
        }
    }

    /// A stream that draws the answer as A2UI's SDKs do ([`Delivery::Progressive`]):
    /// each surface's tree each time it grows, with placeholders for what is missing,
    /// and the message still arriving as far as it can be shown: components whose text
    /// is still being written, data so far. Each chunk then costs a copy of the block
    /// so far and a look at its surface's tree while the block is under 4 KiB; past
    /// that, updates come each time it has grown by an eighth
    /// ([`Previews::EveryChunk`]), which keeps a long block's cost linear.
    pub fn progressive(agent: &crate::A2uiAgent, surfaces: Surfaces) -> A2uiStream {
        A2uiStream::new(agent, surfaces.with_delivery(Delivery::Progressive))
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
                StreamEvent::PayloadStart { kind, .. } if kind == self.protocol.name() => {
                    self.taken = 0;
                    self.sent_data = None;
                    self.refused = false;
                }
                StreamEvent::PayloadEnd { kind, errors, .. }
                    if kind == self.protocol.name() && !errors.is_empty() && !self.refused =>
                {
                    out.push(StreamPart::Refused(errors));
                }
                // An element of the block's list, on the chunk that completes it
                // (docs/spec.md §5.6): handed on at once, in order.
                StreamEvent::PayloadElement {
                    kind,
                    pointer,
                    index,
                    element,
                    ..
                } if kind == self.protocol.name() && pointer.is_empty() && index == self.taken => {
                    let ready = self.hand_on(&element, &mut out)?;
                    push_ui(&mut out, ready);
                }
                StreamEvent::PayloadProgress {
                    kind,
                    partial,
                    open,
                    ..
                } if kind == self.protocol.name() => {
                    let mut ready = self.complete_elements(&partial, open.as_deref(), &mut out)?;
                    if self.surfaces.delivery() == Delivery::Progressive {
                        ready.extend(self.unfinished(&partial, open.as_deref())?);
                    }
                    push_ui(&mut out, ready);
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
        out: &mut Vec<StreamPart>,
    ) -> Result<Vec<Message>, SurfaceError> {
        let elements: &[Value] = match partial {
            Value::Array(items) => items,
            Value::Object(_) => std::slice::from_ref(partial),
            _ => &[],
        };
        let complete = match (partial, open) {
            (_, None) => elements.len(),
            // The list itself open, between elements: every element shown is complete.
            (Value::Array(_), Some("")) => elements.len(),
            (Value::Array(_), Some(open)) => split_index(open)
                .map_or(0, |(at, _)| at)
                .min(elements.len()),
            _ => 0,
        };
        let mut ready = Vec::new();
        while self.taken < complete {
            let messages = self.hand_on(&elements[self.taken], out)?;
            ready.extend(messages);
        }
        Ok(ready)
    }

    /// Hands on the next element of the block's list, now complete; an element that
    /// is not a message is refused with the payload type's own reasons.
    fn hand_on(
        &mut self,
        element: &Value,
        out: &mut Vec<StreamPart>,
    ) -> Result<Vec<Message>, SurfaceError> {
        let index = self.taken;
        self.taken += 1;
        let Ok(message) = self.protocol.read(element.clone()) else {
            let list = Value::Array(vec![element.clone()]);
            let errors = match self.protocol.payload().validate(&list) {
                // Checked as a list of one: the paths point into the block's list.
                Err(mut errors) => {
                    for error in &mut errors {
                        let details = error.details_mut();
                        if let Some(rest) = details.path.strip_prefix("/0") {
                            details.path = format!("/{index}{rest}");
                        }
                    }
                    errors
                }
                Ok(()) => vec![PayloadError::validation(
                    format!("/{index}"),
                    "not a message of the page's A2UI version",
                )],
            };
            self.refused = true;
            out.push(StreamPart::Refused(errors));
            return Ok(Vec::new());
        };
        // Data a client already holds in full, sent while it arrived, is not sent again.
        if self.sent_data.take() == Some((index, message.clone())) {
            return Ok(Vec::new());
        }
        self.surfaces.ready(&message)
    }

    /// What the element still arriving can show ([`Delivery::Progressive`]): its
    /// surface's tree with its components laid over it, or its data so far, when
    /// either changed since last sent.
    fn unfinished(
        &mut self,
        partial: &Value,
        open: Option<&str>,
    ) -> Result<Vec<Message>, SurfaceError> {
        let Some((element, inside)) = open_element(partial, open, self.taken) else {
            return Ok(Vec::new());
        };
        match unfinished(self.protocol, element, inside) {
            Some(Unfinished::Components {
                surface_id,
                components,
                open_lists,
            }) => Ok(self
                .surfaces
                .changed_view(self.protocol, &surface_id, &components, &open_lists)?
                .into_iter()
                .collect()),
            Some(Unfinished::Data(message)) => {
                let sent = Some((self.taken, *message));
                if self.sent_data == sent {
                    return Ok(Vec::new());
                }
                self.sent_data = sent;
                Ok(self.sent_data.iter().map(|(_, m)| m.clone()).collect())
            }
            None => Ok(Vec::new()),
        }
    }
}

/// Adds messages to a chunk's parts: one run of messages between two texts is one part.
fn push_ui(out: &mut Vec<StreamPart>, ready: Vec<Message>) {
    if ready.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(StreamPart::Ui(last)) => last.extend(ready),
        _ => out.push(StreamPart::Ui(ready)),
    }
}

/// The element still arriving, `taken` being its index in the block's list, and the
/// pointer inside it of what arrives; `None` between elements or once the value has
/// closed. A single object, as models sometimes write, is a list of one.
fn open_element<'a>(
    partial: &'a Value,
    open: Option<&'a str>,
    taken: usize,
) -> Option<(&'a Value, &'a str)> {
    let open = open?;
    match partial {
        Value::Object(_) if taken == 0 => Some((partial, open)),
        Value::Array(items) => {
            let (index, inside) = split_index(open)?;
            (index == taken).then_some(())?;
            Some((items.get(taken)?, inside))
        }
        _ => None,
    }
}

/// The index of the list element an open pointer (`/3/updateComponents/...`) is in,
/// and the pointer inside that element (`/updateComponents/...`, `""` for the element).
fn split_index(open: &str) -> Option<(usize, &str)> {
    let rest = open.strip_prefix('/')?;
    let (index, inside) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    Some((index.parse().ok()?, inside))
}
