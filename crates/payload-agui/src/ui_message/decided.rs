//! The answer to a request that decides ([`super::Intent::Decide`]): the assistant
//! message it answers, continued. Each decision made sends the proposal's card again
//! with its new status under the id the client holds, then the approved call's output
//! (what accepting did) or its denial; the first decision that could not be made is
//! the `error` chunk, and nothing after it is sent. `finish` is last.

use super::chunk::{Chunk, FinishReason};
use super::request::Approval;
use super::translate::UiCard;
use crate::decision::proposal_id;
use serde_json::Value;

/// What one decision did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `accepted` or `dismissed`.
    pub status: &'static str,
    /// The proposal's value, as stored.
    pub data: Value,
    /// What accepting it did (`None` for a dismissal).
    pub applied: Option<Value>,
}

/// The chunks answering `decided`, each approval with what deciding it did (or why it
/// could not be decided), continuing the assistant message `message_id`.
pub fn decided_chunks(
    message_id: &str,
    metadata: Value,
    decided: Vec<(Approval, Result<Outcome, String>)>,
) -> Vec<Chunk> {
    let mut out = vec![Chunk::Start {
        message_id: message_id.to_string(),
        metadata,
    }];
    let mut reason = FinishReason::Stop;
    for (approval, outcome) in decided {
        let proposal = proposal_id(approval.request.turn, approval.request.index);
        match outcome {
            Ok(outcome) => {
                if let Some((name, id)) = approval.card {
                    let card = UiCard {
                        status: outcome.status,
                        data: outcome.data,
                        proposal: Some(proposal.clone()),
                        applied: outcome.applied.clone(),
                    };
                    out.push(Chunk::Data {
                        name,
                        id,
                        data: card.to_json(),
                    });
                }
                out.push(if outcome.status == "accepted" {
                    Chunk::ToolOutputAvailable {
                        tool_call_id: proposal,
                        output: outcome.applied.unwrap_or(Value::Null),
                    }
                } else {
                    Chunk::ToolOutputDenied {
                        tool_call_id: proposal,
                    }
                });
            }
            Err(message) => {
                out.push(Chunk::Error {
                    error_text: message,
                });
                reason = FinishReason::Error;
                break;
            }
        }
    }
    out.push(Chunk::Finish { reason });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Decision, DecisionRequest};
    use serde_json::json;

    fn approval(turn: usize, decision: Decision) -> Approval {
        Approval {
            request: DecisionRequest {
                turn,
                index: 0,
                decision,
            },
            card: Some(("recipe".into(), "payload-part-1".into())),
        }
    }

    #[test]
    fn an_accept_updates_the_card_in_place_and_gives_the_call_its_output() {
        let chunks = decided_chunks(
            "a1",
            json!({}),
            vec![(
                approval(2, Decision::accept()),
                Ok(Outcome {
                    status: "accepted",
                    data: json!({"title": "Soup"}),
                    applied: Some(json!({"saved": 1})),
                }),
            )],
        );
        let json: Vec<Value> = chunks.iter().map(Chunk::to_json).collect();
        assert_eq!(json[0]["messageId"], "a1");
        assert_eq!(json[1]["type"], "data-recipe");
        assert_eq!(json[1]["id"], "payload-part-1");
        assert_eq!(json[1]["data"]["status"], "accepted");
        assert_eq!(json[1]["data"]["applied"], json!({"saved": 1}));
        assert_eq!(
            json[2],
            json!({"type": "tool-output-available", "toolCallId": "payload-2",
                   "output": {"saved": 1}, "dynamic": true})
        );
        assert_eq!(json[3], json!({"type": "finish", "finishReason": "stop"}));
    }

    #[test]
    fn a_dismissal_denies_the_call_and_a_refused_decision_is_the_error_nothing_follows() {
        let chunks = decided_chunks(
            "a1",
            json!({}),
            vec![
                (
                    approval(1, Decision::Dismiss),
                    Ok(Outcome {
                        status: "dismissed",
                        data: json!({}),
                        applied: None,
                    }),
                ),
                (
                    approval(2, Decision::accept()),
                    Err("the payload was already accepted".into()),
                ),
                (
                    approval(3, Decision::accept()),
                    Ok(Outcome {
                        status: "accepted",
                        data: json!({}),
                        applied: Some(json!(null)),
                    }),
                ),
            ],
        );
        let kinds: Vec<String> = chunks.iter().map(Chunk::kind).collect();
        assert_eq!(
            kinds,
            [
                "start",
                "data-recipe",
                "tool-output-denied",
                "error",
                "finish"
            ]
        );
        assert!(chunks.last().unwrap().is_finish());
    }
}
