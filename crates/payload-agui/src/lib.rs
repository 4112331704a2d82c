//! A chat turn's events in the two protocols front-ends speak, with no web server and
//! no database: [AG-UI](https://docs.ag-ui.com) 1.x ([`translate::Translator`],
//! [`events::Event`]) and the AI SDK's UI message stream ([`ui_message`]), what
//! `useChat` reads. Each turns
//! an agent's events ([`payload_agent::AgentEvent`], the core's
//! [`StreamEvent`](payload_core::stream::StreamEvent)s wrapped in
//! [`AgentEvent::Stream`](payload_agent::AgentEvent::Stream)) into the protocol's
//! events, and reads what the client answers to a proposal (AG-UI's `resume`, the AI
//! SDK's tool approval responses) into one [`DecisionRequest`], so a server makes
//! every decision on one path whichever protocol carried it.
//!
//! `payload-serve` answers both (`POST /api/agui`, `POST /api/ui-message-stream`);
//! an app with its own server and its own model client answers them from its own
//! handler. The mapping is `docs/agui.md` and `docs/ai-sdk.md`.
//!
//! # Answering AG-UI from your own axum handler
//!
//! ```
//! use axum::response::sse::{Event, Sse};
//! use futures::{Stream, StreamExt};
//! use payload_agent::AgentEvent;
//! use payload_agui::events::RunAgentInput;
//! use payload_agui::translate::Translator;
//! use std::convert::Infallible;
//!
//! /// Your handler's answer: your agent's events for `input`, as AG-UI events.
//! fn agui_response(
//!     input: &RunAgentInput,
//!     turn: usize,
//!     events: impl Stream<Item = AgentEvent> + Send + 'static,
//! ) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
//!     let thread = input.thread_id.clone();
//!     // The types your app decides: their proposals end the run with an interrupt.
//!     let translator = Translator::new(
//!         thread.clone(), input.run_id.clone(), thread, turn, |kind| kind == "recipe",
//!     );
//!     let first = translator.started();
//!     let rest = futures::stream::unfold(Some((events.boxed(), translator)), |state| async {
//!         let (mut events, mut translator) = state?;
//!         Some(match events.next().await {
//!             Some(event) => (translator.translate(event), Some((events, translator))),
//!             // The events stopped before the turn's end: the run's error ends it.
//!             None => (translator.finish().into_iter().collect(), None),
//!         })
//!     });
//!     let events = futures::stream::iter([vec![first]]).chain(rest);
//!     Sse::new(events.flat_map(futures::stream::iter).map(|event| {
//!         Ok(Event::default().data(serde_json::to_string(&event).unwrap_or_default()))
//!     }))
//! }
//! ```
//!
//! The next run's `resume` entries are decisions: [`resume::decisions`] reads them,
//! naming each proposal by its turn and index; your handler applies the one it stored.

#![forbid(unsafe_code)]

mod decision;
pub mod events;
pub mod resume;
#[cfg(test)]
mod test_events;
pub mod translate;
pub mod ui_message;

pub use decision::{Decision, DecisionRequest, InputError, parse_proposal_id, proposal_id};
