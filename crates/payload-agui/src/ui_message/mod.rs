//! The AI SDK's UI message stream (protocol `v1`): what `useChat` and its
//! `DefaultChatTransport` read. A turn's events become one assistant message's chunks
//! ([`UiTranslator`]); the transport's request body is read as a new message or as the
//! user's answers to the message's approvals ([`ChatRequest::intent`]), and the
//! decisions made are answered by [`decided_chunks`].
//!
//! A server sends each chunk as the `data:` of a Server-Sent Event, with the header
//! [`HEADER`], and ends the stream with `data: [DONE]` ([`DONE`]). The mapping:
//!
//! | turn | chunks |
//! |---|---|
//! | before anything | `start` (`messageId`, `messageMetadata: {"conversationId", "turn"}`), `start-step` |
//! | text | `text-start`, `text-delta`…, `text-end`; id `text-<part>` |
//! | reasoning | `reasoning-start`, `reasoning-delta`…, `reasoning-end`; id `reasoning-<part>` |
//! | a payload | `data-<type>`, id `payload-part-<part>`, its data the card: `drafting` and the partial while it streams, replaced in place, then `proposed` or `shown` and the whole value |
//! | a proposal the app decides | also `tool-input-available` (a dynamic tool named by the type) and `tool-approval-request`, both named by the proposal's id |
//! | suggestion chips | `data-suggested_values` / `data-suggested_actions` once the answer is whole |
//! | the agent's tools | `tool-input-available`, `tool-output-available` |
//! | refusal, content filter, failure | `error` |
//! | the end | `finish-step`, `finish` (last) |
//!
//! `<part>` is the part's position in the answer, so an id never changes while the part
//! streams and never names two parts of one message.
//!
//! # Answering `useChat` from your own axum handler
//!
//! ```
//! use axum::response::IntoResponse;
//! use axum::response::sse::{Event, Sse};
//! use futures::{Stream, StreamExt};
//! use payload_agent::AgentEvent;
//! use payload_agui::ui_message::{DONE, HEADER, UiTranslator};
//! use serde_json::json;
//! use std::convert::Infallible;
//!
//! /// Your handler's answer: your agent's events for turn `turn` of `conversation`,
//! /// as one assistant message of the UI message stream.
//! fn ui_message_response(
//!     conversation: &str,
//!     turn: usize,
//!     events: impl Stream<Item = AgentEvent> + Send + 'static,
//! ) -> impl IntoResponse {
//!     // The metadata comes back with the next request's messages: the conversation.
//!     let metadata = json!({ "conversationId": conversation, "turn": turn });
//!     let message_id = format!("message-{conversation}-{turn}");
//!     let translator = UiTranslator::new(message_id, metadata, turn, |kind| kind == "recipe");
//!     let first = translator.started();
//!     let rest = futures::stream::unfold(Some((events.boxed(), translator)), |state| async {
//!         let (mut events, mut translator) = state?;
//!         Some(match events.next().await {
//!             Some(event) => (translator.translate(event), Some((events, translator))),
//!             // Nothing when the turn ended; its error and `finish` when it stopped.
//!             None => (translator.finish(), None),
//!         })
//!     });
//!     let data = futures::stream::iter([first])
//!         .chain(rest)
//!         .flat_map(futures::stream::iter)
//!         .map(|chunk| chunk.to_json().to_string())
//!         .chain(futures::stream::iter([DONE.to_string()]));
//!     let sse = Sse::new(data.map(|data| Ok::<_, Infallible>(Event::default().data(data))));
//!     ([HEADER], sse)
//! }
//! ```
//!
//! The request is a [`ChatRequest`]: [`ChatRequest::intent`] says whether it asks or
//! answers approvals, whose [`Approval::request`] your handler decides on the proposal
//! it stored; [`decided_chunks`] writes what the decisions did.

mod chunk;
mod decided;
mod request;
mod translate;

pub use chunk::{Chunk, DONE, FinishReason, HEADER};
pub use decided::{Outcome, decided_chunks};
pub use request::{Approval, ChatRequest, Intent, UiMessage};
pub use translate::{UiCard, UiTranslator, data_part_id};

#[cfg(test)]
mod tests;
