//! One decision, whichever protocol carried it: AG-UI's `resume`, the AI SDK's
//! approval responses. The request names a proposal by its turn and index; the stored
//! proposal is looked up in the request's own conversation and decided as
//! `POST /api/payloads/...` decides it ([`Db::decide`]), once.

use crate::db::Db;
use crate::decide::{DecideError, Decided};
use crate::error::ApiError;
use crate::handlers::Handlers;
use payload_agui::DecisionRequest;
use payload_core::CustomPayload;

/// The stored proposal `request` names in `conversation` (`None` when there is none),
/// and what deciding it did or why it was not decided. An `Err` is the database's
/// failure to read; a decision refused is the inner `Err`.
pub(crate) fn decide(
    db: &Db,
    conversation: &str,
    request: &DecisionRequest,
    handlers: &Handlers,
) -> Result<(Option<CustomPayload>, Result<Decided, ApiError>), ApiError> {
    // An answer's proposals are stored one per turn: only the first has an index.
    if request.index != 0 {
        return Ok((None, Err(ApiError::from(DecideError::NotFound))));
    }
    let stored = db.payload(conversation, request.turn)?.map(|p| p.payload);
    let decided = db
        .decide(conversation, request.turn, &request.decision, handlers)
        .map_err(ApiError::from);
    Ok((stored, decided))
}
