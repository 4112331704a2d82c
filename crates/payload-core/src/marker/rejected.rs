//! A block removed from the message but not accepted: what `rejected` and a refused
//! part hold.

use crate::error::PayloadError;
use serde::{Deserialize, Serialize};

/// A block that was removed from the message but not accepted, with its text kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    /// The payload type's name, or `suggested_values` / `suggested_actions`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The block's text as the model wrote it (marker, fence and JSON).
    pub raw: String,
    /// Why it was rejected: every problem found.
    pub errors: Vec<PayloadError>,
}
