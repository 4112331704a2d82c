//! Which blocks one response may hold together: a page's own rule (docs/markers.md,
//! "Which blocks go together"), stated in the prompt's FORMAT RULES, applied by the
//! parser here, and written into every grammar of the page (payload-grammar).
//!
//! Fixed for every page: at most as many custom payloads as the page's
//! [`crate::PayloadCount`] allows (one by default; one past it is rejected as
//! `extra_payload`), at most one block of each suggestion kind (a second is a
//! `duplicate_block`), and chips and buttons may go together. What a page decides is
//! whether chips, buttons, or both may go beside an accepted custom payload:
//! table.that's pages allow neither (the user applies or dismisses the proposal first);
//! a recipe page lets a `save_recipe` button go with the recipe it saves.

use crate::caps::Capped;
use crate::marker::response::ParsedResponse;
use crate::marker::suggestions::{SUGGESTED_ACTIONS_MARKER, SUGGESTED_VALUES_MARKER};
use crate::marker::suggestions::{SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_NAME};
use crate::warning::{Warning, WarningKind};

/// Which suggestion blocks may go beside a custom payload in one response.
///
/// The default, [`Combination::FREE`], lets every block go with every other (the parser
/// has always accepted that); a page narrows it with [`Combination::PAYLOAD_ALONE`] and
/// the two `allow_*` methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Combination {
    /// SUGGESTED_VALUES (chips) may go beside a custom payload.
    pub values_with_payload: bool,
    /// SUGGESTED_ACTIONS (buttons) may go beside a custom payload.
    pub actions_with_payload: bool,
}

impl Combination {
    /// Any block may go with any other.
    pub const FREE: Combination = Combination {
        values_with_payload: true,
        actions_with_payload: true,
    };

    /// A response with a custom payload holds no suggestion block (table.that's rule).
    pub const PAYLOAD_ALONE: Combination = Combination {
        values_with_payload: false,
        actions_with_payload: false,
    };

    /// The same rule, letting chips go beside a custom payload.
    pub const fn allow_values(mut self) -> Combination {
        self.values_with_payload = true;
        self
    }

    /// The same rule, letting action buttons go beside a custom payload.
    pub const fn allow_actions(mut self) -> Combination {
        self.actions_with_payload = true;
        self
    }

    /// Whether the suggestion block named `kind` (`suggested_values`,
    /// `suggested_actions`) may go beside a custom payload.
    pub fn allows_with_payload(self, kind: &str) -> bool {
        match kind {
            SUGGESTED_VALUES_NAME => self.values_with_payload,
            SUGGESTED_ACTIONS_NAME => self.actions_with_payload,
            _ => true,
        }
    }

    /// Applies the rule to a parse: when a custom payload was accepted, each suggestion
    /// block the rule does not allow beside it is taken out of the result, with a
    /// `combination` warning that names the rule and quotes the items (docs/spec.md
    /// §1.13: nothing removed is lost). The payload and every other block stay as they
    /// are.
    pub(crate) fn apply(self, result: &mut ParsedResponse, warnings: &mut Capped<Warning>) {
        let Some(payload) = &result.custom_payload else {
            return;
        };
        let payload_kind = payload.kind.as_str();
        if !self.values_with_payload {
            if let Some(values) = result.suggested_values.take() {
                let items = serde_json::to_string(&values).unwrap_or_default();
                warnings.push(refused(SUGGESTED_VALUES_MARKER, payload_kind, &items));
            }
        }
        if !self.actions_with_payload {
            if let Some(actions) = result.suggested_actions.take() {
                let items = serde_json::to_string(&actions).unwrap_or_default();
                warnings.push(refused(SUGGESTED_ACTIONS_MARKER, payload_kind, &items));
            }
        }
    }
}

impl Default for Combination {
    fn default() -> Self {
        Combination::FREE
    }
}

/// The warning for a `marker` block taken out beside a `payload`, quoting its items.
fn refused(marker: &str, payload: &str, items: &str) -> Warning {
    Warning::new(
        WarningKind::Combination,
        format!(
            "the {marker} block was removed: on this page a response with a structured \
             payload (`{payload}`) holds no {marker} (the page's combination rule); its \
             items were {items}"
        ),
    )
}
