//! A2UI v0.8's server-to-client messages (`specification/v0_8/json/server_to_client.json`
//! in the A2UI repository), for clients that still speak it: `beginRendering`,
//! `surfaceUpdate`, `dataModelUpdate` and `deleteSurface`, with no `version` member.
//!
//! v0.8 differs from v0.9 in three ways the surface rules see: a surface names its
//! root in `beginRendering` (v0.9's is always `root`); a component nests its
//! properties under its type (`{"id": "t", "component": {"Text": {...}}}`); and data
//! comes as a list of `{"key", "valueString" | "valueNumber" | "valueBoolean" |
//! "valueMap"}` entries. The rest (components in a flat list linked by id, messages
//! for a surface waiting for its start) is the same, so both versions share
//! [`crate::surface`] through [`crate::Message`].

use crate::message::Component;
use payload_core::{LlmPayload, PayloadError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The UI surfaces to show with this reply, as A2UI v0.8 messages in order: begin
/// rendering a surface from its root, then give its components and its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "a2ui_v08",
    tag = "a2ui-json",
    kind = "display",
    example = A2uiMessagesV08::example_messages,
    check = A2uiMessagesV08::check_messages,
    rule = "Each message holds exactly one of beginRendering, surfaceUpdate, dataModelUpdate, deleteSurface.",
    rule = "A surface's components form a tree from the root its beginRendering names: every child id names a component, and no component contains itself."
)]
#[serde(transparent)]
pub struct A2uiMessagesV08(pub Vec<V08Message>);

/// One v0.8 server-to-client message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct V08Message {
    /// Starts drawing a surface from its root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub begin_rendering: Option<BeginRendering>,
    /// Adds or replaces components of a surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_update: Option<SurfaceUpdate>,
    /// Sets values of a surface's data model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_model_update: Option<DataModelUpdate>,
    /// Removes a surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_surface: Option<DeleteSurface>,
}

/// `beginRendering`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BeginRendering {
    /// The surface's id.
    pub surface_id: String,
    /// The id of the component the surface's tree grows from.
    pub root: String,
    /// The catalog its components come from (the standard catalog when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog_id: Option<String>,
    /// Styling for the surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub styles: Option<Map<String, Value>>,
}

/// `surfaceUpdate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SurfaceUpdate {
    /// The surface's id.
    pub surface_id: String,
    /// The components, a flat list whose ids link them into a tree.
    pub components: Vec<V08Component>,
}

/// A v0.8 component: its id and its type holding its properties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct V08Component {
    /// The component's id, unique on its surface.
    pub id: String,
    /// Its share of the space in a row or column, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<serde_json::Number>,
    /// One member: the type's name ("Text"), holding the properties.
    pub component: Map<String, Value>,
}

/// `dataModelUpdate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataModelUpdate {
    /// The surface's id.
    pub surface_id: String,
    /// Where in the data model (all of it when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The entries, each a key and its value.
    pub contents: Vec<DataEntry>,
}

/// One entry of a v0.8 data model update: a key and one value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataEntry {
    /// The key.
    pub key: String,
    /// A string value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_string: Option<String>,
    /// A number value, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_number: Option<serde_json::Number>,
    /// A boolean value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_boolean: Option<bool>,
    /// A map value, as entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_map: Option<Vec<DataEntry>>,
}

/// `deleteSurface`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteSurface {
    /// The surface's id.
    pub surface_id: String,
}

/// The member v0.8 puts a component's properties under when its weight is kept in
/// the version-neutral [`Component`] (v0.9 writes `weight` among the properties).
const WEIGHT: &str = "weight";

impl V08Component {
    /// The component in the version-neutral form the surface rules read: its type and
    /// the properties its type holds (`None` when `component` does not hold exactly
    /// one type whose properties are an object).
    pub fn to_component(&self) -> Option<Component> {
        let mut types = self.component.iter();
        let (kind, properties) = types.next()?;
        if types.next().is_some() {
            return None;
        }
        let mut properties = properties.as_object()?.clone();
        if let Some(weight) = &self.weight {
            properties.insert(WEIGHT.to_string(), Value::Number(weight.clone()));
        }
        Some(Component {
            id: self.id.clone(),
            component: kind.clone(),
            properties,
        })
    }

    /// The v0.8 form of a version-neutral component.
    pub fn from_component(component: &Component) -> V08Component {
        let mut properties = component.properties.clone();
        let weight = match properties.remove(WEIGHT) {
            Some(Value::Number(weight)) => Some(weight),
            _ => None,
        };
        V08Component {
            id: component.id.clone(),
            weight,
            component: Map::from_iter([(component.component.clone(), Value::Object(properties))]),
        }
    }
}

impl V08Message {
    /// The surface the message is about.
    pub fn surface_id(&self) -> Option<&str> {
        if let Some(m) = &self.begin_rendering {
            return Some(&m.surface_id);
        }
        if let Some(m) = &self.surface_update {
            return Some(&m.surface_id);
        }
        if let Some(m) = &self.data_model_update {
            return Some(&m.surface_id);
        }
        self.delete_surface.as_ref().map(|m| m.surface_id.as_str())
    }

    /// How many of the four message kinds it holds (exactly one is valid).
    pub fn kinds(&self) -> usize {
        usize::from(self.begin_rendering.is_some())
            + usize::from(self.surface_update.is_some())
            + usize::from(self.data_model_update.is_some())
            + usize::from(self.delete_surface.is_some())
    }
}

impl A2uiMessagesV08 {
    fn example_messages() -> A2uiMessagesV08 {
        let text = r#"[
            {"beginRendering": {"surfaceId": "booking", "root": "card"}},
            {"surfaceUpdate": {"surfaceId": "booking", "components": [
                {"id": "card", "component": {"Card": {"child": "title"}}},
                {"id": "title", "component": {"Text": {"text": {"literalString": "Table for two at 19:30"}}}}
            ]}}
        ]"#;
        serde_json::from_str(text).expect("the example is A2UI v0.8")
    }

    /// One message kind per message, each component one type, and each surface's
    /// components a tree (`crate::surface`).
    fn check_messages(&self) -> Vec<PayloadError> {
        let messages: Vec<crate::Message> =
            self.0.iter().cloned().map(crate::Message::V08).collect();
        crate::protocol::check(&messages)
    }
}

/// The payload's type name, as results and stream events carry it.
pub const NAME: &str = <A2uiMessagesV08 as LlmPayload>::NAME;
