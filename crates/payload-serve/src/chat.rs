//! `POST /api/chat` (the chat architecture's contract): the user's message on a page becomes one
//! agent turn, run in its own task, whose events stream back as SSE. The conversation
//! is kept in the database: its messages are the history the model sees, and its
//! payloads, with what the user did with each, are the next system prompt's manifest.

use crate::db::StoredMessage;
use crate::error::ApiError;
use crate::state::{AppState, LiveTurn, TurnInfo};
use crate::{ids, sse, tables};
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use futures::StreamExt;
use payload_agent::{Agent, AgentEvent, Model, ModelMessage};
use payload_core::stream::sse::ServerSentEvent;
use payload_prompt::PromptBuilder;
use payload_registry::Registry;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc;

/// How many events may wait for a slow client before the turn waits for it.
const EVENT_BUFFER: usize = 64;

/// The request body.
#[derive(Debug, Deserialize)]
pub struct ChatRequest {
    /// What the user wrote.
    pub message: String,
    /// Where the user is: `current_page`, and the page's own fields (`table_id`).
    #[serde(default)]
    pub context: Value,
    /// The earlier messages, used when the server does not know the conversation.
    #[serde(default)]
    pub conversation_history: Vec<HistoryMessage>,
    /// The conversation, as a string or a number; a new one when absent.
    #[serde(default)]
    pub conversation_id: Option<Value>,
}

/// An earlier message sent by the client.
#[derive(Debug, Deserialize)]
pub struct HistoryMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// Its text.
    pub content: String,
}

/// Starts the turn and answers with its event stream.
pub async fn chat(
    State(state): State<Arc<AppState>>,
    Json(request): Json<ChatRequest>,
) -> Result<Response, ApiError> {
    let registry = Registry::global();
    let page = request
        .context
        .get("current_page")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("context.current_page is required"))?
        .to_string();
    registry
        .page(&page)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    // The id a client sends is only looked up, never taken as given: one the server did
    // not make starts a new conversation, under an id the server makes.
    let asked = match &request.conversation_id {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) if is_conversation_id(id) => Some(id.clone()),
        Some(Value::Number(n)) if is_conversation_id(&n.to_string()) => Some(n.to_string()),
        Some(_) => {
            return Err(ApiError::bad_request(
                "conversation_id must be 1 to 64 letters, digits, '-' or '_'",
            ));
        }
    };
    let (conversation_id, stored) = state
        .with_db(move |db| {
            if let Some(id) = asked {
                if db.has_conversation(&id)? {
                    let stored = db.messages(&id)?;
                    return Ok((id, Some(stored)));
                }
            }
            Ok((new_conversation_id()?, None))
        })
        .await?;
    let live = LiveTurn::start(state.clone(), &conversation_id).ok_or_else(|| {
        ApiError::conflict("this conversation is still answering the previous message")
    })?;
    let (turn, mut messages) = history(stored, &request.conversation_history);
    messages.push(ModelMessage::user(request.message.clone()));
    let messages = alternating(messages);

    let (context, manifest) = {
        let id = conversation_id.clone();
        let message = request.message.clone();
        let page = page.clone();
        let client = request.context.clone();
        state
            .with_db(move |db| {
                db.ensure_conversation(&id)?;
                db.add_message(&id, turn, "user", &message, None)?;
                let context = tables::page_context(&db.conn(), &page, &client)?;
                Ok((context, db.manifest(&id)?))
            })
            .await?
    };
    let prompt = PromptBuilder::for_page(registry, &page)
        .map_err(|e| ApiError::bad_request(e.to_string()))?
        .context(&context)
        .history(&manifest)
        .build();
    let agent = Agent::for_page(registry, &page)
        .map_err(|e| ApiError::internal(e.to_string()))?
        .system(prompt);
    let model = (state.models)(&TurnInfo {
        conversation_id: conversation_id.clone(),
        turn,
        page,
    });
    let (events, received) = mpsc::channel(EVENT_BUFFER);
    let task = TurnTask {
        state: state.clone(),
        conversation_id: conversation_id.clone(),
        turn,
        table_id: request.context.get("table_id").and_then(Value::as_i64),
        earlier: messages.len(),
        _live: live,
    };
    tokio::spawn(task.run(agent, model, messages, context, events));
    Ok(sse::response(received, &conversation_id, turn))
}

