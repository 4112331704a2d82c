//! What a page's grammar is made of, whatever the target: the blocks the page offers
//! (its custom payload types, the suggestion kinds), the schema of each, which of them
//! may go together (the page's combination rule, as the parser applies it), how many
//! custom payloads one response may hold (the page's count, in all and per type), and
//! every registered marker, which free text must not hold.

use payload_core::PayloadCount;
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
    /// The custom payload types offered: as many of them per response as `count` allows.
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
    /// How many custom payloads one response may hold, in all and per type
    /// (`Page::payload_count`).
    pub count: PayloadCount,
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
            count: info.page.payload_count,
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

/// One kind of block in a response's sequences: its rule name in the target, how many
/// times one response may hold it, and whether it is a custom payload (bounded with the
/// others by the count in all; a suggestion block is not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kind {
    /// The kind's rule in the grammar being written.
    pub name: String,
    /// How many blocks of it one response may hold.
    pub max: u32,
    /// A custom payload kind.
    pub custom: bool,
}

impl Kind {
    /// A suggestion kind: at most one block per response.
    pub(crate) fn suggestion(name: &str) -> Kind {
        Kind {
            name: name.to_string(),
            max: 1,
            custom: false,
        }
    }
}

/// The custom payload kinds of `plan` as the page's count bounds them: the types whose
/// own count is below the count in all each a kind of its own (named by `tight`), the
/// others together as one kind named `loose` (bounded by the count in all). A type the
/// count admits none of is left out. Returns each kind with the blocks it stands for.
pub(crate) fn custom_kinds<'p>(
    plan: &'p PagePlan,
    loose: &str,
    tight: impl Fn(&Block) -> String,
) -> Vec<(Kind, Vec<&'p Block>)> {
    let count = plan.count;
    let in_all = count.in_all();
    let mut kinds = Vec::new();
    let together: Vec<&Block> = plan
        .payloads
        .iter()
        .filter(|b| count.of_type(&b.name) >= in_all && in_all > 0)
        .collect();
    if !together.is_empty() {
        let kind = Kind {
            name: loose.to_string(),
            max: in_all,
            custom: true,
        };
        kinds.push((kind, together));
    }
    for block in &plan.payloads {
        let max = count.of_type(&block.name);
        if max < in_all && max > 0 {
            let kind = Kind {
                name: tight(block),
                max,
                custom: true,
            };
            kinds.push((kind, vec![block]));
        }
    }
    kinds
}

/// The most orders of blocks a grammar lists: a page whose count allows more (about
/// fifteen payloads with chips and buttons beside them) is refused a grammar with a
/// clear error rather than given one that grows with the cube of its count.
pub(crate) const MAX_ORDERS: usize = 2_000;

impl PagePlan {
    /// Whether the orders of blocks the page allows (its count, its suggestion kinds,
    /// its combination rule) are few enough for a grammar to list: counted up to
    /// [`MAX_ORDERS`] and no further.
    pub(crate) fn orders_fit(&self) -> bool {
        let mut kinds: Vec<Kind> = custom_kinds(self, "custom", |b| b.name.clone())
            .into_iter()
            .map(|(kind, _)| kind)
            .collect();
        if self.values.is_some() {
            kinds.push(Kind::suggestion("values"));
        }
        if self.actions.is_some() {
            kinds.push(Kind::suggestion("actions"));
        }
        every_order_within(&kinds, self.count.in_all(), MAX_ORDERS).is_some()
    }
}

/// Every order of blocks a response may hold: each kind at most its `max` times, the
/// custom kinds together at most `in_all` times (the page's count), and a suggestion
/// kind beside a custom payload only where `combination` allows it. Shortest first, in
/// the order of `kinds`; with the default count (one custom kind, at most once) these
/// are the seed's sequences.
pub(crate) fn sequences(kinds: &[Kind], in_all: u32, combination: Combination) -> Vec<Vec<String>> {
    let allowed = |sequence: &[usize]| {
        let has = |kind: &str| sequence.iter().any(|&k| kinds[k].name == kind);
        let custom = sequence.iter().any(|&k| kinds[k].custom);
        !custom
            || ((combination.values_with_payload || !has("values"))
                && (combination.actions_with_payload || !has("actions")))
    };
    every_order_within(kinds, in_all, usize::MAX)
        .unwrap_or_default()
        .into_iter()
        .filter(|sequence| allowed(sequence))
        .map(|sequence| sequence.iter().map(|&k| kinds[k].name.clone()).collect())
        .collect()
}

