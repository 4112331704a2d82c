//! `POST /api/chat` (seed 001's contract): the user's message on a page becomes one
//! agent turn, run in its own task, whose events stream back as SSE. The conversation
//! is kept in the database: its messages are the history the model sees, and its
//! payloads, with what the user did with each, are the next system prompt's manifest.

use crate::error::ApiError;
use crate::state::{AppState, LiveTurn, TurnInfo};
use crate::{sse, tables};
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use futures::StreamExt;
use payload_agent::{Agent, AgentEvent, Model, ModelMessage};
use payload_core::ServerSentEvent;
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
    let conversation_id = match &request.conversation_id {
        None | Some(Value::Null) => state.new_conversation_id(),
        Some(Value::String(id)) if is_conversation_id(id) => id.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => {
            return Err(ApiError::bad_request(
                "conversation_id must be 1 to 64 letters, digits, '-' or '_'",
            ));
        }
    };
    let live = LiveTurn::start(state.clone(), &conversation_id).ok_or_else(|| {
        ApiError::conflict("this conversation is still answering the previous message")
    })?;
    let db = &state.db;
    db.ensure_conversation(&conversation_id)?;
    let mut messages = history(&state, &conversation_id, &request.conversation_history)?;
    let turn = messages
        .iter()
        .filter(|m| matches!(m, ModelMessage::User { .. }))
        .count();
    db.add_message(&conversation_id, turn, "user", &request.message, None)?;
    messages.push(ModelMessage::user(request.message.clone()));

    let context = tables::page_context(&db.conn(), &page, &request.context)?;
    let prompt = PromptBuilder::for_page(registry, &page)
        .map_err(|e| ApiError::bad_request(e.to_string()))?
        .context(&context)
        .history(&db.manifest(&conversation_id)?)
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

/// An id the server takes from a client: short, and safe in a header and a URL.
fn is_conversation_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The conversation so far: the stored messages, or the client's when the server has
/// none (a conversation started elsewhere).
fn history(
    state: &AppState,
    conversation_id: &str,
    sent: &[HistoryMessage],
) -> Result<Vec<ModelMessage>, ApiError> {
    let stored = state.db.messages(conversation_id)?;
    let pairs: Vec<(String, String)> = if stored.is_empty() {
        sent.iter()
            .map(|m| (m.role.clone(), m.content.clone()))
            .collect()
    } else {
        stored.into_iter().map(|m| (m.role, m.text)).collect()
    };
    Ok(pairs
        .into_iter()
        .map(|(role, text)| match role.as_str() {
            "assistant" => ModelMessage::assistant(text),
            _ => ModelMessage::user(text),
        })
        .collect())
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
    async fn run(
        self,
        agent: Agent,
        model: Box<dyn Model>,
        messages: Vec<ModelMessage>,
        context: Value,
        events: mpsc::Sender<Bytes>,
    ) {
        let mut turn = agent.turn(model, messages, context);
        loop {
            let event = tokio::select! {
                // The client went away: stop the model rather than talk to no one.
                () = events.closed() => return,
                event = turn.next() => event,
            };
            let Some(event) = event else { return };
            if let AgentEvent::Complete(parsed) = &event {
                // Recorded before the client hears of it, so it can decide at once.
                let answer: Vec<&str> = turn.messages()[self.earlier..]
                    .iter()
                    .filter_map(|m| match m {
                        ModelMessage::Assistant { text, .. } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                if let Err(e) = self.record(&answer.join("\n\n"), parsed) {
                    tracing::error!(%e, "could not record the turn");
                }
            }
            if events.send(Bytes::from(event.to_sse())).await.is_err() {
                return;
            }
        }
    }

    fn record(&self, answer: &str, parsed: &payload_core::ParsedResponse) -> rusqlite::Result<()> {
        let db = &self.state.db;
        let response = serde_json::to_value(parsed).unwrap_or_default();
        db.add_message(
            &self.conversation_id,
            self.turn,
            "assistant",
            answer,
            Some(&response),
        )?;
        if let Some(payload) = &parsed.custom_payload {
            db.add_payload(&self.conversation_id, self.turn, payload, self.table_id)?;
        }
        Ok(())
    }
}
