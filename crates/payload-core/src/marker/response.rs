//! The result of parsing one response in marker mode (docs/spec.md §1), in exactly the
//! serde form docs/spec.md §1 shows.

use crate::LlmPayload;
use crate::error::{ErrorKind, PayloadError};
use crate::marker::parts::{Part, PartKind};
pub use crate::marker::rejected::Rejected;
use crate::marker::suggestions::{SuggestedAction, SuggestedValue};
use crate::payload::CustomPayload;
use crate::warning::Warning;
use serde::{Deserialize, Serialize};

/// The parse of one response: the clean message and every structured element, and the
/// answer as ordered [`Part`]s.
///
/// Its JSON form (docs/spec.md §1) has one member per field below, `parts` last, each
/// part written out with what it holds (docs/spec.md §1.21).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedResponse {
    /// The text shown to the user, with every recognised block removed.
    pub message: String,
    /// Suggestion chips, `null` when the response has none.
    pub suggested_values: Option<Vec<SuggestedValue>>,
    /// Action buttons, `null` when the response has none.
    pub suggested_actions: Option<Vec<SuggestedAction>>,
    /// The first custom payload, `null` when there is none (a page's count may let a
    /// response hold more: [`ParsedResponse::payloads`] lists them all).
    pub custom_payload: Option<CustomPayload>,
    /// Blocks removed from the message but not accepted.
    pub rejected: Vec<Rejected>,
    /// The model's reasoning (docs/spec.md §9.1): the text of its `<think>`, `<thinking>` or
    /// `<reasoning>` sections, taken out of the message and never scanned for blocks;
    /// several sections are joined with a blank line. `None` (and left out of the JSON)
    /// when the response has none.
    pub reasoning: Option<String>,
    /// What was repaired or dropped.
    pub warnings: Vec<Warning>,
    /// The answer in text order (docs/spec.md §1.21): text, payloads, suggestion blocks,
    /// reasoning and refused blocks where the model wrote them, their spans covering the
    /// response exactly. Read what a part holds with [`ParsedResponse::contents`].
    pub parts: Vec<Part>,
    /// What the parse keeps for itself: the accepted blocks' text, the payloads after
    /// the first, the blocks missed. Boxed, as `removed` is: the result travels in the
    /// stream's `complete` event, whose size is this struct's.
    pub(crate) book: Box<Book>,
    /// What was taken out of the message ([`ParsedResponse::removed_spans`]); `None`
    /// when nothing was. Boxed: the result travels in the stream's `complete` event,
    /// whose size is this struct's.
    #[allow(clippy::box_collection)]
    pub(crate) removed: Option<Box<Vec<std::ops::Range<usize>>>>,
}

/// What a parse keeps for itself (`ParsedResponse::book`).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Book {
    /// The text of every accepted block (the custom payload's and the suggestions'),
    /// with its type name, in order: what the model wrote, so that a payload superseded
    /// by a tool is rejected with its text and nothing removed from the message is lost.
    pub(crate) accepted: Vec<(&'static str, String)>,
    /// The custom payloads accepted after the first, in text order (a page whose
    /// [`crate::PayloadCount`] allows several).
    pub(crate) more_payloads: Vec<CustomPayload>,
    /// Blocks the model meant to send but that could not be read as blocks: a near-miss
    /// marker (docs/spec.md §1.16) or a marker with no value (docs/spec.md §1.17). Each has a
    /// warning too.
    pub(crate) missed: Vec<Missed>,
}

/// A block the model meant to write but did not write as one (docs/spec.md §1.16, §1.17): what an
/// agent re-asks for, as it does for a rejected block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Missed {
    /// The payload type's name, or `suggested_values` / `suggested_actions`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text removed from the message (a marker with no value), or empty when the
    /// text stayed in the message (a near-miss marker).
    pub raw: String,
    /// What to tell the model.
    pub error: PayloadError,
}

