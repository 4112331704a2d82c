//! The answer as ordered parts (docs/spec.md §1.21): text, payloads, suggestion blocks,
//! reasoning and refused blocks, each where the model wrote it.
//!
//! A [`Part`] holds no value of its own: a text part names its bytes of `message`, a
//! payload part its position among the accepted payloads, a refused block its entry in
//! `rejected`. So building the parts copies nothing and costs a few words per block,
//! and [`ParsedResponse::contents`](crate::ParsedResponse::contents) reads what a part holds from the parse. The JSON
//! form writes each part out in full (a text part with `text`, a payload part with
//! `type` and `data`, ...), serialized from the values the parse owns.

use crate::marker::rejected::Rejected;
use crate::marker::suggestions::{SuggestedAction, SuggestedValue};
use crate::payload::CustomPayload;
use std::ops::Range;

/// One part of an answer, in text order (docs/spec.md §1.21).
///
/// Two hotel cards offered between sentences, each where the model wrote it:
///
/// ```
/// use payload_core::response::PartContents;
/// use payload_core::{LlmPayload, ParseOptions, PayloadCount, PayloadType, Parser};
///
/// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
/// struct Hotel {
///     name: String,
/// }
///
/// impl LlmPayload for Hotel {
///     const NAME: &'static str = "hotel";
///     const MARKER: &'static str = "HOTEL";
///     const DESCRIPTION: &'static str = "A hotel to book.";
/// }
///
/// let options = ParseOptions::new()
///     .payload(Hotel::TYPE)
///     .payload_count(PayloadCount::at_most(2));
/// let text = "Two options:\n\nHOTEL: {\"name\": \"Ritz\"}\n\nor\n\nHOTEL: {\"name\": \"Savoy\"}\n\nPick one.";
/// let parsed = Parser::new(&options).parse(text);
/// let shown: Vec<String> = parsed
///     .parts
///     .iter()
///     .map(|part| match parsed.contents(part) {
///         Some(PartContents::Text(text)) => format!("text {text:?}"),
///         Some(PartContents::Payload(hotel)) => format!("card {}", hotel.data()["name"]),
///         other => format!("{other:?}"),
///     })
///     .collect();
/// assert_eq!(
///     shown,
///     [
///         "text \"Two options:\"",
///         "card \"Ritz\"",
///         "text \"\\n\\nor\"",
///         "card \"Savoy\"",
///         "text \"\\n\\nPick one.\"",
///     ]
/// );
/// // The spans cover the response, in order, exactly once.
/// assert_eq!(parsed.parts[0].span.start, 0);
/// assert_eq!(parsed.parts.last().unwrap().span.end, text.len());
/// assert!(parsed.parts.windows(2).all(|w| w[0].span.end == w[1].span.start));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The bytes of the response text (as given to the parser, reasoning included) this
    /// part stands for. The parts' spans are in order, never overlap and cover the
    /// response exactly; whitespace and notation between two parts count with one of
    /// them.
    pub span: Range<usize>,
    /// What the part is; [`ParsedResponse::contents`](crate::ParsedResponse::contents) reads what it holds.
    pub kind: PartKind,
}

/// What a [`Part`] is, and where its contents are in the [`ParsedResponse`](crate::ParsedResponse).
#[derive(Debug, Clone, PartialEq)]
pub enum PartKind {
    /// Text of the answer: these bytes of [`ParsedResponse::message`](crate::ParsedResponse::message). The text parts'
    /// texts, concatenated, are the message exactly.
    Text(Range<usize>),
    /// A reasoning section: these bytes of [`ParsedResponse::reasoning`](crate::ParsedResponse::reasoning) (its own text,
    /// without the blank line that joins it to the section before).
    Reasoning(Range<usize>),
    /// An accepted custom payload: its position among [`ParsedResponse::payloads`](crate::ParsedResponse::payloads).
    Payload(usize),
    /// An accepted SUGGESTED_VALUES block; `holds_items` when its items are
    /// [`ParsedResponse::suggested_values`](crate::ParsedResponse::suggested_values) (an earlier block whose items were all
    /// dropped, or that had none, holds none).
    SuggestedValues {
        /// Whether its items are the parse's `suggested_values`.
        holds_items: bool,
    },
    /// An accepted SUGGESTED_ACTIONS block, as for [`PartKind::SuggestedValues`].
    SuggestedActions {
        /// Whether its items are the parse's `suggested_actions`.
        holds_items: bool,
    },
    /// A block that was not accepted: its position in [`ParsedResponse::rejected`](crate::ParsedResponse::rejected).
    Rejected(usize),
    /// A suggestion block the page's combination rule took out beside a custom payload:
    /// listed among the warnings, not in `rejected`, so the part keeps its type, text
    /// and why.
    Withheld(Box<Rejected>),
}

/// What a [`Part`] holds, borrowed from its parse ([`ParsedResponse::contents`](crate::ParsedResponse::contents)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PartContents<'a> {
    /// Text of the message.
    Text(&'a str),
    /// A reasoning section's text.
    Reasoning(&'a str),
    /// An accepted custom payload.
    Payload(&'a CustomPayload),
    /// The chips of an accepted SUGGESTED_VALUES block.
    SuggestedValues(&'a [SuggestedValue]),
    /// The buttons of an accepted SUGGESTED_ACTIONS block.
    SuggestedActions(&'a [SuggestedAction]),
    /// A block that was not accepted: its type, text and errors.
    Refused(&'a Rejected),
}
