//! A2UI v0.9's server-to-client messages (`specification/v0_9/json/server_to_client.json`
//! in the A2UI repository), as the payload an answer carries between `<a2ui-json>` and
//! `</a2ui-json>`: a list of messages, each with `"version": "v0.9"` and exactly one of
//! `createSurface`, `updateComponents`, `updateDataModel` and `deleteSurface`.
//!
//! Components are catalog-agnostic here, as the envelope schema is: an `id`, the
//! `component` type's name and its other properties as written. Which properties name
//! other components is read by [`Component::children`].

use payload_core::{LlmPayload, PayloadError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol version every message states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Version {
    /// A2UI v0.9.
    #[serde(rename = "v0.9")]
    V09,
}

/// The UI surfaces to show with this reply, as A2UI v0.9 messages in order: create a
/// surface, then give its components (one has the id "root") and its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "a2ui",
    tag = "a2ui-json",
    kind = "display",
    example = A2uiMessages::example_messages,
    check = A2uiMessages::check_messages,
    rule = "Each message holds \"version\": \"v0.9\" and exactly one of createSurface, updateComponents, updateDataModel, deleteSurface.",
    rule = "A surface's components form a tree from the component with id \"root\": every child id names a component, and no component contains itself."
)]
#[serde(transparent)]
pub struct A2uiMessages(pub Vec<ServerMessage>);

/// One server-to-client message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerMessage {
    /// Always "v0.9".
    pub version: Version,
    /// Creates a surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_surface: Option<CreateSurface>,
    /// Adds or replaces components of a surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_components: Option<UpdateComponents>,
    /// Sets a value of a surface's data model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_data_model: Option<UpdateDataModel>,
    /// Removes a surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_surface: Option<DeleteSurface>,
}

/// `createSurface`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSurface {
    /// The surface's id.
    pub surface_id: String,
    /// The catalog its components come from.
    pub catalog_id: String,
    /// Theme parameters the catalog defines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Map<String, Value>>,
    /// Whether the client sends the surface's data model back with each message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_data_model: Option<bool>,
}

/// `updateComponents`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateComponents {
    /// The surface's id.
    pub surface_id: String,
    /// The components, a flat list whose ids link them into a tree.
    pub components: Vec<Component>,
}

/// A component: its id, its type and its properties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Component {
    /// The component's id, unique on its surface ("root" for the tree's root).
    pub id: String,
    /// The component type's name in the surface's catalog ("Text", "Column").
    pub component: String,
    /// Its other properties, as the catalog defines them.
    #[serde(flatten)]
    pub properties: Map<String, Value>,
}

/// `updateDataModel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateDataModel {
    /// The surface's id.
    pub surface_id: String,
    /// Where in the data model ("/" or absent: all of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The value to put there; absent removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// `deleteSurface`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteSurface {
    /// The surface's id.
    pub surface_id: String,
}

/// The property names whose values name child components: `child` and `children` (a
/// list of ids, or v0.8's `{"explicitList": [...]}`), a `children` template's
/// `componentId` (v0.9 `{"componentId", "path"}`, v0.8 `{"template": {"componentId",
/// "dataBinding"}}`), and v0.8's `contentChild` and `entryPointChild`.
const CHILD_KEYS: [&str; 5] = [
    "child",
    "children",
    "componentId",
    "contentChild",
    "entryPointChild",
];

impl Component {
    /// The ids this component names as its children, in the order written.
    pub fn children(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for key in CHILD_KEYS {
            if let Some(value) = self.properties.get(key) {
                child_ids(value, &mut |id| out.push(id));
            }
        }
        out
    }

    /// Rewrites each child id this component names (for placeholders).
    pub(crate) fn rename_children(&mut self, rename: &mut dyn FnMut(&mut String)) {
        for key in CHILD_KEYS {
            if let Some(value) = self.properties.get_mut(key) {
                child_ids_mut(value, rename);
            }
        }
    }
}

/// The ids a child property holds: a string, a list of them, or an object holding one
/// of those as `componentId`, `explicitList` or `template` (one shape, read by
/// [`child_ids`] and written by [`child_ids_mut`]).
fn child_ids<'a>(value: &'a Value, found: &mut dyn FnMut(&'a str)) {
    match value {
        Value::String(id) => found(id),
        Value::Array(items) => items.iter().for_each(|item| child_ids(item, found)),
        Value::Object(map) => {
            for key in ["componentId", "explicitList", "template"] {
                if let Some(inner) = map.get(key) {
                    child_ids(inner, found);
                }
            }
        }
        _ => {}
    }
}

/// [`child_ids`], each id given to be rewritten.
fn child_ids_mut(value: &mut Value, rename: &mut dyn FnMut(&mut String)) {
    match value {
        Value::String(id) => rename(id),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| child_ids_mut(item, rename)),
        Value::Object(map) => {
            for key in ["componentId", "explicitList", "template"] {
                if let Some(inner) = map.get_mut(key) {
                    child_ids_mut(inner, rename);
                }
            }
        }
        _ => {}
    }
}

impl ServerMessage {
    /// The surface the message is about.
    pub fn surface_id(&self) -> Option<&str> {
        if let Some(m) = &self.create_surface {
            return Some(&m.surface_id);
        }
        if let Some(m) = &self.update_components {
            return Some(&m.surface_id);
        }
        if let Some(m) = &self.update_data_model {
            return Some(&m.surface_id);
        }
        self.delete_surface.as_ref().map(|m| m.surface_id.as_str())
    }

    /// How many of the four message kinds it holds (exactly one is valid).
    pub fn kinds(&self) -> usize {
        usize::from(self.create_surface.is_some())
            + usize::from(self.update_components.is_some())
            + usize::from(self.update_data_model.is_some())
            + usize::from(self.delete_surface.is_some())
    }
}

impl A2uiMessages {
    fn example_messages() -> A2uiMessages {
        let text = r#"[
            {"version": "v0.9", "createSurface": {"surfaceId": "booking", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
            {"version": "v0.9", "updateComponents": {"surfaceId": "booking", "components": [
                {"id": "root", "component": "Column", "children": ["title", "confirm"]},
                {"id": "title", "component": "Text", "text": "Table for two at 19:30"},
                {"id": "confirm", "component": "Button", "child": "confirm_label", "action": {"event": {"name": "confirm"}}},
                {"id": "confirm_label", "component": "Text", "text": "Book it"}
            ]}}
        ]"#;
        serde_json::from_str(text).expect("the example is A2UI v0.9")
    }

    /// The rules the schema says badly: one message kind per message, and each
    /// surface's components a tree (`crate::surface`).
    fn check_messages(&self) -> Vec<PayloadError> {
        let messages: Vec<crate::Message> =
            self.0.iter().cloned().map(crate::Message::V09).collect();
        crate::protocol::check(&messages)
    }
}

/// The payload's type name, as results and stream events carry it.
pub const NAME: &str = <A2uiMessages as LlmPayload>::NAME;
