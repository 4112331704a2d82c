//! An agent's turn events as one assistant message of the AI SDK's UI message stream:
//! `start` (the message's id, the conversation in its metadata) and `start-step`;
//! each text and reasoning part opened on its first piece and closed before the next
//! part, its id the part's position in the answer; each payload a `data-<type>` part
//! whose data is its card ([`UiCard`]), sent again under the same id as it streams
//! (`drafting`, the typed partial), then whole (`proposed` or `shown`); a proposal the
//! app decides also a dynamic tool call waiting for the user's approval, named by its
//! [`crate::proposal_id`]; suggestion chips data parts once the answer is whole; the
//! agent's own tool calls dynamic tool calls with their output. A refusal, a content
//! filter's stop or a failure is the `error` chunk. `finish-step` and `finish` end
//! every message, `finish` last: nothing follows it.

use super::chunk::{Chunk, FinishReason};
use crate::decision::proposal_id;
use payload_agent::{AgentEvent, RefusalReason};
use payload_core::response::{PartContents, PartKind};
use payload_core::stream::StreamEvent;
use payload_core::suggestions::{SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_NAME};
use serde::Serialize;
use serde_json::{Value, json};

/// A payload's card: the data of its `data-<type>` part.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UiCard {
    /// `drafting`, `proposed`, `shown` (the app does nothing with it), `accepted`,
    /// `dismissed` or `rejected` (the block was not accepted).
    pub status: &'static str,
    /// The value so far (`drafting`, the typed partial) or the whole value.
    pub data: Value,
    /// For a proposal: the id its approval and its decision name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
    /// What accepting it did, once accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied: Option<Value>,
}

impl UiCard {
    /// The card as a data part's data.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The id of the data part of the block at `position` in the answer.
pub fn data_part_id(position: usize) -> String {
    format!("payload-part-{position}")
}

/// A block the stream began: where, of what type, and its card as last sent.
struct Block {
    position: usize,
    kind: String,
    sent: Value,
}

/// Translates one turn's events into one assistant message's chunks, in order.
pub struct UiTranslator {
    message_id: String,
    metadata: Value,
    turn: usize,
    /// Which types the app decides (their proposals wait for the user's approval).
    decidable: Box<dyn Fn(&str) -> bool + Send>,
    /// The open text part's id.
    text: Option<String>,
    /// The open reasoning part's id.
    reasoning: Option<String>,
    /// The payload blocks begun, in order.
    blocks: Vec<Block>,
    /// Whether `finish` was sent: nothing follows it.
    ended: bool,
}

impl UiTranslator {
    /// A translator for the answer of `turn`, sent as the assistant message
    /// `message_id` with `metadata` (what the client keeps as the message's metadata:
    /// the conversation the next request names).
    pub fn new(
        message_id: String,
        metadata: Value,
        turn: usize,
        decidable: impl Fn(&str) -> bool + Send + 'static,
    ) -> UiTranslator {
        UiTranslator {
            message_id,
            metadata,
            turn,
            decidable: Box::new(decidable),
            text: None,
            reasoning: None,
            blocks: Vec::new(),
            ended: false,
        }
    }

    /// `start` and `start-step`: the chunks before any event.
    pub fn started(&self) -> Vec<Chunk> {
        vec![
            Chunk::Start {
                message_id: self.message_id.clone(),
                metadata: self.metadata.clone(),
            },
            Chunk::StartStep,
        ]
    }

