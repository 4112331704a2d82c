//! llguidance's Lark dialect. Free text is a terminal that holds no marker occurrence
//! (`&` and `~` on terminals); the text before a block and its marker form one lazy
//! lexeme, which ends at the first marker; each value is the type's schema as
//! `%json {...}`; the start rule lists every order of as many custom payloads as the
//! page's count allows and at most one block of each suggestion kind.

use crate::choice::{Choice, LEAD_LINES, LINE_CHARS, PROSE_EXCLUDED, TAIL_LINES};
use crate::page::{Block, Kind, PagePlan, custom_kinds, sequences};
use crate::support::{rules, scan};
use crate::{Grammar, Target, Unsupported};
use payload_schema::keywords::{Holds, holds};
use serde_json::Value;
use std::fmt::Write;

/// Emphasis and spaces after a marker's name, and its colon, as the parser reads them
/// (closing emphasis after the colon is the value's `CLOSE`: a lazy lexeme ends at the
/// colon).
const MARKER_TAIL: &str = "[*_]{0,3}[ \\t]*:";

/// The schema as an engine embeds it: only the keywords `target` enforces (extensions,
/// `$schema` and the features listed as unsupported dropped, which the engine would
/// otherwise refuse the whole grammar over).
pub(crate) fn embeddable(schema: &Value, target: Target) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, value)| {
                    !key.starts_with("x-")
                        && key.as_str() != "$schema"
                        && crate::support::enforced(target, key, value, schema)
                })
                .map(|(key, value)| {
                    // Member names are data, not keywords: keep them all.
                    let value = if holds(key) == Some(Holds::Map) {
                        match value {
                            Value::Object(members) => Value::Object(
                                members
                                    .iter()
                                    .map(|(k, v)| (k.clone(), embeddable(v, target)))
                                    .collect(),
                            ),
                            other => other.clone(),
                        }
                    } else {
                        embeddable(value, target)
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.iter().map(|v| embeddable(v, target)).collect()),
        other => other.clone(),
    }
}

/// A marker as a regex: escaped, so a marker of any spelling is matched literally.
fn regex_literal(marker: &str) -> String {
    let mut out = String::new();
    for c in marker.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            out.push_str(&format!("\\x{{{:x}}}", c as u32));
        }
    }
    out
}

/// The fences a block may be written in, by the one fence rule (docs/spec.md §9.2): either fence
/// character, in runs of three to five (a regex cannot say "at least as many as the
/// opener", so each opener length gets its own closer), numbered for the terminals.
fn fences() -> impl Iterator<Item = (usize, char, usize)> {
    let min = payload_core::fence::MIN_LEN;
    payload_core::fence::CHARS
        .into_iter()
        .flat_map(move |ch| (min..=min + 2).map(move |len| (ch, len)))
        .enumerate()
        .map(|(i, (ch, len))| (i, ch, len))
}

