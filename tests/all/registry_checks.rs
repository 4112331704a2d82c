//! Registrations that conflict are caught by `Registry::check`: apps call it from a
//! test, as `marker_mode.rs` does for the `payload` binary's registry.

use payload_builtin::{DataProposal, SchemaProposal, SuggestedValues};
use payload_core::{LlmPayload, suggestions::ActionSpec};
use payload_registry::{Page, PayloadEntry, Registry};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// Links every example app, so the global registry holds all of their types.
use payload_tests as _;

/// A second type that reuses SCHEMA_PROPOSAL's marker.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "table_proposal", marker = "SCHEMA_PROPOSAL")]
struct SameMarker {
    table: String,
}

/// A surface written in tags.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "surface", tag = "ui-json")]
struct Surface {
    id: String,
}

/// A second type written in the same tag.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "panel", tag = "ui-json")]
struct Panel {
    id: String,
}

/// A second type that reuses data_proposal's name.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "data_proposal", marker = "ROW_PROPOSAL")]
struct SameName {
    rows: Vec<String>,
}

fn check(entries: Vec<PayloadEntry>, pages: Vec<Page>, actions: Vec<ActionSpec>) -> Vec<String> {
    match Registry::from_parts(entries, pages, actions).check() {
        Ok(()) => Vec::new(),
        Err(errors) => errors.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn a_consistent_registry_passes() {
    let errors = check(
        vec![PayloadEntry::new(SchemaProposal::TYPE, &["home"])],
        vec![Page::new("home")],
        vec![ActionSpec::client("close_chat", "Close")],
    );
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn two_types_with_one_marker() {
    let errors = check(
        vec![
            PayloadEntry::new(SchemaProposal::TYPE, &[]),
            PayloadEntry::new(SameMarker::TYPE, &[]),
        ],
        vec![],
        vec![],
    );
    assert_eq!(
        errors,
        ["payload types 'schema_proposal' and 'table_proposal' share the marker SCHEMA_PROPOSAL"]
    );
}

#[test]
fn two_types_with_one_tag() {
    let errors = check(
        vec![
            PayloadEntry::new(Surface::TYPE, &["home"]),
            PayloadEntry::new(Panel::TYPE, &["home"]),
        ],
        vec![Page::new("home")],
        vec![],
    );
    assert_eq!(
        errors,
        ["payload types 'panel' and 'surface' share the tag <ui-json>"]
    );
}

#[test]
fn two_types_with_one_name() {
    let errors = check(
        vec![
            PayloadEntry::new(DataProposal::TYPE, &[]),
            PayloadEntry::new(SameName::TYPE, &[]),
        ],
        vec![],
        vec![],
    );
    assert_eq!(
        errors,
        ["2 payload types are registered under the name 'data_proposal'"]
    );
}

#[test]
fn a_type_naming_a_page_that_does_not_exist() {
    let errors = check(
        vec![PayloadEntry::new(SchemaProposal::TYPE, &["tabel_view"])],
        vec![],
        vec![],
    );
    assert_eq!(
        errors,
        ["payload type 'schema_proposal' names page 'tabel_view', which is not registered"]
    );
}

#[test]
fn a_page_offering_an_unregistered_type() {
    static PAYLOADS: [payload_core::PayloadType; 1] = [<DataProposal as LlmPayload>::TYPE];
    let errors = check(vec![], vec![Page::new("rows").payloads(&PAYLOADS)], vec![]);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].contains("page 'rows' offers payload type 'data_proposal'"),
        "{errors:?}"
    );
}

#[test]
fn a_custom_type_cannot_take_a_suggestion_marker() {
    let errors = check(
        vec![PayloadEntry::new(SuggestedValues::TYPE, &[])],
        vec![],
        vec![],
    );
    assert_eq!(
        errors,
        ["payload type 'suggested_values' uses the reserved marker SUGGESTED_VALUES"]
    );
}

#[test]
fn pages_and_global_actions_registered_twice() {
    let errors = check(
        vec![],
        vec![Page::new("home"), Page::new("home")],
        vec![
            ActionSpec::client("close_chat", "Close"),
            ActionSpec::client("close_chat", "Close it"),
        ],
    );
    assert_eq!(
        errors,
        [
            "the page 'home' is registered more than once",
            "the global action 'close_chat' is registered twice"
        ]
    );
}

#[test]
fn every_registered_type_has_a_description_and_an_example() {
    // The built-in types and every example app's: each gets a "When to use" line and an
    // example in its instructions (see payload_registry::RegistryWarning for why).
    let warnings: Vec<String> = Registry::global()
        .warnings()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
}
