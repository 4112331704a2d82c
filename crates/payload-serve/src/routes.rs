//! The JSON API beside the chat: the app's manifest, a conversation as stored, and the
//! user's decision on a proposed payload. Requests and answers are typed structs.

use crate::db::StoredMessage;
use crate::decide::{Decision, ProposalKey};
use crate::error::ApiError;
use crate::extract::Json;
use crate::extract::{Path, Query};
use crate::manifest::AppManifest;
use crate::state::AppState;
use axum::extract::State;
use payload_core::CustomPayload;
use payload_prompt::PayloadStatus;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// `GET /api/app`: what the page is told about the app.
pub async fn app(State(state): State<Arc<AppState>>) -> axum::Json<AppManifest> {
    axum::Json(state.manifest.clone())
}

/// A stored conversation, to show it again.
#[derive(Debug, Serialize)]
pub struct ConversationBody {
    /// Its id.
    pub conversation_id: String,
    /// Its messages, oldest first.
    pub messages: Vec<StoredMessage>,
    /// Its payloads with what the user did with each.
    pub payloads: Vec<PayloadBody>,
}

/// A payload of a stored conversation.
#[derive(Debug, Serialize)]
pub struct PayloadBody {
    /// The turn it was proposed in.
    pub turn: usize,
    /// Its position among its answer's payloads (what a decision's `?index=` names).
    pub index: usize,
    /// The payload.
    pub payload: CustomPayload,
    /// Proposed, accepted or dismissed.
    pub status: PayloadStatus,
}

/// `GET /api/conversations/{id}`: the messages and payloads, to show it again.
pub async fn conversation(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<axum::Json<ConversationBody>, ApiError> {
    let payloads = state
        .db
        .payloads(&id)
        .await?
        .into_iter()
        .map(|p| PayloadBody {
            turn: p.turn,
            index: p.index,
            payload: p.payload,
            status: p.status,
        })
        .collect();
    Ok(axum::Json(ConversationBody {
        messages: state.db.messages(&id).await?,
        conversation_id: id,
        payloads,
    }))
}

/// What a decision did.
#[derive(Debug, Serialize)]
pub struct DecidedBody {
    /// The payload's status now.
    pub status: PayloadStatus,
    /// What the app's accept handler answered (`null` for a dismissal).
    pub applied: Option<Value>,
}

/// Which proposal of the turn a decision is on: `?index=N`, 0 when absent (seed 000's
/// answers propose one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Which {
    /// The proposal's position among its answer's payloads.
    pub index: Option<usize>,
}

/// `POST /api/payloads/{conversation}/{turn}/{accept|dismiss}[?index=N]`: applies or
/// dismisses payload `index` (0 by default) proposed in that turn, and records the
/// decision, as one transaction
/// ([`crate::Db::decide`]). The body is a JSON object of the user's choices, handed to
/// the app's handler. A payload is decided once; the payload applied is the one
/// stored, not one the client sends.
pub async fn decide(
    State(state): State<Arc<AppState>>,
    Path((conversation, turn, decision)): Path<(String, usize, String)>,
    Query(which): Query<Which>,
    Json(options): Json<Map<String, Value>>,
) -> Result<axum::Json<DecidedBody>, ApiError> {
    let decision = match decision.as_str() {
        "accept" => Decision::Accept {
            options: Value::Object(options),
        },
        "dismiss" => Decision::Dismiss,
        other => return Err(ApiError::not_found(format!("no decision '{other}'"))),
    };
    let key = ProposalKey {
        conversation: &conversation,
        turn,
        index: which.index.unwrap_or(0),
    };
    let decided = state.db.decide(key, &decision, &state.handlers).await?;
    Ok(axum::Json(DecidedBody {
        status: decided.status,
        applied: decided.applied,
    }))
}
