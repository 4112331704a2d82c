//! What a part holds, read from its parse, and the JSON form of a parse with its parts
//! (docs/spec.md §1, §1.21): each part written out in full from the values the parse
//! owns, and read back.

use crate::error::PayloadError;
use crate::marker::parts::{Part, PartContents, PartKind};
use crate::marker::response::{ParsedResponse, Rejected};
use crate::marker::suggestions::{
    SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_NAME, SuggestedAction, SuggestedValue,
};
use crate::payload::CustomPayload;
use crate::warning::Warning;
use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::ops::Range;

impl ParsedResponse {
    /// What `part` (one of [`ParsedResponse::parts`]) holds; `None` for a part that
    /// does not belong to this parse (one whose text or entry it does not have).
    pub fn contents<'a>(&'a self, part: &'a Part) -> Option<PartContents<'a>> {
        Some(match &part.kind {
            PartKind::Text(range) => PartContents::Text(self.message.get(range.clone())?),
            PartKind::Reasoning(range) => {
                PartContents::Reasoning(self.reasoning.as_deref()?.get(range.clone())?)
            }
            PartKind::Payload(index) => PartContents::Payload(self.payload_at(*index)?),
            PartKind::SuggestedValues { holds_items } => {
                PartContents::SuggestedValues(match (holds_items, &self.suggested_values) {
                    (true, Some(values)) => values.as_slice(),
                    _ => &[],
                })
            }
            PartKind::SuggestedActions { holds_items } => {
                PartContents::SuggestedActions(match (holds_items, &self.suggested_actions) {
                    (true, Some(actions)) => actions.as_slice(),
                    _ => &[],
                })
            }
            PartKind::Rejected(index) => PartContents::Refused(self.rejected.get(*index)?),
            PartKind::Withheld(rejected) => PartContents::Refused(rejected),
        })
    }

    /// Replaces the reasoning with `reasoning`, a text that holds each reasoning part's
    /// text in order (an agent's turn joins a provider's reasoning channel with the
    /// text's): each reasoning part then names its text in the new reasoning. A part
    /// whose text the new reasoning does not hold names nothing (an empty range).
    pub fn set_reasoning(&mut self, reasoning: Option<String>) {
        let new = reasoning.as_deref().unwrap_or("");
        let old = self.reasoning.as_deref().unwrap_or("");
        let mut at = 0;
        for part in &mut self.parts {
            if let PartKind::Reasoning(range) = &mut part.kind {
                let text = old.get(range.clone()).unwrap_or("");
                match new.get(at..).and_then(|rest| rest.find(text)) {
                    Some(found) => {
                        *range = at + found..at + found + text.len();
                        at = range.end;
                    }
                    None => *range = at..at,
                }
            }
        }
        self.reasoning = reasoning;
    }

    /// The accepted custom payload at `index` among [`ParsedResponse::payloads`].
    pub(crate) fn payload_at(&self, index: usize) -> Option<&CustomPayload> {
        match index {
            0 => self.custom_payload.as_ref(),
            n => self.book.more_payloads.get(n - 1),
        }
    }
}

/// The parts of a parse as JSON: each with what it holds.
pub(crate) struct PartsJson<'a>(pub(crate) &'a ParsedResponse);

impl Serialize for PartsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let parsed = self.0;
        let mut seq = serializer.serialize_seq(Some(parsed.parts.len()))?;
        for part in &parsed.parts {
            let contents = parsed
                .contents(part)
                .ok_or_else(|| S::Error::custom("a part names text or a block its parse lacks"))?;
            seq.serialize_element(&PartJson {
                span: &part.span,
                contents,
            })?;
        }
        seq.end()
    }
}

struct PartJson<'a> {
    span: &'a Range<usize>,
    contents: PartContents<'a>,
}

impl Serialize for PartJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.contents {
            PartContents::Text(text) => map.serialize_entry("text", text)?,
            PartContents::Reasoning(text) => map.serialize_entry("reasoning", text)?,
            PartContents::Payload(payload) => {
                map.serialize_entry("type", &payload.kind)?;
                map.serialize_entry("data", payload.data())?;
            }
            PartContents::SuggestedValues(values) => {
                map.serialize_entry("type", SUGGESTED_VALUES_NAME)?;
                map.serialize_entry("data", values)?;
            }
            PartContents::SuggestedActions(actions) => {
                map.serialize_entry("type", SUGGESTED_ACTIONS_NAME)?;
                map.serialize_entry("data", actions)?;
            }
            PartContents::Refused(rejected) => {
                map.serialize_entry("type", &rejected.kind)?;
                map.serialize_entry("raw", &rejected.raw)?;
                map.serialize_entry("errors", &rejected.errors)?;
            }
        }
        map.serialize_entry("span", &[self.span.start, self.span.end])?;
        map.end()
    }
}

/// A part as the JSON writes it, read back.
#[derive(Debug, Deserialize)]
pub(crate) struct PartIn {
    span: [usize; 2],
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    data: Option<Value>,
    #[serde(default)]
    raw: Option<String>,
    #[serde(default)]
    errors: Vec<PayloadError>,
}