/// Every sequence of `kinds` (as indices), each kind at most its `max` times and the
/// custom kinds together at most `in_all` times, shortest first; `None` as soon as
/// there are more than `limit`.
fn every_order_within(kinds: &[Kind], in_all: u32, limit: usize) -> Option<Vec<Vec<usize>>> {
    let uses = |sequence: &[usize], k: usize| sequence.iter().filter(|&&i| i == k).count() as u32;
    let customs = |sequence: &[usize]| sequence.iter().filter(|&&i| kinds[i].custom).count() as u32;
    let mut out = vec![Vec::new()];
    let mut frontier: Vec<Vec<usize>> = vec![Vec::new()];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for sequence in &frontier {
            for (k, kind) in kinds.iter().enumerate() {
                let room =
                    uses(sequence, k) < kind.max && (!kind.custom || customs(sequence) < in_all);
                if room {
                    let mut longer = sequence.clone();
                    longer.push(k);
                    next.push(longer);
                }
            }
        }
        out.extend(next.iter().cloned());
        if out.len() > limit {
            return None;
        }
        frontier = next;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{Combination, Kind, sequences};

    fn kinds(custom: u32, suggestions: &[&str]) -> Vec<Kind> {
        let mut kinds = vec![Kind {
            name: "custom".into(),
            max: custom,
            custom: true,
        }];
        kinds.extend(suggestions.iter().map(|s| Kind::suggestion(s)));
        kinds
    }

    #[test]
    fn every_order_of_distinct_kinds_once() {
        let free = Combination::FREE;
        assert_eq!(sequences(&[], 1, free).len(), 1);
        assert_eq!(sequences(&kinds(1, &[]), 1, free).len(), 2);
        // 1 + 3 + 6 + 6
        assert_eq!(
            sequences(&kinds(1, &["values", "actions"]), 1, free).len(),
            16
        );
        assert!(
            sequences(&kinds(1, &["values"]), 1, free)
                .contains(&vec!["values".to_string(), "custom".to_string()])
        );
    }

    #[test]
    fn a_payload_goes_only_with_what_the_page_allows_beside_it() {
        let kinds = kinds(1, &["values", "actions"]);
        // Alone: the empty response, the payload, and the 1 + 2 + 2 orders of chips
        // and buttons without it.
        let alone = sequences(&kinds, 1, Combination::PAYLOAD_ALONE);
        assert_eq!(alone.len(), 1 + 1 + 2 + 2);
        assert!(
            alone
                .iter()
                .all(|s| !s.contains(&"custom".to_string()) || s.len() == 1)
        );
        // Buttons allowed: also payload+buttons in both orders.
        let buttons = sequences(&kinds, 1, Combination::PAYLOAD_ALONE.allow_actions());
        assert_eq!(buttons.len(), alone.len() + 2);
        assert!(buttons.contains(&vec!["custom".to_string(), "actions".to_string()]));
        assert!(
            !buttons
                .iter()
                .any(|s| s.contains(&"custom".to_string()) && s.contains(&"values".to_string()))
        );
    }

    #[test]
    fn the_count_bounds_custom_blocks_in_all_and_per_kind() {
        let three = sequences(&kinds(3, &["actions"]), 3, Combination::FREE);
        let customs = |s: &Vec<String>| s.iter().filter(|k| *k == "custom").count();
        assert_eq!(three.iter().map(customs).max(), Some(3));
        // 0..=3 customs, the button nowhere or in any of k + 1 places: 1+2 + 1+3 + ...
        assert_eq!(three.len(), (0..=3).map(|k| 1 + (k + 1)).sum::<usize>());
        let mut per_type = kinds(2, &[]);
        per_type.push(Kind {
            name: "itinerary".into(),
            max: 1,
            custom: true,
        });
        let bounded = sequences(&per_type, 2, Combination::FREE);
        assert!(bounded.iter().all(|s| s.len() <= 2));
        assert!(
            bounded
                .iter()
                .all(|s| s.iter().filter(|k| *k == "itinerary").count() <= 1)
        );
        assert!(bounded.contains(&vec!["itinerary".to_string(), "custom".to_string()]));
        assert!(bounded.contains(&vec!["custom".to_string(), "custom".to_string()]));
        assert_eq!(
            sequences(&kinds(0, &[]), 0, Combination::FREE),
            vec![Vec::<String>::new()]
        );
    }

    #[test]
    fn counting_orders_stops_at_the_limit() {
        use super::every_order_within;
        let three = kinds(3, &["values", "actions"]);
        assert_eq!(every_order_within(&three, 3, usize::MAX).unwrap().len(), 64);
        assert!(every_order_within(&three, 3, 64).is_some());
        assert!(every_order_within(&three, 3, 63).is_none());
        // A count of a thousand is refused after a bounded amount of work.
        let many = kinds(1000, &["values", "actions"]);
        assert!(every_order_within(&many, 1000, super::MAX_ORDERS).is_none());
    }
}
