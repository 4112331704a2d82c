//! xgrammar's `structural_tag` response format: free text, and after each trigger (a
//! page's marker and its colon) a value constrained by the type's schema. The format
//! has no way to count blocks or to keep other spellings out of the text, and says so.

use crate::lark::embeddable;
use crate::page::PagePlan;
use crate::support::{rules, scan};
use crate::{Grammar, Target, Unsupported};
use serde_json::{Value, json};

/// The grammar of marker-mode responses on the page.
pub(crate) fn page(plan: &PagePlan) -> Grammar {
    let mut unsupported = Vec::new();
    let mut structures = Vec::new();
    let mut triggers = Vec::new();
    for block in plan.payloads.iter().chain(plan.suggestions()) {
        let trigger = format!("{}:", block.marker);
        structures.push(json!({
            "begin": format!("{trigger} "),
            "schema": embeddable(&block.schema, Target::StructuralTag),
            "end": "",
        }));
        triggers.push(trigger);
        unsupported.extend(scan(Target::StructuralTag, &block.name, &block.schema));
        unsupported.extend(rules(&block.name, &block.rules));
    }
    let page = |feature: &str, effect: &str| Unsupported {
        location: "page".into(),
        feature: feature.into(),
        effect: effect.into(),
    };
    if plan.payloads.len()
        + usize::from(plan.values.is_some())
        + usize::from(plan.actions.is_some())
        > 1
    {
        unsupported.push(page(
            "at most one custom payload and one block of each suggestion kind",
            "any number of blocks may be written; the parser keeps the first valid custom payload and rejects the others (extra_payload)",
        ));
    }
    unsupported.push(page(
        "other spellings of a marker (emphasis around the name, a space before the colon, a code fence after it)",
        "only the canonical `MARKER: ` starts a constrained value; a block in another spelling is written unconstrained and checked by the parser",
    ));
    let foreign: Vec<&String> = plan
        .markers
        .iter()
        .filter(|m| {
            !plan
                .payloads
                .iter()
                .chain(plan.suggestions())
                .any(|b| &b.marker == *m)
        })
        .collect();
    if !foreign.is_empty() {
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
    let format = json!({
        "type": "structural_tag",
        "structures": structures,
        "triggers": triggers,
    });
    Grammar {
        target: Target::StructuralTag,
        text: serde_json::to_string_pretty(&format).unwrap_or_default(),
        unsupported,
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
    }
}