impl ParsedResponse {
    /// Applies tool-payload precedence (docs/spec.md §1.10): when tools returned payloads during
    /// the turn, the last one becomes the custom payload, and a payload parsed from the
    /// text goes to `rejected` with kind `superseded_by_tool`.
    /// Every payload parsed from the text is superseded, however many the page's count
    /// allowed, and its part becomes a refused one; the tool's payload has no part (it
    /// was not written in the text).
    pub fn apply_tool_payloads(&mut self, tool_payloads: &[CustomPayload]) {
        let Some(last) = tool_payloads.last() else {
            return;
        };
        let more = std::mem::take(&mut self.book.more_payloads);
        // The payload parts become refused ones: the `i`th payload's entry is `first + i`.
        let first = self.rejected.len();
        for part in &mut self.parts {
            if let PartKind::Payload(index) = part.kind {
                part.kind = PartKind::Rejected(first + index);
            }
        }
        for parsed in self.custom_payload.take().into_iter().chain(more) {
            let raw = match self
                .book
                .accepted
                .iter()
                .position(|(kind, _)| *kind == parsed.kind)
            {
                Some(at) => self.book.accepted.remove(at).1,
                None => serde_json::to_string(parsed.data()).unwrap_or_default(),
            };
            let error = PayloadError::new(
                ErrorKind::SupersededByTool,
                "",
                format!(
                    "a tool returned a '{}' payload this turn, which takes precedence",
                    last.kind
                ),
            )
            .with_suggestion("do not emit a structured payload when a tool already returned one");
            self.rejected.push(Rejected {
                kind: parsed.kind,
                raw,
                errors: vec![error],
            });
        }
        self.custom_payload = Some(last.clone());
    }

    /// The accepted blocks as the model wrote them: `(type, text)` for the custom
    /// payload and each suggestion block that was used, in the order of the response.
    /// With the message, the rejected blocks' `raw` and the warnings, they account for
    /// every character of the response (docs/spec.md §1.13).
    pub fn accepted_blocks(&self) -> impl Iterator<Item = (&str, &str)> {
        self.book
            .accepted
            .iter()
            .map(|(kind, raw)| (*kind, raw.as_str()))
    }

    /// The blocks the model meant to send but did not write as blocks: a page marker in
    /// another spelling before a JSON value (`near_miss_marker`), or a marker with no
    /// value after it (`missing_value`). An agent re-asks for them as for rejected
    /// blocks; their `raw` (the removed marker) counts with the message and the blocks
    /// for docs/spec.md §1.13.
    pub fn missed_blocks(&self) -> &[Missed] {
        &self.book.missed
    }

    /// The byte ranges of the answer (the response without its reasoning sections, as
    /// [`crate::stream::StreamParser::text`] holds it) taken out of the message, in
    /// order: each removed block with its seam, the whitespace on both sides of it
    /// (docs/spec.md §1.9, §1.13). Each range, trimmed, is the text of a block listed in
    /// [`ParsedResponse::accepted_blocks`], `rejected` or [`ParsedResponse::missed_blocks`];
    /// the message is the answer outside them, trimmed, with at each range only
    /// whitespace of its seam put back. So every character of the answer is accounted
    /// for, whitespace included.
    pub fn removed_spans(&self) -> &[std::ops::Range<usize>] {
        self.removed.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The accepted custom payloads in text order: [`ParsedResponse::custom_payload`]
    /// first, then those a page's [`crate::PayloadCount`] let the response hold
    /// besides it.
    pub fn payloads(&self) -> impl Iterator<Item = &CustomPayload> {
        self.custom_payload.iter().chain(&self.book.more_payloads)
    }

    /// The custom payload as `T`, if there is one of that type: the value validation
    /// decoded, without decoding again.
    pub fn payload<T: LlmPayload>(&self) -> Option<&T> {
        self.custom_payload.as_ref().and_then(CustomPayload::get)
    }

    /// The custom payload as an owned `T`, if there is one of that type.
    pub fn into_payload<T: LlmPayload>(self) -> Option<T> {
        self.custom_payload.and_then(CustomPayload::into_typed)
    }
}
