//! `POST /api/ui-message-stream`: the chat turn over the AI SDK's UI message stream
//! (protocol `v1`, what `useChat` with its `DefaultChatTransport` reads; the mapping is
//! [`payload_agui::ui_message`] and `docs/ai-sdk.md`). The request is the body the
//! transport sends (`id`, `messages`, `trigger`, `messageId`) with the page and its
//! fields in a top-level `context` member, as the transport's `body` option adds it
//! (`{"context": {"current_page": "cookbook"}}`, the object AG-UI's
//! `forwardedProps.context` carries).
//!
//! The conversation is the server's: a message whose newest assistant message names no
//! conversation this server issued starts a new one, whose id (random, unguessable)
//! the `start` chunk puts in the message's metadata (`conversationId`), which the
//! client sends back with its messages; the client's chat id is never bound to one.
//! A proposal the app decides waits for the user's approval; the request answering it
//! (the assistant message, its approvals responded) decides it as
//! `POST /api/payloads/.../accept` does, in that message's conversation only, once.
//! The answer is the chunks as Server-Sent Events, the header
//! `x-vercel-ai-ui-message-stream: v1`, and `data: [DONE]` last.

use crate::chat::{EVENT_BUFFER, TurnRequest, is_conversation_id, start_turn};
use crate::error::ApiError;
use crate::extract::Json;
use crate::state::AppState;
use crate::{proposal, sse};
use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::Response;
use axum::response::sse::Event as SseEvent;
use payload_agui::ui_message::{
    Approval, ChatRequest, Chunk, DONE, HEADER, Intent, Outcome, UiTranslator, decided_chunks,
};
use payload_prompt::PayloadStatus;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Runs the turn the request asks for, or makes the decisions it answers, and streams
/// the chunks.
pub async fn run(
    State(state): State<Arc<AppState>>,
    Json(request): Json<ChatRequest>,
) -> Result<Response, ApiError> {
    let intent = request
        .intent()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    // The conversation is one only when the server issued it: its own id.
    let asked = request.conversation().filter(|id| is_conversation_id(id));
    let known = match asked {
        Some(id) if state.db.has_conversation(&id).await? => Some(id),
        _ => None,
    };
    match intent {
        Intent::Decide {
            message_id,
            approvals,
        } => {
            let conversation = known.ok_or_else(|| {
                ApiError::bad_request(
                    "the approvals answer a message of a conversation this server does not know",
                )
            })?;
            decided(state, conversation, message_id, approvals).await
        }
        Intent::Ask { message } => {
            let context = request.context();
            let page = request
                .page()
                .unwrap_or_else(|| state.manifest.default_page.clone());
            let turn = start_turn(
                &state,
                TurnRequest {
                    page,
                    message,
                    context,
                    history: request.history(),
                    conversation: known,
                },
            )
            .await?;
            let (conversation, number) = (turn.task.conversation_id.clone(), turn.task.turn);
            let shared = state.clone();
            let mut translator = UiTranslator::new(
                format!("message-{conversation}-{number}"),
                metadata(&conversation, number),
                number,
                move |kind| shared.handlers.accepts(kind),
            );
            let (agent_events, mut from_agent) = mpsc::channel(EVENT_BUFFER);
            let (chunks, received) = mpsc::channel::<String>(EVENT_BUFFER);
            tokio::spawn(turn.run(agent_events));
            tokio::spawn(async move {
                let mut send = translator.started();
                loop {
                    for chunk in send.drain(..) {
                        // The client went away: dropping the receiver stops the turn.
                        if chunks.send(encode(&chunk)).await.is_err() {
                            return;
                        }
                    }
                    match from_agent.recv().await {
                        Some(event) => send = translator.translate(event),
                        // The turn's task ended; without its end, `finish` still ends
                        // the message.
                        None => break,
                    }
                }
                for chunk in translator.finish() {
                    if chunks.send(encode(&chunk)).await.is_err() {
                        return;
                    }
                }
                let _ = chunks.send(DONE.to_string()).await;
            });
            Ok(response(received))
        }
    }
}

/// The message's metadata: the conversation the next request names, and the turn.
fn metadata(conversation: &str, turn: usize) -> Value {
    json!({ "conversationId": conversation, "turn": turn })
}

/// A chunk as the `data:` of a Server-Sent Event.
fn encode(chunk: &Chunk) -> String {
    chunk.to_json().to_string()
}

/// The stream of `data`, with the protocol's header.
fn response(data: mpsc::Receiver<String>) -> Response {
    let mut response = sse::stream(data, |data| SseEvent::default().data(data));
    response
        .headers_mut()
        .insert(HEADER.0, HeaderValue::from_static(HEADER.1));
    response
}

/// Makes each decision as `POST /api/payloads/...` makes it and answers with what they
/// did, continuing the assistant message `message_id`.
async fn decided(
    state: Arc<AppState>,
    conversation: String,
    message_id: String,
    approvals: Vec<Approval>,
) -> Result<Response, ApiError> {
    let mut outcomes = Vec::with_capacity(approvals.len());
    for approval in approvals {
        let (stored, decided) =
            proposal::decide(&state.db, &conversation, &approval.request, &state.handlers).await?;
        let outcome = decided
            .map(|decided| Outcome {
                status: match decided.status {
                    PayloadStatus::Accepted => "accepted",
                    PayloadStatus::Dismissed => "dismissed",
                    PayloadStatus::Proposed => "proposed",
                },
                // A decided payload was stored: the lookup found it.
                data: stored.map(|p| p.data().clone()).unwrap_or(Value::Null),
                applied: decided.applied,
            })
            .map_err(|e| e.message().to_string());
        // The first refused decision ends the answer: none after it is made.
        let refused = outcome.is_err();
        outcomes.push((approval, outcome));
        if refused {
            break;
        }
    }
    let turn = outcomes.first().map_or(0, |(a, _)| a.request.turn);
    let chunks = decided_chunks(&message_id, metadata(&conversation, turn), outcomes);
    let (data, received) = mpsc::channel(chunks.len() + 1);
    for chunk in &chunks {
        // The channel holds them all; the receiver is alive until the response is.
        let _ = data.try_send(encode(chunk));
    }
    let _ = data.try_send(DONE.to_string());
    Ok(response(received))
}
