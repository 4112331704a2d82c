//! `POST /api/chat` (the chat architecture's contract): the user's message on a page becomes one
//! agent turn, run in its own task, whose events stream back as SSE. The conversation
//! is kept in the database: its messages are the history the model sees, and its
//! payloads, with what the user did with each, are the next system prompt's manifest.

use crate::db::StoredMessage;
use crate::error::ApiError;
use crate::extract::Json;
use crate::state::{AppState, LiveTurn, TurnInfo};
use crate::{ids, sse};
use axum::extract::State;
use axum::response::Response;
use futures::StreamExt;
use payload_agent::{Agent, AgentEvent, Model, ModelMessage};
use payload_core::stream::StreamEvent;
use payload_prompt::{ManifestEntry, PayloadStatus, PromptBuilder};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc;

/// How many events may wait for a slow client before the turn waits for it.
pub(crate) const EVENT_BUFFER: usize = 64;

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
    let page = request
        .context
        .get("current_page")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("context.current_page is required"))?
        .to_string();
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
    let history: Vec<(String, String)> = request
        .conversation_history
        .iter()
        .map(|m| (m.role.clone(), m.content.clone()))
        .collect();
    let turn = start_turn(
        &state,
        TurnRequest {
            page,
            message: request.message,
            context: request.context,
            history,
            conversation: asked,
        },
    )
    .await?;
    let (events, received) = mpsc::channel(EVENT_BUFFER);
    let (conversation_id, number) = (turn.task.conversation_id.clone(), turn.task.turn);
    tokio::spawn(turn.run(events));
    Ok(sse::response(received, &conversation_id, number))
}

/// What a turn is asked: by `POST /api/chat` or by an AG-UI run.
pub(crate) struct TurnRequest {
    /// The page the user is on.
    pub page: String,
    /// What the user wrote.
    pub message: String,
    /// The client's page context.
    pub context: Value,
    /// The earlier messages as the client knows them (role, text), used when the server
    /// does not know the conversation.
    pub history: Vec<(String, String)>,
    /// The conversation the client names (only looked up: one the server did not make
    /// starts a new conversation under an id the server makes).
    pub conversation: Option<String>,
}

/// A turn ready to run: the agent, its model and messages, and what it records.
pub(crate) struct ReadyTurn {
    agent: Agent,
    model: Box<dyn Model>,
    messages: Vec<ModelMessage>,
    prompt_context: Value,
    pub(crate) task: TurnTask,
}

impl ReadyTurn {
    /// Runs the turn, sending each event on `events` until it completes or the
    /// receiver goes.
    pub(crate) async fn run(self, events: mpsc::Sender<AgentEvent>) {
        self.task
            .run(
                self.agent,
                self.model,
                self.messages,
                self.prompt_context,
                events,
            )
            .await
    }
}

/// Checks the page, finds or makes the conversation, holds it for this turn and
/// records the user's message: everything before the model is called.
pub(crate) async fn start_turn(
    state: &Arc<AppState>,
    request: TurnRequest,
) -> Result<ReadyTurn, ApiError> {
    let registry = state.registry;
    let page = request.page;
    if !state.manifest.serves(&page) {
        let known: Vec<&str> = state.manifest.pages.iter().map(|p| p.name).collect();
        return Err(ApiError::bad_request(format!(
            "this app has no page '{page}' (it serves: {})",
            known.join(", ")
        )));
    }
    let asked = request.conversation;
    let (conversation_id, stored) = match asked {
        Some(id) if state.db.has_conversation(&id).await? => {
            let stored = state.db.messages(&id).await?;
            (id, Some(stored))
        }
        _ => (new_conversation_id()?, None),
    };
    let live = LiveTurn::start(state.clone(), &conversation_id).ok_or_else(|| {
        ApiError::conflict("this conversation is still answering the previous message")
    })?;
    let (first, messages, user_turns) = history(stored, &request.history);
    // Within the app's budget: the oldest turns leave first (the first `left_out` user
    // messages are the ones gone).
    let (mut messages, left_out) = state.history_budget.trim(messages);
    messages.push(ModelMessage::user(request.message.clone()));
    let messages = alternating(messages);

    // The turn's number is the database's: one past the conversation's last, taken
    // with the message in one transaction, never counted from what the client sent.
    let db = &state.db;
    let turn = db
        .add_user_message(&conversation_id, first, &request.message)
        .await?;
    let prompt_context = (state.context)(db.clone(), page.clone(), request.context.clone()).await?;
    let kept_from = first_kept_turn(&user_turns, left_out, turn);
    let manifest = kept_manifest(db.manifest(&conversation_id).await?, kept_from);
    let prompt = PromptBuilder::for_page(registry, &page)
        .map_err(|e| ApiError::bad_request(e.to_string()))?
        .context(&prompt_context)
        .history(&manifest)
        .build();
    let mut agent = Agent::for_page(registry, &page)
        .map_err(|e| ApiError::internal(e.to_string()))?
        .system(prompt)
        .capture_content(state.capture_content);
    if state.reasoning_opened_by_prompt {
        agent = agent.reasoning_opened_by_prompt();
    }
    let model = (state.models)(&TurnInfo {
        conversation_id: conversation_id.clone(),
        turn,
        page,
    });
    let task = TurnTask {
        state: state.clone(),
        conversation_id,
        turn,
        client_context: request.context,
        earlier: messages.len(),
        _live: live,
    };
    Ok(ReadyTurn {
        agent,
        model,
        messages,
        prompt_context,
        task,
    })
}