/// A fresh id, or a 500 when the system has no random source.
fn new_conversation_id() -> Result<String, ApiError> {
    ids::new_conversation_id()
        .map_err(|e| ApiError::internal(format!("no random source for an id: {e}")))
}

/// An id the server looks up: short, and safe in a header and a URL.
fn is_conversation_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// This turn's number (from 0: how many user messages came before) and the
/// conversation so far: the stored messages, or the client's when the conversation is
/// new (one started before the server lost its memory). A stored turn that ended
/// without an answer adds no assistant message for the model.
fn history(
    stored: Option<Vec<StoredMessage>>,
    sent: &[HistoryMessage],
) -> (usize, Vec<ModelMessage>) {
    let messages: Vec<ModelMessage> = match stored {
        Some(stored) => stored
            .into_iter()
            .filter(|m| m.interrupted.is_none())
            .map(|m| message(&m.role, m.text))
            .collect(),
        None => sent
            .iter()
            .map(|m| message(&m.role, m.content.clone()))
            .collect(),
    };
    let turn = messages
        .iter()
        .filter(|m| matches!(m, ModelMessage::User { .. }))
        .count();
    (turn, messages)
}

fn message(role: &str, text: String) -> ModelMessage {
    match role {
        "assistant" => ModelMessage::assistant(text),
        _ => ModelMessage::user(text),
    }
}

/// The messages with roles alternating, as chat templates require: two user messages in
/// a row (the first one's turn got no answer) become one, their texts joined by a blank
/// line, and so do two answers in a row; nothing is dropped.
fn alternating(messages: Vec<ModelMessage>) -> Vec<ModelMessage> {
    let mut merged: Vec<ModelMessage> = Vec::with_capacity(messages.len());
    for message in messages {
        match (merged.last_mut(), message) {
            (Some(ModelMessage::User { text }), ModelMessage::User { text: next }) => {
                text.push_str("\n\n");
                text.push_str(&next);
            }
            (
                Some(ModelMessage::Assistant { text, tool_calls }),
                ModelMessage::Assistant {
                    text: next,
                    tool_calls: more,
                },
            ) if tool_calls.is_empty() && more.is_empty() => {
                text.push_str("\n\n");
                text.push_str(&next);
            }
            (_, message) => merged.push(message),
        }
    }
    merged
}

/// One turn's task: what it records when the turn completes.
struct TurnTask {
    state: Arc<AppState>,
    conversation_id: String,
    turn: usize,
    table_id: Option<i64>,
    /// How many messages came before this turn's answers.
    earlier: usize,
    /// Holds the conversation until the task ends.
    _live: LiveTurn,
}

