//! Suggestion chips and client-action buttons (docs/spec.md §1.8), and the actions a page
//! allows the model to suggest.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The marker of suggestion chips.
pub const SUGGESTED_VALUES_MARKER: &str = "SUGGESTED_VALUES";
/// The marker of client-action buttons.
pub const SUGGESTED_ACTIONS_MARKER: &str = "SUGGESTED_ACTIONS";
/// `type` of a rejected suggestion-chips block.
pub const SUGGESTED_VALUES_NAME: &str = "suggested_values";
/// `type` of a rejected action-buttons block.
pub const SUGGESTED_ACTIONS_NAME: &str = "suggested_actions";

/// A chip the user can click to send `value` as their next message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuggestedValue {
    /// Display text on the chip (2-6 words).
    pub label: String,
    /// Text sent as the user's next message when clicked.
    pub value: String,
}

/// Who carries out an action: the browser, or the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Handler {
    /// The frontend handles the action.
    Client,
    /// The action is sent to the backend.
    Server,
}

impl Handler {
    /// `client` or `server`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Handler::Client => "client",
            Handler::Server => "server",
        }
    }
}

impl fmt::Display for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A button that triggers a registered action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuggestedAction {
    /// Button display text.
    pub label: String,
    /// The action identifier; must be one the page registers.
    pub action: String,
    /// Who handles the action; must match the action's registration.
    pub handler: Handler,
}

/// An action a page (or every page) lets the model suggest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActionSpec {
    /// The identifier the model writes in `action`.
    pub action: &'static str,
    /// What it does, for the CLIENT ACTIONS section of the prompt.
    pub description: &'static str,
    /// Who handles it.
    pub handler: Handler,
}

impl ActionSpec {
    /// A client-side action.
    pub const fn client(action: &'static str, description: &'static str) -> Self {
        ActionSpec {
            action,
            description,
            handler: Handler::Client,
        }
    }

    /// A server-side action.
    pub const fn server(action: &'static str, description: &'static str) -> Self {
        ActionSpec {
            action,
            description,
            handler: Handler::Server,
        }
    }
}

use crate::caps::Capped;
use crate::warning::{Warning, WarningKind};
use serde_json::Value;

/// The valid chips of a SUGGESTED_VALUES array; each invalid item is dropped with a
/// warning that quotes it, so nothing is lost silently.
pub(crate) fn keep_values(
    items: Vec<Value>,
    warnings: &mut Capped<Warning>,
) -> Vec<SuggestedValue> {
    let mut kept = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        match SuggestedValue::deserialize(&item) {
            Ok(value) => {
                warn_undeclared(
                    warnings,
                    SUGGESTED_VALUES_MARKER,
                    index,
                    &item,
                    VALUE_MEMBERS,
                );
                kept.push(value);
            }
            Err(_) => drop_item(
                warnings,
                WarningKind::DroppedItem,
                || {
                    format!(
                        "{SUGGESTED_VALUES_MARKER} item {index} dropped: needs \"label\" and \"value\" strings"
                    )
                },
                &item,
            ),
        }
    }
    kept
}

/// The valid buttons of a SUGGESTED_ACTIONS array: items need `label`, `action` and
/// `handler`, and the action must be one of `allowed` with the same handler. Every
/// dropped item gets a warning that quotes it.
pub(crate) fn keep_actions(
    items: Vec<Value>,
    allowed: &[ActionSpec],
    warnings: &mut Capped<Warning>,
) -> Vec<SuggestedAction> {
    let mut kept = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let action = match SuggestedAction::deserialize(&item) {
            Ok(action) => action,
            Err(_) => {
                drop_item(
                    warnings,
                    WarningKind::DroppedItem,
                    || {
                        format!(
                            "{SUGGESTED_ACTIONS_MARKER} item {index} dropped: needs \"label\", \"action\" and \"handler\" (client or server)"
                        )
                    },
                    &item,
                );
                continue;
            }
        };
        match allowed.iter().find(|spec| spec.action == action.action) {
            Some(spec) if spec.handler == action.handler => {
                warn_undeclared(
                    warnings,
                    SUGGESTED_ACTIONS_MARKER,
                    index,
                    &item,
                    ACTION_MEMBERS,
                );
                kept.push(action);
            }
            Some(spec) => drop_item(
                warnings,
                WarningKind::UnknownAction,
                || {
                    format!(
                        "{SUGGESTED_ACTIONS_MARKER} item {index} dropped: action '{}' is handled by '{}', not '{}'",
                        action.action, spec.handler, action.handler
                    )
                },
                &item,
            ),
            None => drop_item(
                warnings,
                WarningKind::UnknownAction,
                || {
                    format!(
                        "{SUGGESTED_ACTIONS_MARKER} item {index} dropped: action '{}' is not registered for this page (allowed: {})",
                        action.action,
                        if allowed.is_empty() {
                            "none".to_string()
                        } else {
                            allowed
                                .iter()
                                .map(|a| a.action)
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    )
                },
                &item,
            ),
        }
    }
    kept
}

/// The members a chip has.
const VALUE_MEMBERS: &[&str] = &["label", "value"];
/// The members an action button has.
const ACTION_MEMBERS: &[&str] = &["label", "action", "handler"];

/// Warns, once per member, about each member of a kept `item` that its kind does not
/// declare (`"icon"`, `"params"`): the member is left out of the item, and the warning
/// quotes it as written (`"icon":"star"`), so that nothing is lost silently (docs/spec.md §7.1).
fn warn_undeclared(
    warnings: &mut Capped<Warning>,
    marker: &str,
    index: usize,
    item: &Value,
    declared: &[&str],
) {
    let Value::Object(members) = item else { return };
    for (key, value) in members {
        if declared.contains(&key.as_str()) {
            continue;
        }
        if warnings.is_full() {
            warnings.count_omitted(1);
            continue;
        }
        let member = format!("{}:{value}", Value::String(key.clone()));
        warnings.push(Warning::new(
            WarningKind::UnknownMember,
            format!(
                "{marker} item {index}: the member {member} is not part of the item (it has only {}) and was left out",
                declared.join(", ")
            ),
        ));
    }
}

/// Warns that an item was dropped, quoting it whole so that its text is not lost
/// (docs/spec.md §1.13); past the warning cap the item is only counted.
fn drop_item(
    warnings: &mut Capped<Warning>,
    kind: WarningKind,
    why: impl FnOnce() -> String,
    item: &Value,
) {
    if warnings.is_full() {
        warnings.count_omitted(1);
        return;
    }
    warnings.push(Warning::new(
        kind,
        format!("{}; the item was {item}", why()),
    ));
}