/// A rule name for a type name.
fn rule(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The grammar of marker-mode responses on the page: blocks allowed, required (one of
/// `expected`) or refused as `choice` says.
pub(crate) fn page(plan: &PagePlan, choice: Choice, expected: &[Block]) -> Grammar {
    let mut unsupported: Vec<Unsupported> = Vec::new();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Marker-mode responses on page \"{}\", choice {choice} (llguidance Lark).",
        plan.page
    );
    let blocks: Vec<&Block> = match choice {
        Choice::Auto => {
            start_auto(plan, &mut out);
            // A type the count admits none of has no block rule: nothing names it.
            plan.payloads
                .iter()
                .filter(|b| plan.count.of_type(&b.name) > 0)
                .chain(plan.suggestions())
                .collect()
        }
        Choice::Required => {
            let names: Vec<String> = expected
                .iter()
                .map(|b| format!("blk_{}", rule(&b.name)))
                .collect();
            let _ = writeln!(out, "start: required tail");
            let _ = writeln!(out, "required: {}", names.join(" | "));
            expected.iter().collect()
        }
        Choice::None => {
            let _ = writeln!(out, "start: tail");
            Vec::new()
        }
    };
    // A required block's free text before it is at most LEAD_LINES lines.
    let head_text = if choice == Choice::Required {
        "LEAD"
    } else {
        "TEXT"
    };
    for block in blocks {
        let name = rule(&block.name);
        let _ = writeln!(out, "blk_{name}: hd_{name} value_{name}");
        if let Some(tag) = &block.tag {
            // Written in tags (docs/spec.md §1.21): the opening tag ends the lazy lexeme
            // of the text before it, and the closing tag follows the value (a terminal:
            // its name in capitals).
            let end = format!("END_{}", name.to_ascii_uppercase());
            let _ = writeln!(
                out,
                "hd_{name}[lazy]: {head_text} /{}/",
                regex_literal(&format!("<{tag}>"))
            );
            let fenced: Vec<String> = fences()
                .map(|(i, _, _)| {
                    format!(" | GAP? FENCE_OPEN_{i} json_{name} FENCE_CLOSE_{i} GAP? {end}")
                })
                .collect();
            let _ = writeln!(
                out,
                "value_{name}: GAP? json_{name} GAP? {end}{}",
                fenced.concat()
            );
            let _ = writeln!(out, "{end}: /{}/", regex_literal(&format!("</{tag}>")));
        } else {
            let _ = writeln!(
                out,
                "hd_{name}[lazy]: {head_text} /{}{MARKER_TAIL}/",
                regex_literal(&block.marker)
            );
            let fenced: Vec<String> = fences()
                .map(|(i, _, _)| {
                    format!(" | CLOSE? GAP? FENCE_OPEN_{i} json_{name} FENCE_CLOSE_{i}")
                })
                .collect();
            let _ = writeln!(
                out,
                "value_{name}: CLOSE? GAP? json_{name}{}",
                fenced.concat()
            );
        }
        let schema =
            serde_json::to_string(&embeddable(&block.schema, Target::Lark)).unwrap_or_default();
        let _ = writeln!(out, "json_{name}: %json {schema}");
        unsupported.extend(scan(Target::Lark, &block.name, &block.schema));
        unsupported.extend(rules(&block.name, &block.rules));
    }
    let markers: Vec<String> = plan.markers.iter().map(|m| regex_literal(m)).collect();
    let markers = markers.join("|");
    // Free text holds no marker with its colon and no opening tag.
    let mut held = format!("({markers}){MARKER_TAIL}");
    for tag in &plan.tags {
        let _ = write!(held, "|{}", regex_literal(tag));
    }
    let _ = writeln!(out, "TEXT: /(?s:.*)/ & ~/(?s:.*)({held})(?s:.*)/");
    if choice == Choice::Required {
        // The prose around a required block: few lines without the characters that
        // would make the block prose, then the end (choice.rs). Their length is left
        // open: a bounded repetition under the negation is more than the lexer builds.
        let line: String = PROSE_EXCLUDED
            .iter()
            .map(|&c| regex_literal(&c.to_string()))
            .collect();
        let line = format!("[^\\n{line}]*");
        unsupported.push(Unsupported {
            location: "page".into(),
            feature: format!(
                "lines of prose around a required block longer than {LINE_CHARS} characters"
            ),
            effect: "wider: a line's length is not bounded (its count is)".into(),
        });
        let _ = writeln!(out, "tail: TAIL");
        let _ = writeln!(
            out,
            "LEAD: /({line}\\n){{0,{LEAD_LINES}}}/ & ~/(?s:.*)({held})(?s:.*)/"
        );
        let _ = writeln!(
            out,
            "TAIL: /(\\n{line}){{0,{TAIL_LINES}}}/ & ~/(?s:.*)({held})(?s:.*)/"
        );
    } else {
        let _ = writeln!(out, "tail: TEXT");
    }
    let _ = writeln!(out, "CLOSE: /[*_]{{1,3}}/");
    let _ = writeln!(out, "GAP: /[ \\t]+|[ \\t]*\\r?\\n[ \\t]*/");
    for (i, ch, len) in fences() {
        let run = regex_literal(&ch.to_string());
        let _ = writeln!(
            out,
            "FENCE_OPEN_{i}: /({run}){{{len}}}[A-Za-z]*[ \\t]*\\r?\\n/"
        );
        let _ = writeln!(
            out,
            "FENCE_CLOSE_{i}: /[ \\t]*\\r?\\n[ \\t]*({run}){{{len},}}/"
        );
    }
    Grammar {
        target: Target::Lark,
        text: out,
        unsupported,
        triggers: Vec::new(),
    }
}

/// The start rule of a page where blocks are allowed: every order of as many custom
/// payloads as the page's count allows (a type with a tighter count of its own is a
/// kind of its own) and at most one block of each suggestion kind.
fn start_auto(plan: &PagePlan, out: &mut String) {
    let customs = custom_kinds(plan, "custom", |b| format!("custom_{}", rule(&b.name)));
    let mut kinds: Vec<Kind> = customs.iter().map(|(kind, _)| kind.clone()).collect();
    if plan.values.is_some() {
        kinds.push(Kind::suggestion("values"));
    }
    if plan.actions.is_some() {
        kinds.push(Kind::suggestion("actions"));
    }
    let alternatives: Vec<String> = sequences(&kinds, plan.count.in_all(), plan.combination)
        .into_iter()
        .map(|sequence| {
            let mut parts: Vec<String> = sequence;
            parts.push("tail".into());
            parts.join(" ")
        })
        .collect();
    let _ = writeln!(out, "start: {}", alternatives.join("\n     | "));
    for (kind, blocks) in &customs {
        let blocks: Vec<String> = blocks
            .iter()
            .map(|b| format!("blk_{}", rule(&b.name)))
            .collect();
        let _ = writeln!(out, "{}: {}", kind.name, blocks.join(" | "));
    }
    if let Some(values) = &plan.values {
        let _ = writeln!(out, "values: blk_{}", rule(&values.name));
    }
    if let Some(actions) = &plan.actions {
        let _ = writeln!(out, "actions: blk_{}", rule(&actions.name));
    }
}

/// A whole response that is one JSON value of the schema.
pub(crate) fn whole_json(name: &str, schema: &Value) -> Grammar {
    let embedded = serde_json::to_string(&embeddable(schema, Target::Lark)).unwrap_or_default();
    Grammar {
        target: Target::Lark,
        text: format!(
            "// A whole response: one {name} as JSON (llguidance Lark).\nstart: %json {embedded}\n"
        ),
        unsupported: scan(Target::Lark, name, schema),
        triggers: Vec::new(),
    }
}
