//! What the AI SDK's `DefaultChatTransport` sends: `id` (the client's chat), `messages`
//! (UI messages, the newest last), `trigger` (`submit-message` or
//! `regenerate-message`), `messageId`, and what the transport's `body` option adds: here
//! `context`, the page and its fields (`{"current_page": "cookbook"}`), the object
//! AG-UI's `forwardedProps.context` carries.
//!
//! A request either asks: its newest message is the user's, whose text is the new
//! message; or decides: its newest message is the assistant's, holding the user's
//! answers to that message's approval requests (`state: "approval-responded"`), as the
//! transport sends it after `addToolApprovalResponse`. The conversation is the one the
//! newest assistant message's metadata names (`conversationId`, which the server's
//! `start` chunk put there); a server looks it up and never takes it as given.

use crate::decision::{Decision, DecisionRequest, InputError, parse_proposal_id};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The request body.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRequest {
    /// The client's chat id (its own; never a conversation of the server's).
    #[serde(default)]
    pub id: String,
    /// The conversation as the client holds it, the newest message last.
    pub messages: Vec<UiMessage>,
    /// `submit-message` or `regenerate-message`.
    #[serde(default)]
    pub trigger: Option<String>,
    /// The message regenerated, when one is.
    #[serde(default)]
    pub message_id: Option<String>,
    /// The page and its own fields: `{"current_page": ...}`.
    #[serde(default)]
    pub context: Option<Value>,
}

/// A UI message: its parts are read leniently (a part of a kind this server does not
/// read is skipped).
#[derive(Debug, Clone, Deserialize)]
pub struct UiMessage {
    /// Its id.
    #[serde(default)]
    pub id: String,
    /// `user`, `assistant` or `system`.
    pub role: String,
    /// Its parts.
    #[serde(default)]
    pub parts: Vec<Value>,
    /// What the client keeps with it (for an assistant message: what `start` sent).
    #[serde(default)]
    pub metadata: Option<Value>,
}

impl UiMessage {
    /// Its text: the text parts joined with a newline.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// What a request asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// A new turn: the user's newest message.
    Ask {
        /// What the user wrote.
        message: String,
    },
    /// The user's decisions on the newest assistant message's proposals.
    Decide {
        /// The assistant message they belong to (the stream continues it).
        message_id: String,
        /// The decisions, in the message's order.
        approvals: Vec<Approval>,
    },
}

/// One answered approval: the decision, and the data part showing the proposal's card
/// in the client's message (sent again with the decision's outcome).
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    /// The proposal and the decision.
    pub request: DecisionRequest,
    /// The card's data part: its name (the payload type) and id, when the message
    /// holds one for this proposal.
    pub card: Option<(String, String)>,
}

impl ChatRequest {
    /// The page context (`{}` when absent).
    pub fn context(&self) -> Value {
        self.context
            .clone()
            .filter(Value::is_object)
            .unwrap_or_else(|| Value::Object(Default::default()))
    }

    /// The page the context names.
    pub fn page(&self) -> Option<String> {
        self.context
            .as_ref()?
            .get("current_page")?
            .as_str()
            .map(str::to_string)
    }

    /// The conversation the newest assistant message's metadata names, if any.
    pub fn conversation(&self) -> Option<String> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == "assistant")?
            .metadata
            .as_ref()?
            .get("conversationId")?
            .as_str()
            .map(str::to_string)
    }

    /// The messages before the newest, as (role, text): the history a server that does
    /// not know the conversation gives the model.
    pub fn history(&self) -> Vec<(String, String)> {
        let earlier = self.messages.split_last().map_or(&[][..], |(_, e)| e);
        earlier
            .iter()
            .filter(|m| m.role == "user" || m.role == "assistant")
            .map(|m| (m.role.clone(), m.text()))
            .collect()
    }

    /// What the request asks for; an error, and nothing asked, when it is neither a
    /// user's message nor answers to approvals.
    pub fn intent(&self) -> Result<Intent, InputError> {
        let last = self
            .messages
            .last()
            .ok_or_else(|| InputError("messages is empty".into()))?;
        match last.role.as_str() {
            "user" => Ok(Intent::Ask {
                message: last.text(),
            }),
            "assistant" => {
                check_id("the assistant message's id", &last.id)?;
                let approvals = approvals(last)?;
                if approvals.is_empty() {
                    return Err(InputError(
                        "the newest message is the assistant's but answers no approval".into(),
                    ));
                }
                Ok(Intent::Decide {
                    message_id: last.id.clone(),
                    approvals,
                })
            }
            other => Err(InputError(format!(
                "the newest message must be the user's or the assistant's, not '{other}'"
            ))),
        }
    }
}