    /// The chunks of `event`: none once the message has finished.
    pub fn translate(&mut self, event: AgentEvent) -> Vec<Chunk> {
        if self.ended {
            return Vec::new();
        }
        let mut out = Vec::new();
        match event {
            AgentEvent::Stream(event) => self.stream(event, &mut out),
            // A tool call leaves the open part open: the text after it, until a block,
            // is the same part of the answer, so it continues under the same id.
            AgentEvent::ToolStart { id, tool, input } => {
                out.push(Chunk::ToolInputAvailable {
                    tool_call_id: tool_call_id(&id),
                    tool_name: tool,
                    input,
                });
            }
            AgentEvent::ToolComplete {
                id, text, payload, ..
            } => {
                let mut output = json!({ "text": text });
                if let Some(payload) = payload {
                    output["payload"] = json!({ "type": payload.kind, "data": payload.data() });
                }
                out.push(Chunk::ToolOutputAvailable {
                    tool_call_id: tool_call_id(&id),
                    output,
                });
            }
            AgentEvent::Refusal { message, reason } => {
                let reason = match reason {
                    RefusalReason::ContentFilter => FinishReason::ContentFilter,
                    _ => FinishReason::Error,
                };
                self.fail(message, reason, &mut out);
            }
            AgentEvent::Error { message } => self.fail(message, FinishReason::Error, &mut out),
            // Status lines ("Thinking…") and a tool's progress are the chat page's; the
            // protocol has no such chunk. An event a later agent adds has no form yet:
            // `complete` still carries the whole response.
            _ => {}
        }
        out
    }

    /// The chunks of one of the core's stream events, for an app that parses its
    /// model's stream itself (`StreamParser`) with no agent: as [`Self::translate`].
    pub fn translate_stream(&mut self, event: StreamEvent) -> Vec<Chunk> {
        self.translate(AgentEvent::Stream(event))
    }

