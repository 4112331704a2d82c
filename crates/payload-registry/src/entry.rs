//! What gets registered at link time.

use payload_core::PayloadType;

/// The part a registered type plays in a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A custom payload: at most one per response, offered per page.
    Custom,
    /// The SUGGESTED_VALUES / SUGGESTED_ACTIONS element types, which every page with
    /// suggestions parses natively; registered so that their schema and instructions
    /// are documented like any other type's.
    Suggestions,
}

/// A payload type registered at link time, with the pages the type itself says it is
/// offered on (pages can also name their types; availability is the union).
#[derive(Debug, Clone, Copy)]
pub struct PayloadEntry {
    /// The type.
    pub payload: PayloadType,
    /// Pages the type declares itself offered on (`pages(...)` in the derive).
    pub pages: &'static [&'static str],
    /// The part it plays.
    pub role: Role,
}

impl PayloadEntry {
    /// A custom payload type, offered on `pages` (which may be empty).
    pub const fn new(payload: PayloadType, pages: &'static [&'static str]) -> Self {
        PayloadEntry {
            payload,
            pages,
            role: Role::Custom,
        }
    }

    /// One of the two suggestion element types.
    pub const fn suggestions(payload: PayloadType) -> Self {
        PayloadEntry {
            payload,
            pages: &[],
            role: Role::Suggestions,
        }
    }
}

inventory::collect!(PayloadEntry);
