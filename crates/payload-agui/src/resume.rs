//! AG-UI's `resume` entries as decisions: each entry answers one interrupt of the run
//! before, whose id names the proposal ([`crate::proposal_id`]). `resolved` carries
//! `{"decision": "accept" | "dismiss", "options": {...}}` (accept when no decision is
//! named); `cancelled` dismisses.

use crate::decision::{Decision, DecisionRequest, InputError, options, parse_proposal_id};
use crate::events::ResumeEntry;
use serde_json::Value;

/// The decisions `resume` asks for, in its order; an error, and no decision, when any
/// entry is not one.
pub fn decisions(resume: &[ResumeEntry]) -> Result<Vec<DecisionRequest>, InputError> {
    resume.iter().map(decision).collect()
}

/// The decision one entry asks for.
pub fn decision(entry: &ResumeEntry) -> Result<DecisionRequest, InputError> {
    let (turn, index) = parse_proposal_id(&entry.interrupt_id)
        .ok_or_else(|| InputError(format!("no interrupt '{}'", entry.interrupt_id)))?;
    let decision = match entry.status.as_str() {
        "cancelled" => Decision::Dismiss,
        "resolved" => {
            let payload = entry.payload.as_ref().unwrap_or(&Value::Null);
            match payload.get("decision").and_then(Value::as_str) {
                None | Some("accept") => Decision::Accept {
                    options: options(payload.get("options"))?,
                },
                Some("dismiss") => Decision::Dismiss,
                Some(other) => {
                    return Err(InputError(format!(
                        "a decision is accept or dismiss, not '{other}'"
                    )));
                }
            }
        }
        other => {
            return Err(InputError(format!(
                "a resume entry's status is resolved or cancelled, not '{other}'"
            )));
        }
    };
    Ok(DecisionRequest {
        turn,
        index,
        decision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(value: Value) -> ResumeEntry {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn each_entry_names_its_proposal_and_what_was_decided() {
        let read = decisions(&[
            entry(json!({"interruptId": "payload-3", "status": "resolved",
                "payload": {"decision": "accept", "options": {"servings": 2}}})),
            entry(json!({"interruptId": "payload-3-1", "status": "cancelled"})),
            entry(json!({"interruptId": "payload-4", "status": "resolved"})),
            entry(json!({"interruptId": "payload-5", "status": "resolved",
                "payload": {"decision": "dismiss"}})),
        ])
        .unwrap();
        assert_eq!(
            read,
            [
                DecisionRequest {
                    turn: 3,
                    index: 0,
                    decision: Decision::Accept {
                        options: json!({"servings": 2})
                    }
                },
                DecisionRequest {
                    turn: 3,
                    index: 1,
                    decision: Decision::Dismiss
                },
                DecisionRequest {
                    turn: 4,
                    index: 0,
                    decision: Decision::accept()
                },
                DecisionRequest {
                    turn: 5,
                    index: 0,
                    decision: Decision::Dismiss
                },
            ]
        );
    }

    #[test]
    fn one_entry_that_is_not_a_decision_refuses_them_all() {
        for bad in [
            json!({"interruptId": "other-1", "status": "resolved"}),
            json!({"interruptId": "payload-1", "status": "pending"}),
            json!({"interruptId": "payload-1", "status": "resolved", "payload": {"decision": "maybe"}}),
            json!({"interruptId": "payload-1", "status": "resolved", "payload": {"options": [1]}}),
        ] {
            let good = entry(json!({"interruptId": "payload-0", "status": "cancelled"}));
            assert!(decisions(&[good, entry(bad.clone())]).is_err(), "{bad}");
        }
    }
}
