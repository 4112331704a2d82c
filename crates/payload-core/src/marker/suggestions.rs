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

    /// The handler `name` means, as serde reads it (the inverse of [`Handler::as_str`]).
    fn named(name: &str) -> Option<Handler> {
        [Handler::Client, Handler::Server]
            .into_iter()
            .find(|handler| handler.as_str() == name)
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
    keep_values_with(items, warnings, Decode::MovingPlainItems)
}

/// How [`keep_values`] and [`keep_actions`] decode an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decode {
    /// An item that is an object of exactly its kind's members, each a string (nearly
    /// every item a model writes), is taken apart: its strings are moved into the chip,
    /// which is what serde would decode from it, with nothing left to warn about.
    /// Any other item is decoded by serde.
    MovingPlainItems,
    /// Every item decoded by serde: the reference the other way is tested against.
    #[cfg_attr(not(test), allow(dead_code))]
    BySerde,
}

fn keep_values_with(
    items: Vec<Value>,
    warnings: &mut Capped<Warning>,
    decode: Decode,
) -> Vec<SuggestedValue> {
    let mut kept = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        if decode == Decode::MovingPlainItems && plain_strings(&item, VALUE_MEMBERS).is_some() {
            let [label, value] = into_strings(item, VALUE_MEMBERS);
            kept.push(SuggestedValue { label, value });
            continue;
        }
        match from_object::<SuggestedValue>(&item) {
            Some(value) => {
                warn_undeclared(
                    warnings,
                    SUGGESTED_VALUES_MARKER,
                    index,
                    &item,
                    VALUE_MEMBERS,
                );
                kept.push(value);
            }
            None => drop_item(
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
    keep_actions_with(items, allowed, warnings, Decode::MovingPlainItems)
}

fn keep_actions_with(
    items: Vec<Value>,
    allowed: &[ActionSpec],
    warnings: &mut Capped<Warning>,
    decode: Decode,
) -> Vec<SuggestedAction> {
    let mut kept = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        if decode == Decode::MovingPlainItems {
            // Kept as it is only when the page allows the action with that handler: a
            // dropped item is quoted whole, so it is left for the way below.
            let plain = plain_strings(&item, ACTION_MEMBERS).and_then(|[_, action, handler]| {
                let handler = Handler::named(handler)?;
                let spec = allowed.iter().find(|spec| spec.action == action)?;
                (spec.handler == handler).then_some(handler)
            });
            if let Some(handler) = plain {
                let [label, action, _] = into_strings(item, ACTION_MEMBERS);
                kept.push(SuggestedAction {
                    label,
                    action,
                    handler,
                });
                continue;
            }
        }
        let action = match from_object::<SuggestedAction>(&item) {
            Some(action) => action,
            None => {
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

/// `item` as a chip or a button when it is an object serde reads as one. serde also
/// reads a struct from an array, by position, but `["Yes", "Yes please"]` does not say
/// which string is the label: such an item is dropped and quoted like any other.
fn from_object<T: serde::de::DeserializeOwned>(item: &Value) -> Option<T> {
    if item.is_object() {
        T::deserialize(item).ok()
    } else {
        None
    }
}

/// The members a chip has.
const VALUE_MEMBERS: &[&str; 2] = &["label", "value"];
/// The members an action button has.
const ACTION_MEMBERS: &[&str; 3] = &["label", "action", "handler"];

/// The strings of `item`, in the order of `names`, when it is an object whose members
/// are exactly `names`, each a string.
fn plain_strings<'v, const N: usize>(item: &'v Value, names: &[&str; N]) -> Option<[&'v str; N]> {
    let Value::Object(members) = item else {
        return None;
    };
    if members.len() != N {
        return None;
    }
    let mut found = [""; N];
    for (key, value) in members {
        let slot = names.iter().position(|name| name == key)?;
        let Value::String(text) = value else {
            return None;
        };
        found[slot] = text;
    }
    // A map's keys are unique: N members, each named in `names`, fill every slot.
    Some(found)
}

/// The strings of an item [`plain_strings`] accepts, moved out of it.
fn into_strings<const N: usize>(item: Value, names: &[&str; N]) -> [String; N] {
    let mut taken = std::array::from_fn(|_| String::new());
    if let Value::Object(members) = item {
        for (key, value) in members {
            if let (Some(slot), Value::String(text)) =
                (names.iter().position(|name| *name == key), value)
            {
                taken[slot] = text;
            }
        }
    }
    taken
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// A member value: the strings the kinds' members hold, and what they must not.
    fn member() -> impl Strategy<Value = Value> {
        prop_oneof![
            6 => prop::sample::select(vec!["client", "server", "open", "save"])
                .prop_map(|text| json!(text)),
            1 => prop::sample::select(vec!["Client", ""]).prop_map(|text| json!(text)),
            1 => Just(json!(1)),
            1 => Just(Value::Null),
            1 => Just(json!(["a", "b"])),
        ]
    }

    /// An item: mostly objects of the kinds' member names, sometimes an array (which
    /// serde also reads into a struct) or a scalar.
    fn item() -> impl Strategy<Value = Value> {
        let names = prop::sample::select(vec!["label", "value", "action", "handler", "icon"]);
        let kinds = prop::sample::select(vec![&VALUE_MEMBERS[..], &ACTION_MEMBERS[..]]);
        let object = |members: Vec<(&str, Value)>| {
            Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            )
        };
        prop_oneof![
            // A kind's members in some order, one of them perhaps left out or another added.
            4 => (kinds, prop::collection::vec(member(), 3), any::<prop::sample::Index>(), 0..3usize)
                .prop_map(move |(names, values, at, change)| {
                    let mut members: Vec<(&str, Value)> =
                        names.iter().copied().zip(values).collect();
                    let turn = at.index(members.len());
                    members.rotate_left(turn);
                    match change {
                        0 => {}
                        1 => { members.pop(); }
                        _ => members.push(("icon", json!("star"))),
                    }
                    object(members)
                }),
            2 => prop::collection::vec((names, member()), 0..5).prop_map(object),
            1 => prop::collection::vec(member(), 0..4).prop_map(Value::Array),
            1 => member(),
        ]
    }

    const ALLOWED: &[ActionSpec] = &[
        ActionSpec::client("open", "Open"),
        ActionSpec::server("save", "Save"),
        // A second spec for one action: the first one decides.
        ActionSpec::server("open", "Open on the server"),
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Moving a plain item's strings keeps what serde's decode keeps, and warns the
        /// same, for any items.
        #[test]
        fn moving_plain_items_is_decoding_them(items in prop::collection::vec(item(), 0..6)) {
            let (mut fast, mut slow) = (Capped::warnings(), Capped::warnings());
            let kept = keep_values_with(items.clone(), &mut fast, Decode::MovingPlainItems);
            let reference = keep_values_with(items.clone(), &mut slow, Decode::BySerde);
            prop_assert_eq!(kept, reference);
            let kept = keep_actions_with(items.clone(), ALLOWED, &mut fast, Decode::MovingPlainItems);
            let reference = keep_actions_with(items, ALLOWED, &mut slow, Decode::BySerde);
            prop_assert_eq!(kept, reference);
            prop_assert_eq!(fast.finish(), slow.finish());
        }
    }

    #[test]
    fn a_handler_is_named_as_serde_names_it() {
        for name in ["client", "server", "Client", "SERVER", "", "clients"] {
            let by_serde = Handler::deserialize(&json!(name)).ok();
            assert_eq!(Handler::named(name), by_serde, "{name:?}");
        }
    }

    #[test]
    fn a_plain_item_is_taken_apart_and_others_are_not() {
        let plain = json!({"value": "v", "label": "l"});
        assert_eq!(plain_strings(&plain, VALUE_MEMBERS), Some(["l", "v"]));
        assert_eq!(into_strings(plain, VALUE_MEMBERS), ["l", "v"]);
        for other in [
            json!({"label": "l"}),
            json!({"label": "l", "value": 1}),
            json!({"label": "l", "value": "v", "icon": "i"}),
            json!({"label": "l", "icon": "v"}),
            json!(["l", "v"]),
        ] {
            assert_eq!(plain_strings(&other, VALUE_MEMBERS), None, "{other}");
        }
    }

    /// An item written as an array is dropped and quoted, though serde reads a struct
    /// from one by position: `["Yes", "Yes please"]` does not say which is the label.
    #[test]
    fn an_item_written_as_an_array_is_dropped_and_quoted() {
        let mut warnings = Capped::warnings();
        let kept = keep_values(vec![json!(["Yes", "Yes please"])], &mut warnings);
        assert!(kept.is_empty(), "{kept:?}");
        let actions = keep_actions(
            vec![json!(["Open", "open", "client"])],
            ALLOWED,
            &mut warnings,
        );
        assert!(actions.is_empty(), "{actions:?}");
        let warnings = warnings.finish();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].message.contains(r#"["Yes","Yes please"]"#),
            "{warnings:?}"
        );
        assert!(
            warnings[1].message.contains(r#"["Open","open","client"]"#),
            "{warnings:?}"
        );
    }
}
