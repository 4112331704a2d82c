//! `POST /api/agui`: the chat turn over AG-UI 1.x, beside the chat architecture's
//! `POST /api/chat` (the mapping is `docs/agui.md`). The request is AG-UI's
//! `RunAgentInput`: its thread is the conversation, its last user message is the new
//! message, and `forwardedProps.context` is the page and its fields
//! (`{"current_page": "tables_list"}`). A thread id is the server's: a run on a thread
//! the server did not issue starts a new conversation, whose id (random, unguessable)
//! is the thread id `RUN_STARTED` carries and later runs name; a client-picked id is
//! never bound to a conversation, so knowing one opens nothing. The answer is AG-UI
//! events as Server-Sent Events. A proposal the app decides ends the run with an
//! interrupt; the next run on the thread answers it in `resume`
//! (`{"decision": "accept" | "dismiss", "options": {...}}`, or `cancelled` to dismiss),
//! and that decision runs the app's handler as `POST /api/payloads/.../accept` does, on
//! the proposal of the turn the interrupt names, in that thread's conversation only.

pub use payload_agui::{events, translate};

use crate::chat::{EVENT_BUFFER, TurnRequest, start_turn};
use crate::error::ApiError;
use crate::extract::Json;
use crate::state::AppState;
use crate::{proposal, sse};
use axum::extract::State;
use axum::response::Response;
use axum::response::sse::Event as SseEvent;
use events::{Event, Outcome, ResumeEntry, RunAgentInput};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::mpsc;
use translate::{PAYLOAD_ACTIVITY, Translator, card, card_id};

/// Runs the agent as AG-UI asks and answers with its events.
pub async fn run(
    State(state): State<Arc<AppState>>,
    Json(input): Json<RunAgentInput>,
) -> Result<Response, ApiError> {
    check_id("threadId", &input.thread_id)?;
    check_id("runId", &input.run_id)?;
    // The thread is a conversation only when the server issued it: its own id.
    let thread = input.thread_id.clone();
    let known = state.db.has_conversation(&thread).await?.then_some(thread);
    if let Some(resume) = input.resume.as_ref().filter(|r| !r.is_empty()) {
        let conversation = known.ok_or_else(|| {
            ApiError::bad_request("resume names interrupts of a thread this server does not know")
        })?;
        return resumed(state, &input, conversation, resume.clone()).await;
    }
    let context = input
        .forwarded_props
        .as_ref()
        .and_then(|p| p.get("context"))
        .cloned()
        .unwrap_or_else(|| json!({}));
    let page = context
        .get("current_page")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| state.manifest.default_page.clone());
    let (last, earlier) = input
        .messages
        .split_last()
        .filter(|(last, _)| last.role == "user")
        .ok_or_else(|| ApiError::bad_request("the last message must be the user's"))?;
    let history = earlier
        .iter()
        .filter(|m| m.role == "user" || m.role == "assistant")
        .map(|m| (m.role.clone(), m.text()))
        .collect();
    let turn = start_turn(
        &state,
        TurnRequest {
            page,
            message: last.text(),
            context,
            history,
            conversation: known,
        },
    )
    .await?;
    let shared = state.clone();
    // The run's thread is its conversation's id: for a new conversation, the thread
    // the client continues in its next run.
    let mut translator = Translator::new(
        turn.task.conversation_id.clone(),
        input.run_id,
        turn.task.conversation_id.clone(),
        turn.task.turn,
        move |kind| shared.handlers.accepts(kind),
    );
    let (agent_events, mut from_agent) = mpsc::channel(EVENT_BUFFER);
    let (events, received) = mpsc::channel::<Event>(EVENT_BUFFER);
    tokio::spawn(turn.run(agent_events));
    tokio::spawn(async move {
        if events.send(translator.started()).await.is_err() {
            return;
        }
        while let Some(event) = from_agent.recv().await {
            for out in translator.translate(event) {
                // The client went away: dropping the receiver stops the turn.
                if events.send(out).await.is_err() {
                    return;
                }
            }
        }
        // The turn's task ended without the run's end (it stopped, or panicked).
        if let Some(end) = translator.finish() {
            let _ = events.send(end).await;
        }
    });
    Ok(sse::stream(received, encode))
}

/// An AG-UI event as a Server-Sent Event: its JSON as the data, no event name (AG-UI
/// names the event in its `type`).
fn encode(event: Event) -> SseEvent {
    SseEvent::default().data(serde_json::to_string(&event).unwrap_or_default())
}

/// A run answering interrupts: each decision is made as `POST /api/payloads/...` makes
/// it, its card is sent again with its new status, and the run finishes with what the
/// decisions did; a decision that cannot be made is the run's error.
async fn resumed(
    state: Arc<AppState>,
    input: &RunAgentInput,
    conversation: String,
    resume: Vec<ResumeEntry>,
) -> Result<Response, ApiError> {
    let decisions = payload_agui::resume::decisions(&resume)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let mut outcomes = Vec::new();
    for request in decisions {
        let (stored, decided) =
            proposal::decide(&state.db, &conversation, &request, &state.handlers).await?;
        outcomes.push((request.turn, stored, decided));
    }
    let mut out = vec![Event::RunStarted {
        thread_id: input.thread_id.clone(),
        run_id: input.run_id.clone(),
    }];
    let mut results = Vec::new();
    let mut failed = None;
    for (turn, stored, decided) in outcomes {
        match decided {
            Ok(decided) => {
                let status = match decided.status {
                    payload_prompt::PayloadStatus::Accepted => "accepted",
                    payload_prompt::PayloadStatus::Dismissed => "dismissed",
                    payload_prompt::PayloadStatus::Proposed => "proposed",
                };
                // A decided payload was stored: the lookup found it.
                let (kind, data) = stored
                    .map(|p| (p.kind.clone(), p.data().clone()))
                    .unwrap_or_default();
                out.push(Event::ActivitySnapshot {
                    message_id: card_id(&conversation, turn),
                    activity_type: PAYLOAD_ACTIVITY,
                    content: card(&kind, status, data, decided.applied.clone()),
                    replace: true,
                });
                results.push(json!({
                    "turn": turn, "type": kind, "status": status, "applied": decided.applied,
                }));
            }
            Err(error) => {
                failed = Some(error.message().to_string());
                break;
            }
        }
    }
    out.push(match failed {
        Some(message) => Event::RunError {
            message,
            code: Some("decision_refused".into()),
        },
        None => Event::RunFinished {
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            result: Some(json!({ "decisions": results })),
            outcome: Outcome::Success,
        },
    });
    let (events, received) = mpsc::channel(out.len().max(1));
    for event in out {
        // The channel holds them all; the receiver is alive until the response is.
        let _ = events.try_send(event);
    }
    Ok(sse::stream(received, encode))
}

/// A thread or run id: 1 to 128 characters, none of them a control character.
fn check_id(what: &str, id: &str) -> Result<(), ApiError> {
    if (1..=128).contains(&id.chars().count()) && !id.chars().any(char::is_control) {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "{what} must be 1 to 128 characters, none a control character"
        )))
    }
}