    /// The message's end when the turn's events stopped before it (the turn's task
    /// ended without completing): an `error`, then `finish`, so every message ends.
    pub fn finish(&mut self) -> Vec<Chunk> {
        if self.ended {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.fail(
            "the turn ended without an answer".into(),
            FinishReason::Error,
            &mut out,
        );
        out
    }

    fn stream(&mut self, event: StreamEvent, out: &mut Vec<Chunk>) {
        match event {
            StreamEvent::TextDelta { text, part } if !text.is_empty() => {
                self.close_reasoning(out);
                let id = format!("text-{part}");
                if self.text.as_deref() != Some(id.as_str()) {
                    self.close_text(out);
                    out.push(Chunk::TextStart { id: id.clone() });
                    self.text = Some(id.clone());
                }
                out.push(Chunk::TextDelta { id, delta: text });
            }
            StreamEvent::ReasoningDelta { text, part } if !text.is_empty() => {
                self.close_text(out);
                let id = format!("reasoning-{part}");
                if self.reasoning.as_deref() != Some(id.as_str()) {
                    self.close_reasoning(out);
                    out.push(Chunk::ReasoningStart { id: id.clone() });
                    self.reasoning = Some(id.clone());
                }
                out.push(Chunk::ReasoningDelta { id, delta: text });
            }
            // Chips arrive whole with the answer, filtered by the page's rules.
            StreamEvent::PayloadStart { kind, .. } if is_chips(&kind) => self.close(out),
            StreamEvent::PayloadStart { kind, part, .. } => {
                self.close(out);
                self.blocks.push(Block {
                    position: part,
                    kind,
                    sent: Value::Null,
                });
                self.show(part, "drafting", json!({}), out);
            }
            StreamEvent::PayloadProgress {
                kind,
                partial,
                part,
                ..
            } if !is_chips(&kind) => {
                self.show(part, "drafting", partial, out);
            }
            StreamEvent::Complete(parsed) => {
                self.close(out);
                let mut kept = Vec::new();
                // The parts are authoritative: each accepted payload and each block of
                // chips at its position in the answer.
                for (position, part) in parsed.parts.iter().enumerate() {
                    match (parsed.contents(part), &part.kind) {
                        (Some(PartContents::Payload(payload)), PartKind::Payload(index)) => {
                            kept.push(position);
                            self.propose(position, *index, payload, out);
                        }
                        (Some(PartContents::SuggestedValues(items)), _) if !items.is_empty() => {
                            out.push(Chunk::Data {
                                name: SUGGESTED_VALUES_NAME.into(),
                                id: data_part_id(position),
                                data: json!(items),
                            });
                        }
                        (Some(PartContents::SuggestedActions(items)), _) if !items.is_empty() => {
                            out.push(Chunk::Data {
                                name: SUGGESTED_ACTIONS_NAME.into(),
                                id: data_part_id(position),
                                data: json!(items),
                            });
                        }
                        _ => {}
                    }
                }
                self.reject_others(&kept, out);
                out.push(Chunk::FinishStep);
                out.push(Chunk::Finish {
                    reason: FinishReason::Stop,
                });
                self.ended = true;
            }
            // An empty delta, a block of chips in progress, a block's end (the answer's
            // parts carry its value): nothing to show.
            _ => {}
        }
    }

    /// The card of the accepted payload at `position`, `index` among the answer's
    /// payloads: proposed, with its approval, when the app decides its type.
    fn propose(
        &mut self,
        position: usize,
        index: usize,
        payload: &payload_core::CustomPayload,
        out: &mut Vec<Chunk>,
    ) {
        if !self.blocks.iter().any(|b| b.position == position) {
            self.blocks.push(Block {
                position,
                kind: payload.kind.clone(),
                sent: Value::Null,
            });
        }
        let decidable = (self.decidable)(&payload.kind);
        let proposal = decidable.then(|| proposal_id(self.turn, index));
        let card = UiCard {
            status: if decidable { "proposed" } else { "shown" },
            data: payload.data().clone(),
            proposal: proposal.clone(),
            applied: None,
        };
        self.send(position, card.to_json(), out);
        if let Some(proposal) = proposal {
            out.push(Chunk::ToolInputAvailable {
                tool_call_id: proposal.clone(),
                tool_name: payload.kind.clone(),
                input: json!({ "type": payload.kind, "data": payload.data() }),
            });
            out.push(Chunk::ToolApprovalRequest {
                approval_id: proposal.clone(),
                tool_call_id: proposal,
            });
        }
    }

    /// Ends the message with `message` as its error: open parts closed, cards begun
    /// marked rejected (none was accepted).
    fn fail(&mut self, message: String, reason: FinishReason, out: &mut Vec<Chunk>) {
        self.close(out);
        self.reject_others(&[], out);
        out.push(Chunk::Error {
            error_text: message,
        });
        out.push(Chunk::FinishStep);
        out.push(Chunk::Finish { reason });
        self.ended = true;
    }

    /// Sends the card of the block at `position` while it is drafted; an unchanged
    /// card is not sent again.
    fn show(&mut self, position: usize, status: &'static str, data: Value, out: &mut Vec<Chunk>) {
        let card = UiCard {
            status,
            data,
            proposal: None,
            applied: None,
        };
        self.send(position, card.to_json(), out);
    }

    fn send(&mut self, position: usize, card: Value, out: &mut Vec<Chunk>) {
        let Some(block) = self.blocks.iter_mut().find(|b| b.position == position) else {
            return;
        };
        if block.sent == card {
            return;
        }
        block.sent = card.clone();
        out.push(Chunk::Data {
            name: block.kind.clone(),
            id: data_part_id(position),
            data: card,
        });
    }

    /// Every block begun but those at `kept`, sent again as `rejected`.
    fn reject_others(&mut self, kept: &[usize], out: &mut Vec<Chunk>) {
        let rejected: Vec<usize> = self
            .blocks
            .iter()
            .map(|b| b.position)
            .filter(|p| !kept.contains(p))
            .collect();
        for position in rejected {
            let card = UiCard {
                status: "rejected",
                data: json!({}),
                proposal: None,
                applied: None,
            };
            self.send(position, card.to_json(), out);
        }
    }

    fn close(&mut self, out: &mut Vec<Chunk>) {
        self.close_text(out);
        self.close_reasoning(out);
    }

    fn close_text(&mut self, out: &mut Vec<Chunk>) {
        if let Some(id) = self.text.take() {
            out.push(Chunk::TextEnd { id });
        }
    }

    fn close_reasoning(&mut self, out: &mut Vec<Chunk>) {
        if let Some(id) = self.reasoning.take() {
            out.push(Chunk::ReasoningEnd { id });
        }
    }
}

/// The tool call id of an agent's tool call: apart from the proposals' ids.
fn tool_call_id(id: &str) -> String {
    format!("tool-{id}")
}

/// Whether a block of this type is suggestion chips, not a payload.
fn is_chips(kind: &str) -> bool {
    kind == SUGGESTED_VALUES_NAME || kind == SUGGESTED_ACTIONS_NAME
}
