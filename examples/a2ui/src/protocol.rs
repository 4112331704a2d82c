//! The A2UI version an agent speaks, and a message of either version seen the one way
//! the surface rules read it.
//!
//! The agent speaks one version per page, as A2UI's SDKs choose their parser by the
//! catalog's version: v0.9 ([`crate::message`], the published version and the default)
//! or v0.8 ([`crate::v08`]). A [`Message`] answers what the surface rules ask of
//! either: which surface, whether it starts one and from which root, its components in
//! the version-neutral [`Component`] form; and the messages the rules send back are
//! written in the version they read.

use crate::message::{A2uiMessages, Component, ServerMessage, UpdateComponents, UpdateDataModel};
use crate::v08::{A2uiMessagesV08, DataModelUpdate, SurfaceUpdate, V08Component, V08Message};
use payload_core::{LlmPayload, PayloadError, PayloadType};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The A2UI version a page speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Protocol {
    /// A2UI v0.9: `createSurface`, `updateComponents`, `updateDataModel`,
    /// `deleteSurface`, each with `"version": "v0.9"`.
    #[default]
    V09,
    /// A2UI v0.8: `beginRendering`, `surfaceUpdate`, `dataModelUpdate`,
    /// `deleteSurface`.
    V08,
}

/// A message of either version.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Message {
    /// An A2UI v0.9 message.
    V09(ServerMessage),
    /// An A2UI v0.8 message.
    V08(V08Message),
}

impl Protocol {
    /// The payload type its messages are read as.
    pub fn payload(self) -> PayloadType {
        match self {
            Protocol::V09 => <A2uiMessages as LlmPayload>::TYPE,
            Protocol::V08 => <A2uiMessagesV08 as LlmPayload>::TYPE,
        }
    }

    /// The payload type's name, as parse results and stream events carry it.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::V09 => crate::message::NAME,
            Protocol::V08 => crate::v08::NAME,
        }
    }

    /// Reads one message of this version.
    pub fn read(self, value: Value) -> Result<Message, serde_json::Error> {
        Ok(match self {
            Protocol::V09 => Message::V09(serde_json::from_value(value)?),
            Protocol::V08 => Message::V08(serde_json::from_value(value)?),
        })
    }

    /// Reads a block's messages (a list of them).
    pub fn read_all(self, value: Value) -> Result<Vec<Message>, serde_json::Error> {
        Ok(match self {
            Protocol::V09 => serde_json::from_value::<A2uiMessages>(value)?
                .0
                .into_iter()
                .map(Message::V09)
                .collect(),
            Protocol::V08 => serde_json::from_value::<A2uiMessagesV08>(value)?
                .0
                .into_iter()
                .map(Message::V08)
                .collect(),
        })
    }

    /// The root a surface's tree grows from when no message named it: v0.9's fixed
    /// `root` (a v0.8 surface names its own in `beginRendering`).
    pub fn default_root(self) -> &'static str {
        crate::surface::ROOT
    }

    /// The placeholder drawn for a child still missing: a `Row` with no children, in
    /// the shape each version gives a `Row`'s children.
    pub(crate) fn placeholder(self, id: String) -> Component {
        let children = match self {
            Protocol::V09 => json!([]),
            Protocol::V08 => json!({"explicitList": []}),
        };
        Component {
            id,
            component: "Row".to_string(),
            properties: Map::from_iter([("children".to_string(), children)]),
        }
    }

    /// The message that gives a surface these components.
    pub(crate) fn components_update(
        self,
        surface_id: String,
        components: Vec<Component>,
    ) -> Message {
        match self {
            Protocol::V09 => Message::V09(ServerMessage {
                version: crate::message::Version::V09,
                create_surface: None,
                update_components: Some(UpdateComponents {
                    surface_id,
                    components,
                }),
                update_data_model: None,
                delete_surface: None,
            }),
            Protocol::V08 => Message::V08(V08Message {
                begin_rendering: None,
                surface_update: Some(SurfaceUpdate {
                    surface_id,
                    components: components
                        .iter()
                        .map(V08Component::from_component)
                        .collect(),
                }),
                data_model_update: None,
                delete_surface: None,
            }),
        }
    }

    /// The message that gives a surface this data: v0.9's `value`, v0.8's `contents`
    /// (a list of entries).
    pub(crate) fn data_update(
        self,
        surface_id: String,
        path: Option<String>,
        data: Value,
    ) -> Message {
        match self {
            Protocol::V09 => Message::V09(ServerMessage {
                version: crate::message::Version::V09,
                create_surface: None,
                update_components: None,
                update_data_model: Some(UpdateDataModel {
                    surface_id,
                    path,
                    value: Some(data),
                }),
                delete_surface: None,
            }),
            Protocol::V08 => Message::V08(V08Message {
                begin_rendering: None,
                surface_update: None,
                data_model_update: Some(DataModelUpdate {
                    surface_id,
                    path,
                    // Entries the progressive reading kept read as entries; one that
                    // does not is left out rather than sent wrong.
                    contents: match data {
                        Value::Array(entries) => entries
                            .into_iter()
                            .filter_map(|entry| serde_json::from_value(entry).ok())
                            .collect(),
                        _ => Vec::new(),
                    },
                }),
                delete_surface: None,
            }),
        }
    }
}

