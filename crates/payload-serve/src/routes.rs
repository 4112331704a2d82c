//! The JSON API beside the chat: the app's manifest, a conversation as stored, and the
//! user's decision on a proposed payload. Requests and answers are typed structs.

use crate::db::StoredMessage;
use crate::decide::Decision;
use crate::error::ApiError;
use crate::extract::Json;
use crate::extract::Path;
use crate::extract::Query;
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
    state
        .with_db(move |db| {
            let payloads = db
                .payloads(&id)?
                .into_iter()
                .map(|p| PayloadBody {
                    turn: p.turn,
                    payload: p.payload,
                    status: p.status,
                })
                .collect();
            Ok(axum::Json(ConversationBody {
                messages: db.messages(&id)?,
                conversation_id: id,
                payloads,
            }))
        })
        .await
}

/// What a decision did.
#[derive(Debug, Serialize)]
pub struct DecidedBody {
    /// The payload's status now.
    pub status: PayloadStatus,
    /// What the app's accept handler answered (`null` for a dismissal).
    pub applied: Option<Value>,
}

/// Which of a turn's payloads a decision names.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct DecideQuery {
    /// The payload's position among the turn's accepted custom payloads (0-based; by
    /// default 0, the only one an answer of the seed's shape holds).
    #[serde(default)]
    pub index: usize,
}

/// `POST /api/payloads/{conversation}/{turn}/{accept|dismiss}?index=N`: applies or
/// dismisses the payload at `index` among those proposed in that turn (each is its own
/// proposal), and records the decision, as one transaction ([`crate::Db::decide`]). The
/// body is a JSON object of the user's choices, handed to the app's handler. A payload
/// is decided once; the payload applied is the one stored, not one the client sends.
/// The store keeps one proposal per turn, the answer's first payload: a decision on
/// any other index finds nothing (404) and changes nothing.
pub async fn decide(
    State(state): State<Arc<AppState>>,
    Path((conversation, turn, decision)): Path<(String, usize, String)>,
    Query(which): Query<DecideQuery>,
    Json(options): Json<Map<String, Value>>,
) -> Result<axum::Json<DecidedBody>, ApiError> {
    let decision = match decision.as_str() {
        "accept" => Decision::Accept {
            options: Value::Object(options),
        },
        "dismiss" => Decision::Dismiss,
        other => return Err(ApiError::not_found(format!("no decision '{other}'"))),
    };
    if which.index != 0 {
        return Err(ApiError::not_found(format!(
            "no payload was proposed at index {} in that turn",
            which.index
        )));
    }
    let shared = state.clone();
    let decided = state
        .with_db(move |db| Ok(db.decide(&conversation, turn, &decision, &shared.handlers)?))
        .await?;
    Ok(axum::Json(DecidedBody {
        status: decided.status,
        applied: decided.applied,
    }))
}
