//! One decision, whichever protocol carried it: AG-UI's `resume`, the AI SDK's
//! approval responses. The request names a proposal by its turn and index; the stored
//! proposal is looked up in the request's own conversation and decided as
//! `POST /api/payloads/...` decides it ([`Db::decide`]), once.

use crate::db::Db;
use crate::decide::{Decided, ProposalKey};
use crate::error::ApiError;
use crate::handlers::Handlers;
use payload_agui::DecisionRequest;
use payload_core::CustomPayload;

/// The stored proposal `request` names in `conversation` (`None` when there is none),
/// and what deciding it did or why it was not decided. An `Err` is the database's
/// failure to read; a decision refused is the inner `Err`.
pub(crate) async fn decide(
    db: &Db,
    conversation: &str,
    request: &DecisionRequest,
    handlers: &Handlers,
) -> Result<(Option<CustomPayload>, Result<Decided, ApiError>), ApiError> {
    let stored = db
        .payload(conversation, request.turn, request.index)
        .await?
        .map(|p| p.payload);
    let key = ProposalKey {
        conversation,
        turn: request.turn,
        index: request.index,
    };
    let decided = db
        .decide(key, &request.decision, handlers)
        .await
        .map_err(ApiError::from);
    Ok((stored, decided))
}