impl Message {
    /// The version it is written in.
    pub fn protocol(&self) -> Protocol {
        match self {
            Message::V09(_) => Protocol::V09,
            Message::V08(_) => Protocol::V08,
        }
    }

    /// The surface the message is about.
    pub fn surface_id(&self) -> Option<&str> {
        match self {
            Message::V09(m) => m.surface_id(),
            Message::V08(m) => m.surface_id(),
        }
    }

    /// How many of its version's four message kinds it holds (exactly one is valid).
    pub fn kinds(&self) -> usize {
        match self {
            Message::V09(m) => m.kinds(),
            Message::V08(m) => m.kinds(),
        }
    }

    /// The root it starts its surface from: `Some` for v0.9's `createSurface` (whose
    /// root is always `root`) and v0.8's `beginRendering` (which names it).
    pub fn starts_surface(&self) -> Option<&str> {
        match self {
            Message::V09(m) => m.create_surface.as_ref().map(|_| crate::surface::ROOT),
            Message::V08(m) => m.begin_rendering.as_ref().map(|b| b.root.as_str()),
        }
    }

    /// Its components, version-neutral, when it gives a surface components; `Err`
    /// with the id of a v0.8 component that does not hold exactly one type.
    pub fn components(&self) -> Option<Result<Vec<Component>, String>> {
        match self {
            Message::V09(m) => m
                .update_components
                .as_ref()
                .map(|u| Ok(u.components.clone())),
            Message::V08(m) => m.surface_update.as_ref().map(|u| {
                u.components
                    .iter()
                    .map(|c| c.to_component().ok_or_else(|| c.id.clone()))
                    .collect()
            }),
        }
    }

    /// Whether it sets data.
    pub fn sets_data(&self) -> bool {
        match self {
            Message::V09(m) => m.update_data_model.is_some(),
            Message::V08(m) => m.data_model_update.is_some(),
        }
    }

    /// Whether it removes its surface.
    pub fn deletes_surface(&self) -> bool {
        match self {
            Message::V09(m) => m.delete_surface.is_some(),
            Message::V08(m) => m.delete_surface.is_some(),
        }
    }

    /// The v0.9 message, if it is one.
    pub fn as_v09(&self) -> Option<&ServerMessage> {
        match self {
            Message::V09(m) => Some(m),
            Message::V08(_) => None,
        }
    }
}

impl From<ServerMessage> for Message {
    fn from(message: ServerMessage) -> Message {
        Message::V09(message)
    }
}

impl From<V08Message> for Message {
    fn from(message: V08Message) -> Message {
        Message::V08(message)
    }
}

/// The rules a block's messages keep whatever their version (each payload type's
/// `check`): one message kind per message, each v0.8 component one type, and each
/// surface's components a tree.
pub(crate) fn check(messages: &[Message]) -> Vec<PayloadError> {
    let mut errors = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        if message.kinds() != 1 {
            let kinds = match message.protocol() {
                Protocol::V09 => "createSurface, updateComponents, updateDataModel, deleteSurface",
                Protocol::V08 => "beginRendering, surfaceUpdate, dataModelUpdate, deleteSurface",
            };
            errors.push(PayloadError::validation(
                format!("/{i}"),
                format!("a message holds exactly one of {kinds}"),
            ));
        }
        if let Some(Err(id)) = message.components() {
            errors.push(PayloadError::validation(
                format!("/{i}"),
                format!("component '{id}' holds exactly one type, its properties in it"),
            ));
        }
    }
    let mut surfaces = crate::surface::Surfaces::default();
    for (i, message) in messages.iter().enumerate() {
        if let Err(error) = surfaces.apply(message) {
            errors.push(PayloadError::validation(format!("/{i}"), error.to_string()));
        }
    }
    errors
}
