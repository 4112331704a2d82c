//! What the page is told about the app (`GET /api/app`): its title, whether its answers
//! are recorded, and each page it serves with its starter messages, its client actions
//! and its payload types: their JSON Schema (what a generic card is built from) and
//! whether the app decides them (only then does a card offer Accept and Dismiss).

use crate::handlers::Handlers;
use payload_core::schema::Dialect;
use payload_registry::Registry;
use serde::Serialize;
use serde_json::Value;

/// The app as the page sees it.
#[derive(Debug, Clone, Serialize)]
pub struct AppManifest {
    /// The name shown in the page's title bar.
    pub title: String,
    /// Whether the model replays recorded answers (the page says so on a first visit).
    pub recorded: bool,
    /// The page the chat starts on.
    pub default_page: String,
    /// The pages served, in the order the app gave them.
    pub pages: Vec<PageManifest>,
}

/// One page.
#[derive(Debug, Clone, Serialize)]
pub struct PageManifest {
    /// Its name (`current_page`).
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Messages an empty chat offers as chips.
    pub starters: &'static [&'static str],
    /// The client actions the model may suggest on it (the page's and the global ones).
    pub actions: Vec<ActionManifest>,
    /// The payload types it offers.
    pub payloads: Vec<TypeManifest>,
}

/// A client action.
#[derive(Debug, Clone, Serialize)]
pub struct ActionManifest {
    /// Its identifier.
    pub action: &'static str,
    /// What it does.
    pub description: &'static str,
}

/// A payload type.
#[derive(Debug, Clone, Serialize)]
pub struct TypeManifest {
    /// Its name (`custom_payload.type`).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its marker.
    pub marker: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its JSON Schema (2020-12).
    pub schema: Value,
    /// Whether the app registered an accept handler: the card offers Accept and
    /// Dismiss only then.
    pub decidable: bool,
}

impl AppManifest {
    /// The manifest of `pages` of `registry` (every registered page, by name, when
    /// empty); a name the registry does not know is left out (`App::build` refuses it
    /// first).
    pub fn new(
        title: &str,
        registry: &Registry,
        pages: &[&'static str],
        handlers: &Handlers,
        recorded: bool,
    ) -> AppManifest {
        let names: Vec<&'static str> = if pages.is_empty() {
            registry.pages().map(|info| info.page.name).collect()
        } else {
            pages.to_vec()
        };
        let pages: Vec<PageManifest> = names
            .iter()
            .filter_map(|name| registry.page(name).ok())
            .map(|info| PageManifest {
                name: info.page.name,
                description: info.page.description,
                starters: info.page.starters,
                actions: info
                    .actions
                    .iter()
                    .map(|a| ActionManifest {
                        action: a.action,
                        description: a.description,
                    })
                    .collect(),
                payloads: info
                    .payloads
                    .iter()
                    .map(|t| TypeManifest {
                        kind: t.name,
                        marker: t.marker,
                        description: t.description,
                        schema: t.schema(Dialect::Draft2020_12),
                        decidable: handlers.accepts(t.name),
                    })
                    .collect(),
            })
            .collect();
        AppManifest {
            title: title.to_string(),
            recorded,
            default_page: pages
                .first()
                .map(|p| p.name.to_string())
                .unwrap_or_default(),
            pages,
        }
    }

    /// Whether the app serves the page `name`.
    pub fn serves(&self, name: &str) -> bool {
        self.pages.iter().any(|p| p.name == name)
    }
}
