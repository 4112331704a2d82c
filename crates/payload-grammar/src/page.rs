//! What a page's grammar is made of, whatever the target: the blocks the page offers
//! (its custom payload types, the suggestion kinds), the schema of each, which of them
//! may go together (the page's combination rule, as the parser applies it), and every
//! registered marker, which free text must not hold.

use payload_core::schema::Dialect;
use payload_core::suggestions::{Combination, SUGGESTED_ACTIONS_MARKER, SUGGESTED_VALUES_MARKER};
use payload_registry::{Registry, UnknownPage};
use serde_json::{Value, json};

/// One kind of block a response may hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The type's name (`schema_proposal`, `suggested_values`).
    pub name: String,
    /// Its marker.
    pub marker: String,
    /// The tag it is written in instead of its marker (`a2ui-json` for
    /// `<a2ui-json>…</a2ui-json>`, docs/spec.md §1.21), when it has one.
    pub tag: Option<String>,
    /// The schema of the value after the marker (2020-12).
    pub schema: Value,
    /// The type's rules beyond its schema, in words: no grammar enforces them.
    pub rules: Vec<String>,
}

/// A page, ready to be written in any target.
#[derive(Debug, Clone, PartialEq)]
pub struct PagePlan {
    /// The page's name.
    pub page: String,
    /// The custom payload types offered: at most one of them per response.
    pub payloads: Vec<Block>,
    /// Suggestion chips, when the page has suggestions.
    pub values: Option<Block>,
    /// Action buttons limited to the page's actions, when it has suggestions and actions.
    pub actions: Option<Block>,
    /// Every marker the parser knows, on this page or not: free text holds none.
    pub markers: Vec<String>,
    /// Every opening tag the parser knows (`<a2ui-json>`), on this page or not: free
    /// text holds none.
    pub tags: Vec<String>,
    /// Which suggestion blocks may go beside a custom payload (`Page::combination`).
    pub combination: Combination,
}

impl PagePlan {
    /// The plan of `page` in `registry`.
    pub fn of(registry: &Registry, page: &str) -> Result<PagePlan, UnknownPage> {
        let info = registry.page(page)?;
        let payloads = info
            .payloads
            .iter()
            .map(|payload| Block {
                name: payload.name.to_string(),
                marker: payload.marker.to_string(),
                tag: (!payload.tag.is_empty()).then(|| payload.tag.to_string()),
                schema: payload.schema(Dialect::Draft2020_12),
                rules: payload.rules.iter().map(|r| r.to_string()).collect(),
            })
            .collect();
        let suggestions = info.page.suggestions;
        let values = suggestions.then(|| Block {
            name: payload_core::suggestions::SUGGESTED_VALUES_NAME.to_string(),
            marker: SUGGESTED_VALUES_MARKER.to_string(),
            tag: None,
            schema: values_schema(),
            rules: Vec::new(),
        });
        let actions = (suggestions && !info.actions.is_empty()).then(|| Block {
            name: payload_core::suggestions::SUGGESTED_ACTIONS_NAME.to_string(),
            marker: SUGGESTED_ACTIONS_MARKER.to_string(),
            tag: None,
            schema: actions_schema(&info.actions),
            rules: Vec::new(),
        });
        // A type written in tags is read only in them: its opening tag is what free text
        // must not hold, not its marker.
        let mut markers: Vec<String> = registry
            .types()
            .filter(|t| t.tag.is_empty())
            .map(|t| t.marker.to_string())
            .collect();
        let mut tags: Vec<String> = registry
            .types()
            .filter(|t| !t.tag.is_empty())
            .map(|t| format!("<{}>", t.tag))
            .collect();
        tags.sort();
        tags.dedup();
        markers.push(SUGGESTED_VALUES_MARKER.to_string());
        markers.push(SUGGESTED_ACTIONS_MARKER.to_string());
        markers.sort();
        markers.dedup();
        Ok(PagePlan {
            page: page.to_string(),
            payloads,
            values,
            actions,
            markers,
            tags,
            combination: info.page.combination,
        })
    }

    /// The suggestion blocks the page has.
    pub fn suggestions(&self) -> impl Iterator<Item = &Block> {
        self.values.iter().chain(self.actions.iter())
    }
}

/// SUGGESTED_VALUES: chips, each a label and the value it sends.
fn values_schema() -> Value {
    json!({
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "properties": {"label": {"type": "string"}, "value": {"type": "string"}},
            "required": ["label", "value"],
            "additionalProperties": false
        }
    })
}

/// SUGGESTED_ACTIONS: buttons, each one of the page's (action, handler) pairs.
fn actions_schema(actions: &[payload_core::suggestions::ActionSpec]) -> Value {
    let items: Vec<Value> = actions
        .iter()
        .map(|action| {
            json!({
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "action": {"const": action.action},
                    "handler": {"const": action.handler.as_str()}
                },
                "required": ["label", "action", "handler"],
                "additionalProperties": false
            })
        })
        .collect();
    json!({"type": "array", "minItems": 1, "items": {"anyOf": items}})
}

/// Every order of at most one custom payload (`custom`) and at most one block of each
/// suggestion kind (`values`, `actions`) that `combination` allows together: the
/// sequences of block kinds a response may hold.
pub(crate) fn sequences(kinds: &[&str], combination: Combination) -> Vec<Vec<String>> {
    let allowed = |sequence: &Vec<String>| {
        let has = |kind: &str| sequence.iter().any(|k| k == kind);
        !has("custom")
            || ((combination.values_with_payload || !has("values"))
                && (combination.actions_with_payload || !has("actions")))
    };
    every_order(kinds).into_iter().filter(allowed).collect()
}

/// Every order of distinct `kinds`, each at most once.
fn every_order(kinds: &[&str]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    let mut frontier: Vec<Vec<String>> = vec![Vec::new()];
    for _ in 0..kinds.len() {
        let mut next = Vec::new();
        for sequence in &frontier {
            for kind in kinds {
                if !sequence.iter().any(|k| k == kind) {
                    let mut longer = sequence.clone();
                    longer.push(kind.to_string());
                    next.push(longer);
                }
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Combination, sequences};

    #[test]
    fn every_order_of_distinct_kinds_once() {
        let free = Combination::FREE;
        assert_eq!(sequences(&[], free).len(), 1);
        assert_eq!(sequences(&["custom"], free).len(), 2);
        // 1 + 3 + 6 + 6
        assert_eq!(sequences(&["custom", "values", "actions"], free).len(), 16);
        assert!(
            sequences(&["custom", "values"], free)
                .contains(&vec!["values".to_string(), "custom".to_string()])
        );
    }

    #[test]
    fn a_payload_goes_only_with_what_the_page_allows_beside_it() {
        let kinds = ["custom", "values", "actions"];
        // Alone: the empty response, the payload, and the 1 + 2 + 2 orders of chips
        // and buttons without it.
        let alone = sequences(&kinds, Combination::PAYLOAD_ALONE);
        assert_eq!(alone.len(), 1 + 1 + 2 + 2);
        assert!(
            alone
                .iter()
                .all(|s| !s.contains(&"custom".to_string()) || s.len() == 1)
        );
        // Buttons allowed: also payload+buttons in both orders.
        let buttons = sequences(&kinds, Combination::PAYLOAD_ALONE.allow_actions());
        assert_eq!(buttons.len(), alone.len() + 2);
        assert!(buttons.contains(&vec!["custom".to_string(), "actions".to_string()]));
        assert!(
            !buttons
                .iter()
                .any(|s| s.contains(&"custom".to_string()) && s.contains(&"values".to_string()))
        );
    }
}
