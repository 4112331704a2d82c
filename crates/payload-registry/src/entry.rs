//! What gets registered at link time.

use payload_core::PayloadType;

/// A payload type registered at link time, with the pages the type itself says it is
/// offered on (pages can also name their types; availability is the union).
#[derive(Debug, Clone, Copy)]
pub struct PayloadEntry {
    /// The type.
    pub payload: PayloadType,
    /// Pages the type declares itself offered on (`pages(...)` in the derive).
    pub pages: &'static [&'static str],
}

impl PayloadEntry {
    /// An entry for `payload`, offered on `pages` (which may be empty).
    pub const fn new(payload: PayloadType, pages: &'static [&'static str]) -> Self {
        PayloadEntry { payload, pages }
    }
}

inventory::collect!(PayloadEntry);
