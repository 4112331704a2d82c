//! A payload of the conversation's history and what the user did with it: what an app
//! keeps per proposed payload and hands to [`crate::manifest::render`] (through
//! [`crate::PromptBuilder`]).

use payload_core::CustomPayload;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What became of a proposed payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PayloadStatus {
    /// Shown to the user, who has not acted on it yet.
    Proposed,
    /// The user applied it.
    Accepted,
    /// The user dismissed it.
    Dismissed,
}

impl PayloadStatus {
    /// `proposed`, `accepted` or `dismissed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            PayloadStatus::Proposed => "proposed",
            PayloadStatus::Accepted => "accepted",
            PayloadStatus::Dismissed => "dismissed",
        }
    }
}

impl fmt::Display for PayloadStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A payload from the conversation's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The turn it was given in (as the app counts turns).
    pub turn: usize,
    /// The payload as parsed (or as a tool returned it).
    pub payload: CustomPayload,
    /// What the user did with it.
    pub status: PayloadStatus,
}

impl ManifestEntry {
    /// An entry for `payload`, given in `turn`, now in `status`.
    pub fn new(turn: usize, payload: CustomPayload, status: PayloadStatus) -> Self {
        ManifestEntry {
            turn,
            payload,
            status,
        }
    }
}