impl TurnTask {
    /// Runs the turn, sending each event as SSE, until it completes or the client goes.
    /// A turn that ends without its answer recorded is recorded as interrupted, with why.
    async fn run(
        self,
        agent: Agent,
        model: Box<dyn Model>,
        messages: Vec<ModelMessage>,
        context: Value,
        events: mpsc::Sender<Bytes>,
    ) {
        let mut turn = agent.turn(model, messages, context);
        let mut recorded = false;
        let limit = self.state.turn_deadline;
        let deadline = tokio::time::sleep(limit);
        tokio::pin!(deadline);
        let ended = loop {
            let event = tokio::select! {
                // The client went away: stop the model rather than talk to no one.
                () = events.closed() => break "the client went away before the answer was complete",
                // However the model behaves (a stream that never ends, tools that loop),
                // the turn ends and its conversation is free again.
                () = &mut deadline => {
                    let error = AgentEvent::Error {
                        message: format!(
                            "the turn took longer than its deadline of {} s and was stopped",
                            limit.as_secs_f64()
                        ),
                    };
                    // The client may be gone too; the turn is recorded either way.
                    let _ = events.send(Bytes::from(error.to_sse())).await;
                    break "the turn passed its deadline before the answer was complete";
                }
                event = turn.next() => event,
            };
            let Some(event) = event else {
                break "the turn ended without an answer";
            };
            if let AgentEvent::Complete(parsed) = &event {
                // Recorded before the client hears of it, so it can decide at once.
                let answer: Vec<String> = turn.messages()[self.earlier..]
                    .iter()
                    .filter_map(|m| match m {
                        ModelMessage::Assistant { text, .. } => Some(text.clone()),
                        _ => None,
                    })
                    .collect();
                let response = serde_json::to_value(parsed).unwrap_or_default();
                let payload = parsed.custom_payload.clone();
                recorded = self
                    .record_answer(answer.join("\n\n"), response, payload)
                    .await;
            }
            if events.send(Bytes::from(event.to_sse())).await.is_err() {
                break "the client went away before the answer was complete";
            }
        };
        if !recorded {
            self.record_interrupted(ended).await;
        }
    }

    /// Records the answer (and its payload); false when the database refused it.
    async fn record_answer(
        &self,
        answer: String,
        response: Value,
        payload: Option<payload_core::CustomPayload>,
    ) -> bool {
        let (id, turn, table_id) = (self.conversation_id.clone(), self.turn, self.table_id);
        let recorded = self
            .state
            .with_db(move |db| {
                db.add_message(&id, turn, "assistant", &answer, Some(&response))?;
                if let Some(payload) = &payload {
                    db.add_payload(&id, turn, payload, table_id)?;
                }
                Ok(())
            })
            .await;
        if let Err(e) = &recorded {
            tracing::error!(?e, "could not record the turn");
        }
        recorded.is_ok()
    }

    async fn record_interrupted(&self, reason: &'static str) {
        let (id, turn) = (self.conversation_id.clone(), self.turn);
        let recorded = self
            .state
            .with_db(move |db| Ok(db.add_interrupted(&id, turn, reason)?))
            .await;
        if let Err(e) = recorded {
            tracing::error!(?e, "could not record the interrupted turn");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(messages: &[ModelMessage]) -> Vec<&'static str> {
        messages
            .iter()
            .map(|m| match m {
                ModelMessage::User { .. } => "user",
                ModelMessage::Assistant { .. } => "assistant",
                ModelMessage::Tool { .. } => "tool",
            })
            .collect()
    }

    #[test]
    fn messages_in_a_row_of_one_role_are_joined_never_dropped() {
        let merged = alternating(vec![
            ModelMessage::user("a"),
            ModelMessage::user("b"),
            ModelMessage::assistant("x"),
            ModelMessage::assistant("y"),
            ModelMessage::user("c"),
        ]);
        assert_eq!(roles(&merged), ["user", "assistant", "user"]);
        assert_eq!(merged[0], ModelMessage::user("a\n\nb"));
        assert_eq!(merged[1], ModelMessage::assistant("x\n\ny"));
    }

    #[test]
    fn an_interrupted_turn_adds_no_answer_and_still_counts() {
        let stored = |role: &str, text: &str, interrupted: Option<&str>| StoredMessage {
            turn: 0,
            role: role.into(),
            text: text.into(),
            response: None,
            interrupted: interrupted.map(String::from),
        };
        let (turn, messages) = history(
            Some(vec![
                stored("user", "first", None),
                stored("assistant", "", Some("the client went away")),
            ]),
            &[],
        );
        assert_eq!(turn, 1);
        let mut messages = messages;
        messages.push(ModelMessage::user("second"));
        assert_eq!(
            alternating(messages),
            [ModelMessage::user("first\n\nsecond")]
        );
    }
}
