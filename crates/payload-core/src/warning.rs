//! Warnings: things the parser fixed or dropped, reported so nothing happens silently.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What kind of thing a [`Warning`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WarningKind {
    /// Malformed JSON was repaired (docs/spec.md §3); the message names the fix.
    Repaired,
    /// A value was coerced to the schema's type (a number written as a string, ...).
    Coerced,
    /// An invalid suggestion item was dropped; the rest of its block was kept.
    DroppedItem,
    /// A suggested action that is not registered for the page was dropped.
    UnknownAction,
    /// A second block of the same suggestion kind was removed; the first one won.
    DuplicateBlock,
    /// A suggestion block with no items was removed from the message; the message
    /// quotes it (docs/spec.md §7.1: nothing removed is lost).
    EmptyBlock,
    /// A member the type does not declare was ignored (docs/spec.md §7.1); the message names it.
    UnknownMember,
    /// A key appeared twice in one object; the last value won (docs/spec.md §7.3).
    DuplicateKey,
    /// A required member is missing, and the type's `x-parsing` says to warn, not fail
    /// (`validation.required-enforcement: "warn"`).
    MissingMember,
    /// The response held more than one top-level value; the message names the others
    /// (docs/spec.md §4.4).
    ExtraValue,
    /// The response's last section may have been cut off: the format has no end marker
    /// that would tell (docs/spec.md §4.5).
    PossiblyTruncated,
    /// A reasoning section (`<think>`, ...) was still open when the response ended: the
    /// rest of the response was read as reasoning (docs/spec.md §9.1).
    UnclosedReasoning,
    /// More warnings than the cap were found; this one counts the rest (docs/spec.md §8.1).
    Omitted,
    /// Whole-response `auto`: the detected format gave no valid value and another
    /// format did (docs/spec.md §4.7); the message names both. On a failure, it lists the
    /// formats also tried and why none gave a valid value.
    FormatFallback,
    /// A page marker written in another case or with spaces or hyphens for underscores
    /// (`Schema Proposal:`) before a JSON value: it stays in the message, and the
    /// message names the marker meant (docs/spec.md §1.16).
    NearMissMarker,
    /// A marker alone at a line's start with no value after it was removed from the
    /// message; the message quotes it (docs/spec.md §1.17).
    MissingValue,
    /// A suggestion block the page does not allow beside the accepted custom payload
    /// was taken out of the result (the page's combination rule, docs/markers.md); the
    /// message names the rule and quotes the block's items.
    Combination,
}

impl WarningKind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::Repaired => "repaired",
            WarningKind::Coerced => "coerced",
            WarningKind::DroppedItem => "dropped_item",
            WarningKind::UnknownAction => "unknown_action",
            WarningKind::DuplicateBlock => "duplicate_block",
            WarningKind::EmptyBlock => "empty_block",
            WarningKind::UnknownMember => "unknown_member",
            WarningKind::MissingMember => "missing_member",
            WarningKind::DuplicateKey => "duplicate_key",
            WarningKind::ExtraValue => "extra_value",
            WarningKind::PossiblyTruncated => "possibly_truncated",
            WarningKind::UnclosedReasoning => "unclosed_reasoning",
            WarningKind::Omitted => "omitted",
            WarningKind::FormatFallback => "format_fallback",
            WarningKind::NearMissMarker => "near_miss_marker",
            WarningKind::MissingValue => "missing_value",
            WarningKind::Combination => "combination",
        }
    }
}

/// Something the parser fixed or dropped, with a sentence that says what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// What kind of thing happened.
    pub kind: WarningKind,
    /// What happened, naming the element and the fix.
    pub message: String,
}

impl Warning {
    /// A warning of `kind` saying `message`.
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Self {
        Warning {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}
