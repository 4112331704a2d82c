//! A client's catalog: the component types it can draw, each with the JSON Schema of what
//! a component of that type holds (A2UI's catalogs, named by `catalogId`). With one, the
//! surface rules send only what the client can draw: a message holding a component that
//! breaks its type's schema, or whose type the catalog lacks, is refused ("Validation
//! failed", as A2UI's SDKs refuse it), and a tree drawn while the answer still arrives
//! waits until every component in it passes (a component still missing a required
//! property, a placeholder `Row` in a catalog that has no `Row`).
//!
//! What is checked is what each version writes for a component: in v0.9 the component
//! itself (`{"id", "component": "Text", "text": ...}`), in v0.8 the properties its type
//! holds (`{"text": ...}` of `{"component": {"Text": {...}}}`).

use crate::message::Component;
use crate::protocol::Protocol;
use payload_core::PayloadType;
use payload_core::runtime::{RuntimeOptions, SchemaError};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// The component types a client can draw.
#[derive(Clone)]
pub struct Catalog {
    types: HashMap<String, PayloadType>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&String> = self.types.keys().collect();
        names.sort();
        f.debug_struct("Catalog").field("types", &names).finish()
    }
}

/// A catalog entry whose schema cannot be used.
#[derive(Debug)]
pub struct CatalogError {
    /// The component type.
    pub component: String,
    /// Why its schema was refused.
    pub error: SchemaError,
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the schema of component type '{}': {}",
            self.component, self.error
        )
    }
}

impl std::error::Error for CatalogError {}

impl Catalog {
    /// A catalog from each component type's name and JSON Schema (A2UI's
    /// `catalog.components`).
    pub fn new(
        components: impl IntoIterator<Item = (String, Value)>,
    ) -> Result<Catalog, CatalogError> {
        let mut types = HashMap::new();
        for (component, schema) in components {
            let options = RuntimeOptions {
                name: Some("a2ui_component".to_string()),
                ..RuntimeOptions::default()
            };
            match PayloadType::from_schema(&schema, options) {
                Ok(payload) => {
                    types.insert(component, *payload);
                }
                Err(error) => return Err(CatalogError { component, error }),
            }
        }
        Ok(Catalog { types })
    }

    /// Why `component`, written in `protocol`, is not one the client can draw; empty
    /// when it is.
    pub fn check(&self, protocol: Protocol, component: &Component) -> Vec<String> {
        let Some(payload) = self.types.get(&component.component) else {
            return vec![format!(
                "the catalog has no component type '{}'",
                component.component
            )];
        };
        let written = match protocol {
            Protocol::V09 => serde_json::to_value(component).unwrap_or(Value::Null),
            Protocol::V08 => Value::Object(component.properties.clone()),
        };
        match payload.validate(&written) {
            Ok(()) => Vec::new(),
            Err(errors) => errors
                .iter()
                .map(|e| match e.path() {
                    "" => e.message().to_string(),
                    path => format!("{path}: {}", e.message()),
                })
                .collect(),
        }
    }
}