/// The approvals `message` answers: its tool parts in `approval-responded` state.
fn approvals(message: &UiMessage) -> Result<Vec<Approval>, InputError> {
    let mut out: Vec<Approval> = Vec::new();
    // The proposals answered so far: a set, so a message of many parts is read in
    // linear time.
    let mut answered = BTreeSet::new();
    let cards = cards(message);
    for part in &message.parts {
        if part.get("state").and_then(Value::as_str) != Some("approval-responded") {
            continue;
        }
        let call = part
            .get("toolCallId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (turn, index) = parse_proposal_id(call)
            .ok_or_else(|| InputError(format!("no proposal '{call}' awaits an approval")))?;
        let approved = part
            .get("approval")
            .and_then(|a| a.get("approved"))
            .and_then(Value::as_bool)
            .ok_or_else(|| InputError(format!("the approval of '{call}' says no approved")))?;
        if !answered.insert((turn, index)) {
            return Err(InputError(format!("'{call}' is answered twice")));
        }
        let decision = if approved {
            Decision::accept()
        } else {
            Decision::Dismiss
        };
        out.push(Approval {
            request: DecisionRequest {
                turn,
                index,
                decision,
            },
            card: cards.get(call).cloned(),
        });
    }
    Ok(out)
}

/// The data parts of `message` showing a proposal's card, by the proposal they name:
/// each one's name and id (the first, when several name one proposal).
fn cards(message: &UiMessage) -> BTreeMap<String, (String, String)> {
    let mut cards = BTreeMap::new();
    for part in &message.parts {
        let card = || {
            let name = part.get("type")?.as_str()?.strip_prefix("data-")?;
            let id = part.get("id")?.as_str()?;
            let proposal = part.get("data")?.get("proposal")?.as_str()?;
            (check_id("a data part's id", id).is_ok() && check_id("a type", name).is_ok())
                .then(|| (proposal.to_string(), (name.to_string(), id.to_string())))
        };
        if let Some((proposal, card)) = card() {
            cards.entry(proposal).or_insert(card);
        }
    }
    cards
}

/// An id sent back to the client: 1 to 128 characters, none a control character.
fn check_id(what: &str, id: &str) -> Result<(), InputError> {
    if (1..=128).contains(&id.chars().count()) && !id.chars().any(char::is_control) {
        Ok(())
    } else {
        Err(InputError(format!(
            "{what} must be 1 to 128 characters, none a control character"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(value: Value) -> ChatRequest {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_users_message_asks_with_its_page_and_history() {
        let r = request(json!({
            "id": "chat-1", "trigger": "submit-message", "messageId": null,
            "context": {"current_page": "cookbook"},
            "messages": [
                {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Soup?"}]},
                {"id": "a1", "role": "assistant", "metadata": {"conversationId": "c-9"},
                 "parts": [{"type": "step-start"}, {"type": "text", "text": "Yes."}]},
                {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Two"},
                    {"type": "file", "url": "x", "mediaType": "image/png"},
                    {"type": "text", "text": "please"}]},
            ]
        }));
        assert_eq!(
            r.intent().unwrap(),
            Intent::Ask {
                message: "Two\nplease".into()
            }
        );
        assert_eq!(r.page().as_deref(), Some("cookbook"));
        assert_eq!(r.conversation().as_deref(), Some("c-9"));
        assert_eq!(
            r.history(),
            [
                ("user".to_string(), "Soup?".to_string()),
                ("assistant".to_string(), "Yes.".to_string())
            ]
        );
    }

    #[test]
    fn an_answered_approval_is_the_decision_on_its_proposal_with_its_card() {
        let r = request(json!({"id": "chat-1", "messages": [
            {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Soup?"}]},
            {"id": "a1", "role": "assistant", "metadata": {"conversationId": "c-9"}, "parts": [
                {"type": "data-recipe", "id": "payload-part-1",
                 "data": {"status": "proposed", "data": {}, "proposal": "payload-3"}},
                {"type": "dynamic-tool", "toolName": "recipe", "toolCallId": "payload-3",
                 "state": "approval-responded", "input": {},
                 "approval": {"id": "payload-3", "approved": false}},
            ]},
        ]}));
        assert_eq!(
            r.intent().unwrap(),
            Intent::Decide {
                message_id: "a1".into(),
                approvals: vec![Approval {
                    request: DecisionRequest {
                        turn: 3,
                        index: 0,
                        decision: Decision::Dismiss
                    },
                    card: Some(("recipe".into(), "payload-part-1".into())),
                }]
            }
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// A part a client may send: any of the shapes, with hostile values.
        fn part() -> impl Strategy<Value = Value> {
            let id = prop_oneof![
                Just("payload-1".to_string()),
                Just("payload-2-1".to_string()),
                "[a-z0-9-]{0,12}",
                Just(String::new())
            ];
            let state = prop_oneof![
                Just("approval-responded"),
                Just("approval-requested"),
                Just("output-available")
            ];
            let approved = prop_oneof![
                Just(json!(true)),
                Just(json!(false)),
                Just(json!("yes")),
                Just(Value::Null)
            ];
            prop_oneof![
                "[a-z ]{0,8}".prop_map(|t| json!({"type": "text", "text": t})),
                (id.clone(), state, approved).prop_map(|(call, state, approved)| json!({
                    "type": "dynamic-tool", "toolCallId": call, "state": state,
                    "approval": {"id": call, "approved": approved}})),
                (id.clone(), id).prop_map(|(part, proposal)| json!({
                    "type": "data-recipe", "id": part, "data": {"proposal": proposal}})),
                Just(json!(42)),
                Just(json!({"type": 7})),
            ]
        }

        proptest! {
            /// Whatever the parts, reading them never panics, and a decision is only
            /// ever the answer of a part that responded to the approval of the
            /// proposal it names, each proposal answered once.
            #[test]
            fn a_decision_is_always_an_answered_approval(
                parts in prop::collection::vec(part(), 0..12),
                role in prop_oneof![Just("user"), Just("assistant")],
            ) {
                let r = request(json!({"id": "c", "messages": [
                    {"id": "m", "role": role, "parts": parts.clone()}]}));
                if let Ok(Intent::Decide { approvals, .. }) = r.intent() {
                    prop_assert_eq!(role, "assistant");
                    let mut seen = std::collections::BTreeSet::new();
                    for approval in &approvals {
                        let id = crate::proposal_id(approval.request.turn, approval.request.index);
                        prop_assert!(seen.insert(id.clone()));
                        let answered = parts.iter().any(|p| p["toolCallId"] == id.as_str()
                            && p["state"] == "approval-responded"
                            && p["approval"]["approved"]
                                == (approval.request.decision != Decision::Dismiss));
                        prop_assert!(answered, "{} was not answered so", id);
                    }
                }
            }
        }
    }

    #[test]
    fn anything_else_is_refused_whole() {
        let responded = |call: &str, approval: Value| {
            json!({"type": "dynamic-tool", "toolCallId": call, "state": "approval-responded",
                   "approval": approval})
        };
        for messages in [
            json!([]),
            json!([{"id": "s", "role": "system", "parts": []}]),
            json!([{"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "Hi"}]}]),
            json!([{"id": "a1", "role": "assistant",
                    "parts": [responded("tool-call_1", json!({"approved": true}))]}]),
            json!([{"id": "a1", "role": "assistant",
                    "parts": [responded("payload-1", json!({"approved": "yes"}))]}]),
            json!([{"id": "a1", "role": "assistant", "parts": [
                responded("payload-1", json!({"approved": true})),
                responded("payload-1", json!({"approved": false}))]}]),
            json!([{"id": "", "role": "assistant",
                    "parts": [responded("payload-1", json!({"approved": true}))]}]),
        ] {
            let r = request(json!({"id": "c", "messages": messages}));
            assert!(r.intent().is_err(), "{messages}");
        }
    }
}