/// Rebuilds `parsed.parts` (and the payloads after the first) from the JSON's parts:
/// the inverse of [`PartsJson`] on what it wrote.
pub(crate) fn read_parts(parsed: &mut ParsedResponse, parts: Vec<PartIn>) -> Result<(), String> {
    let (mut in_message, mut in_reasoning, mut payloads) = (0, 0, 0);
    // Refused blocks by (type, text), each taken once: a refused part names its entry.
    let mut unclaimed: std::collections::HashMap<(String, String), Vec<usize>> =
        std::collections::HashMap::new();
    for (at, rejected) in parsed.rejected.iter().enumerate().rev() {
        unclaimed
            .entry((rejected.kind.clone(), rejected.raw.clone()))
            .or_default()
            .push(at);
    }
    let mut out = Vec::with_capacity(parts.len());
    for part in parts {
        let kind = if let Some(text) = part.text {
            let end = in_message + text.len();
            if parsed.message.get(in_message..end) != Some(text.as_str()) {
                return Err("a text part is not the message's next text".into());
            }
            let range = in_message..end;
            in_message = end;
            PartKind::Text(range)
        } else if let Some(text) = part.reasoning {
            let all = parsed.reasoning.as_deref().unwrap_or("");
            let found = all
                .get(in_reasoning..)
                .and_then(|rest| rest.find(&text))
                .ok_or("a reasoning part is not in the reasoning")?;
            let start = in_reasoning + found;
            in_reasoning = start + text.len();
            PartKind::Reasoning(start..in_reasoning)
        } else {
            let kind = part.kind.ok_or("a part with neither text nor type")?;
            if let Some(raw) = part.raw {
                match unclaimed
                    .get_mut(&(kind.clone(), raw.clone()))
                    .and_then(Vec::pop)
                {
                    Some(at) => PartKind::Rejected(at),
                    None => PartKind::Withheld(Box::new(Rejected {
                        kind,
                        raw,
                        errors: part.errors,
                    })),
                }
            } else if kind == SUGGESTED_VALUES_NAME {
                let holds_items = part
                    .data
                    .as_ref()
                    .and_then(Value::as_array)
                    .is_some_and(|items| !items.is_empty());
                PartKind::SuggestedValues { holds_items }
            } else if kind == SUGGESTED_ACTIONS_NAME {
                let holds_items = part
                    .data
                    .as_ref()
                    .and_then(Value::as_array)
                    .is_some_and(|items| !items.is_empty());
                PartKind::SuggestedActions { holds_items }
            } else {
                let data = part.data.unwrap_or(Value::Null);
                if payloads == 0 {
                    if parsed.custom_payload.is_none() {
                        parsed.custom_payload = Some(CustomPayload::new(kind, data));
                    }
                } else {
                    parsed
                        .book
                        .more_payloads
                        .push(CustomPayload::new(kind, data));
                }
                payloads += 1;
                PartKind::Payload(payloads - 1)
            }
        };
        let [start, end] = part.span;
        out.push(Part {
            span: start..end,
            kind,
        });
    }
    parsed.parts = out;
    Ok(())
}

/// The JSON form, borrowed for writing: the fields in their order, `reasoning` left
/// out when there is none, each part with what it holds.
#[derive(Serialize)]
struct ParsedOut<'a> {
    message: &'a str,
    suggested_values: &'a Option<Vec<SuggestedValue>>,
    suggested_actions: &'a Option<Vec<SuggestedAction>>,
    custom_payload: &'a Option<CustomPayload>,
    rejected: &'a [Rejected],
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: &'a Option<String>,
    warnings: &'a [Warning],
    parts: PartsJson<'a>,
}

impl Serialize for ParsedResponse {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ParsedOut {
            message: &self.message,
            suggested_values: &self.suggested_values,
            suggested_actions: &self.suggested_actions,
            custom_payload: &self.custom_payload,
            rejected: &self.rejected,
            reasoning: &self.reasoning,
            warnings: &self.warnings,
            parts: PartsJson(self),
        }
        .serialize(serializer)
    }
}

/// The JSON form, read.
#[derive(Deserialize)]
struct ParsedIn {
    message: String,
    suggested_values: Option<Vec<SuggestedValue>>,
    suggested_actions: Option<Vec<SuggestedAction>>,
    custom_payload: Option<CustomPayload>,
    rejected: Vec<Rejected>,
    #[serde(default)]
    reasoning: Option<String>,
    warnings: Vec<Warning>,
    #[serde(default)]
    parts: Vec<PartIn>,
}

impl<'de> Deserialize<'de> for ParsedResponse {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let read = ParsedIn::deserialize(deserializer)?;
        let mut parsed = ParsedResponse {
            message: read.message,
            suggested_values: read.suggested_values,
            suggested_actions: read.suggested_actions,
            custom_payload: read.custom_payload,
            rejected: read.rejected,
            reasoning: read.reasoning,
            warnings: read.warnings,
            ..ParsedResponse::default()
        };
        read_parts(&mut parsed, read.parts).map_err(serde::de::Error::custom)?;
        Ok(parsed)
    }
}
