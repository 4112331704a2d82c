//! xgrammar's `structural_tag` response format (`{"type": "structural_tag", "format":
//! ...}`): free text, and after each trigger (a page's marker and its colon) a value
//! constrained by the type's schema, as `triggered_tags`. A required block is
//! `at_least_one` with `stop_after_first` (the block comes first, nothing after it); no
//! block is `any_text`. The format has no way to count blocks, to keep a suggestion
//! block from beside a payload (the page's combination rule) or to keep other spellings
//! out of the text, and says so.

use crate::choice::Choice;
use crate::lark::embeddable;
use crate::page::{Block, PagePlan};
use crate::support::{rules, scan};
use crate::{Grammar, Target, Unsupported};
use serde_json::{Value, json};

/// The grammar of marker-mode responses on the page: blocks allowed, required (one of
/// `expected`) or refused as `choice` says.
pub(crate) fn page(plan: &PagePlan, choice: Choice, expected: &[Block]) -> Grammar {
    let mut unsupported = Vec::new();
    let page = |feature: &str, effect: &str| Unsupported {
        location: "page".into(),
        feature: feature.into(),
        effect: effect.into(),
    };
    let blocks: Vec<&Block> = match choice {
        Choice::Auto => plan.payloads.iter().chain(plan.suggestions()).collect(),
        Choice::Required => expected.iter().collect(),
        Choice::None => Vec::new(),
    };
    let mut tags = Vec::new();
    let mut triggers = Vec::new();
    for block in &blocks {
        // A type written in tags (docs/spec.md §1.21) is a structural tag as it stands.
        let (trigger, begin, end) = match &block.tag {
            Some(tag) => (
                format!("<{tag}>"),
                format!("<{tag}>\n"),
                format!("\n</{tag}>"),
            ),
            None => {
                let trigger = format!("{}:", block.marker);
                let begin = format!("{trigger} ");
                (trigger, begin, String::new())
            }
        };
        tags.push(json!({
            "type": "tag",
            "begin": begin,
            "content": {
                "type": "json_schema",
                "json_schema": embeddable(&block.schema, Target::StructuralTag),
            },
            "end": end,
        }));
        triggers.push(trigger);
        unsupported.extend(scan(Target::StructuralTag, &block.name, &block.schema));
        unsupported.extend(rules(&block.name, &block.rules));
    }
    let format = match choice {
        Choice::None => {
            unsupported.push(page(
                "free text without markers",
                "any text is allowed (the format cannot exclude words): a block the model writes anyway is checked by the parser",
            ));
            json!({"type": "any_text"})
        }
        Choice::Required => {
            unsupported.push(page(
                "free text around the required block",
                "narrower: the block comes first and the answer ends after it (at_least_one, stop_after_first)",
            ));
            json!({
                "type": "triggered_tags",
                "triggers": triggers,
                "tags": tags,
                "at_least_one": true,
                "stop_after_first": true,
            })
        }
        Choice::Auto => {
            if blocks.len() > 1 {
                unsupported.push(page(
                    "the page's count of custom payloads and one block of each suggestion kind",
                    "any number of blocks may be written; the parser keeps the valid custom payloads up to the page's count, in text order, and rejects the others (extra_payload)",
                ));
            }
            let combination = plan.combination;
            let refused_beside = !plan.payloads.is_empty()
                && ((plan.values.is_some() && !combination.values_with_payload)
                    || (plan.actions.is_some() && !combination.actions_with_payload));
            if refused_beside {
                unsupported.push(page(
                    "which blocks go together (the page's combination rule)",
                    "a suggestion block may be written beside a custom payload; the parser takes out one the rule refuses there (combination warning)",
                ));
            }
            json!({
                "type": "triggered_tags",
                "triggers": triggers,
                "tags": tags,
                "at_least_one": false,
                "stop_after_first": false,
            })
        }
    };
    if choice != Choice::None {
        unsupported.push(page(
            "other spellings of a marker (emphasis around the name, a space before the colon, a code fence after it)",
            "only the canonical `MARKER: ` starts a constrained value; a block in another spelling is written unconstrained and checked by the parser",
        ));
    }
    let foreign: Vec<&String> = plan
        .markers
        .iter()
        .filter(|m| !blocks.iter().any(|b| &b.marker == *m))
        .collect();
    if choice == Choice::Auto && !foreign.is_empty() {
        unsupported.push(page(
            "free text without the markers of types the page does not offer",
            &format!(
                "the text may hold {}; the parser rejects such blocks (not_on_page)",
                foreign
                    .iter()
                    .map(|m| m.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let format = json!({"type": "structural_tag", "format": format});
    Grammar {
        target: Target::StructuralTag,
        text: serde_json::to_string_pretty(&format).unwrap_or_default(),
        unsupported,
        triggers: Vec::new(),
    }
}

/// A whole response that is one JSON value: the `json_schema` response format, which
/// is what servers that take structural tags take for a whole value.
pub(crate) fn whole_json(name: &str, schema: &Value) -> Grammar {
    let format = json!({
        "type": "json_schema",
        "json_schema": {"name": name, "schema": embeddable(schema, Target::StructuralTag)},
    });
    Grammar {
        target: Target::StructuralTag,
        text: serde_json::to_string_pretty(&format).unwrap_or_default(),
        unsupported: scan(Target::StructuralTag, name, schema),
        triggers: Vec::new(),
    }
}