/// The number (from 0, as stored) of the oldest turn the trimmed history still holds:
/// the stored number of the first user message kept after the `left_out` oldest, or
/// the new turn's own when none is. Matched by number, never by position: a
/// conversation begun from the client's history starts its stored turns past 0.
fn first_kept_turn(user_turns: &[usize], left_out: usize, turn: usize) -> usize {
    user_turns.get(left_out).copied().unwrap_or(turn)
}

/// The payloads the system prompt lists: those of the turns from `kept_from` on (the
/// turns the history still holds, by their stored number from 0), and every one still
/// awaiting a decision, however old (the model must not forget a proposal the user can
/// still accept). Entries count turns from 1.
fn kept_manifest(entries: Vec<ManifestEntry>, kept_from: usize) -> Vec<ManifestEntry> {
    entries
        .into_iter()
        .filter(|e| e.turn > kept_from || e.status == PayloadStatus::Proposed)
        .collect()
}

/// A fresh id, or a 500 when the system has no random source.
fn new_conversation_id() -> Result<String, ApiError> {
    ids::new_conversation_id()
        .map_err(|e| ApiError::internal(format!("no random source for an id: {e}")))
}

/// An id the server looks up: short, and safe in a header and a URL.
pub(crate) fn is_conversation_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The number a new conversation's first turn takes (from 0: how many user messages
/// came before; the database numbers a known conversation's turns) and the
/// conversation so far: the stored messages, or the client's when the conversation is
/// new (one started before the server lost its memory), with the turn number (from 0)
/// of each of its user messages in order: the stored ones', or the client's counted
/// from 0. A stored turn that ended without an answer adds no assistant message for
/// the model.
fn history(
    stored: Option<Vec<StoredMessage>>,
    sent: &[(String, String)],
) -> (usize, Vec<ModelMessage>, Vec<usize>) {
    let (messages, user_turns): (Vec<ModelMessage>, Vec<usize>) = match stored {
        Some(stored) => {
            let kept: Vec<StoredMessage> = stored
                .into_iter()
                .filter(|m| m.interrupted.is_none())
                .collect();
            let turns = kept
                .iter()
                .filter(|m| m.role != "assistant")
                .map(|m| m.turn)
                .collect();
            (
                kept.into_iter().map(|m| message(&m.role, m.text)).collect(),
                turns,
            )
        }
        None => {
            let messages: Vec<ModelMessage> = sent
                .iter()
                .map(|(role, text)| message(role, text.clone()))
                .collect();
            let users = messages
                .iter()
                .filter(|m| matches!(m, ModelMessage::User { .. }))
                .count();
            (messages, (0..users).collect())
        }
    };
    (user_turns.len(), messages, user_turns)
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
                Some(ModelMessage::Assistant {
                    text,
                    tool_calls,
                    replay,
                }),
                ModelMessage::Assistant {
                    text: next,
                    tool_calls: more,
                    replay: more_replay,
                },
            ) if tool_calls.is_empty() && more.is_empty() => {
                text.push_str("\n\n");
                text.push_str(&next);
                replay.extend(more_replay);
            }
            (_, message) => merged.push(message),
        }
    }
    merged
}

