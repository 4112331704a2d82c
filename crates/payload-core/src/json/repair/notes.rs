//! What the lenient reader noticed in text it could read: things that are not repairs
//! (the text said them), but that a caller must report because a value was lost or
//! changed on the way (docs/spec.md §7.2, §7.3).

use crate::caps::{Capped, MAX_WARNINGS};

/// A key written twice in one object. The last value won; the earlier one was dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DuplicateKey {
    /// JSON Pointer of the object that holds the key (`""` for the top level).
    pub object: String,
    /// The key.
    pub key: String,
}

impl DuplicateKey {
    /// The warning's message: which key, where, and that the last value won.
    pub fn message(&self) -> String {
        let at = if self.object.is_empty() {
            "the top-level object".to_string()
        } else {
            format!("the object at {}", self.object)
        };
        format!(
            "the key `{}` appears more than once in {at}; the last value was kept",
            self.key
        )
    }
}

/// A float literal whose digits the float read from it does not hold (the rule is in
/// `crate::json::precision`): `1e-400` read as 0, 30 significant digits read as 17.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Imprecise {
    /// JSON Pointer of the number.
    pub path: String,
    /// The literal as written (possibly very long: quote it with
    /// `crate::json::precision::preview`).
    pub literal: String,
}

/// The notes of one reading, each list capped at [`MAX_WARNINGS`] with the rest counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Notes {
    /// Keys written twice in one object.
    pub(crate) duplicates: Capped<DuplicateKey>,
    /// JSON Pointers of integers written with more digits than a 64-bit integer holds:
    /// the value read is the nearest float, not the number the text says.
    pub(crate) inexact: Capped<String>,
    /// Float literals whose digits the float read does not hold.
    pub(crate) imprecise: Capped<Imprecise>,
}

impl Default for Notes {
    fn default() -> Self {
        Notes {
            duplicates: Capped::new(MAX_WARNINGS),
            inexact: Capped::new(MAX_WARNINGS),
            imprecise: Capped::new(MAX_WARNINGS),
        }
    }
}

// Only the invariant checks ask; the readers look at each list.
#[cfg(feature = "__internals")]
impl Notes {
    /// Whether nothing was noted.
    pub fn is_empty(&self) -> bool {
        self.duplicates.items().is_empty()
            && self.inexact.items().is_empty()
            && self.imprecise.items().is_empty()
    }

    /// The paths of float literals whose digits the float read does not hold.
    pub fn imprecise_paths(&self) -> Vec<&str> {
        self.imprecise
            .items()
            .iter()
            .map(|i| i.path.as_str())
            .collect()
    }

    /// The paths of integer literals too long to read exactly.
    pub fn inexact_paths(&self) -> &[String] {
        self.inexact.items()
    }
}