/// One turn's task: what it records when the turn completes.
pub(crate) struct TurnTask {
    state: Arc<AppState>,
    /// The conversation.
    pub(crate) conversation_id: String,
    /// Its number, from 0.
    pub(crate) turn: usize,
    /// The page context the client sent, stored with a proposed payload.
    client_context: Value,
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
        events: mpsc::Sender<AgentEvent>,
    ) {
        let mut turn = agent.turn(model, messages, context);
        let mut recorded = false;
        let mut refusal = None;
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
                    let _ = events.send(error).await;
                    break "the turn passed its deadline before the answer was complete";
                }
                event = turn.next() => event,
            };
            let Some(mut event) = event else {
                break "the turn ended without an answer";
            };
            if let AgentEvent::Refusal { message, reason } = &event {
                refusal = Some(serde_json::json!({"message": message, "reason": reason}));
            }
            // Shown and recorded as its type keeps it: what accepting it saves.
            crate::kept::as_kept(self.state.registry, &mut event);
            if let Some(parsed) = event.complete() {
                // Recorded before the client hears of it, so it can decide at once.
                let answer: Vec<String> = turn.messages()[self.earlier..]
                    .iter()
                    .filter_map(|m| match m {
                        ModelMessage::Assistant { text, .. } => Some(text.clone()),
                        _ => None,
                    })
                    .collect();
                let mut response = serde_json::to_value(parsed).unwrap_or_default();
                // A refused or filtered turn keeps its outcome with its answer, so the
                // page shows it again when the conversation is restored.
                if let (Some(refusal), Some(fields)) = (refusal.take(), response.as_object_mut()) {
                    fields.insert("refusal".into(), refusal);
                }
                recorded = self
                    .record_answer(answer.join("\n\n"), response, proposals(parsed))
                    .await;
            }
            // An answer the database refused is not shown as if it were kept: its
            // proposal could not be decided, and a card would name nothing.
            let event = match event {
                AgentEvent::Stream(StreamEvent::Complete(_)) if !recorded => AgentEvent::Error {
                    message: "the answer could not be stored, so it is not shown; ask again"
                        .to_string(),
                },
                event => event,
            };
            if events.send(event).await.is_err() {
                break "the client went away before the answer was complete";
            }
        };
        if !recorded {
            self.record_interrupted(ended).await;
        }
    }

    /// Records the answer and its proposals; false when the database refused it.
    async fn record_answer(
        &self,
        answer: String,
        response: Value,
        proposals: Vec<payload_core::CustomPayload>,
    ) -> bool {
        let recorded = self
            .state
            .db
            .add_answer(
                &self.conversation_id,
                self.turn,
                &answer,
                &response,
                &proposals,
                &self.client_context,
            )
            .await;
        if let Err(e) = &recorded {
            tracing::error!(?e, "could not record the turn");
        }
        recorded.is_ok()
    }

    async fn record_interrupted(&self, reason: &'static str) {
        let recorded = self
            .state
            .db
            .add_interrupted(&self.conversation_id, self.turn, reason)
            .await;
        if let Err(e) = recorded {
            tracing::error!(?e, "could not record the interrupted turn");
        }
    }
}

/// The payloads an answer proposes, in its order (`ParsedResponse::payloads()`): each
/// is stored as its own proposal, `index` being its position here. Seed 000's shape has
/// at most one, the answer's `custom_payload`, at index 0.
pub(crate) fn proposals(parsed: &payload_core::ParsedResponse) -> Vec<payload_core::CustomPayload> {
    parsed.payloads().cloned().collect()
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

    /// A conversation begun from the client's history stores its turns from 3 on; with
    /// its oldest stored turn left out of the history, that turn's decided payload
    /// leaves the manifest too (its still-open proposal stays), matched by the stored
    /// turn number rather than by the user message's position.
    #[test]
    fn the_manifest_keeps_the_turns_the_history_keeps_by_their_number() {
        let stored = |turn: usize, role: &str| StoredMessage {
            turn,
            role: role.into(),
            text: format!("{role} {turn}"),
            response: None,
            interrupted: None,
        };
        let (_, messages, user_turns) = history(
            Some(vec![
                stored(3, "user"),
                stored(3, "assistant"),
                stored(4, "user"),
                stored(4, "assistant"),
            ]),
            &[],
        );
        assert_eq!(messages.len(), 4);
        assert_eq!(user_turns, [3, 4]);
        // The budget left the oldest user message (stored turn 3) out; the new turn is 5.
        let kept_from = first_kept_turn(&user_turns, 1, 5);
        let entry = |turn, status| {
            ManifestEntry::new(
                turn,
                payload_core::CustomPayload::new("note", serde_json::json!({"turn": turn})),
                status,
            )
        };
        let kept = kept_manifest(
            vec![
                entry(4, PayloadStatus::Accepted),
                entry(4, PayloadStatus::Proposed),
                entry(5, PayloadStatus::Dismissed),
            ],
            kept_from,
        );
        let kept: Vec<(usize, PayloadStatus)> = kept.iter().map(|e| (e.turn, e.status)).collect();
        assert_eq!(
            kept,
            [(4, PayloadStatus::Proposed), (5, PayloadStatus::Dismissed)]
        );
        // Nothing left out: every turn kept; everything left out: only the new turn's.
        assert_eq!(first_kept_turn(&user_turns, 0, 5), 3);
        assert_eq!(first_kept_turn(&user_turns, 2, 5), 5);
        // A new conversation's client history counts its turns from 0.
        let sent = [
            ("user".to_string(), "a".to_string()),
            ("assistant".to_string(), "b".to_string()),
        ];
        assert_eq!(history(None, &sent).2, [0]);
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
        let (turn, messages, _) = history(
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
