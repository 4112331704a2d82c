//! Which format a response is written in, with a confidence per format (the output-schema app's
//! detection strategies), scored against the schema so that the fields it names are
//! the evidence:
//!
//! - json: parses as JSON (alone or fenced) → near certain; starts with `{`/`[`, or a
//!   ```` ```json ```` fence → likely.
//! - xml: one element whose children are fields (a root), more so if it is the
//!   schema's `root-element`, the text starts with `<` or has `<?xml`/```` ```xml ````.
//! - tagged: field tags at the top level, among prose, without a root.
//! - delimited: marker lines (`---TASK---`) naming fields; END markers add to it.
//! - markdown: headers naming fields, else `**Field:**` lines; lists add to it.
//!
//! Each score is the strength of the format's own sign plus the share of the schema's
//! fields found in that format, clamped to 0..1. Every reader used is linear.

use super::node::{fold, strip_list_marker, unwrap_fence};
use super::options::known_names;
use super::xml::{read_forest, root_field_names};
use super::{Format, delimited, markdown};
use crate::fence;
use payload_schema::walk::resolve;
use serde_json::Value;
use std::collections::HashSet;

/// Confidence (0..1) that `text` is written in each format, best first. Ties keep the
/// order of [`Format::ALL`].
pub fn detect(text: &str, schema: &Value) -> Vec<(Format, f64)> {
    let props: Vec<String> = resolve(schema, schema)
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let share = |found: usize| {
        if props.is_empty() {
            0.0
        } else {
            found.min(props.len()) as f64 / props.len() as f64
        }
    };
    let (xml, tagged) = xml_and_tagged(text, schema, &props, &share);
    let mut scores = vec![
        (Format::Json, json(text, &props)),
        (Format::Xml, xml),
        (Format::Delimited, delimited(text, schema, &props, &share)),
        (Format::Tagged, tagged),
        (Format::Markdown, markdown(text, schema, &props, &share)),
    ];
    for (_, score) in &mut scores {
        *score = score.clamp(0.0, 1.0);
    }
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    scores
}

/// Whether a line of `text` opens a code fence whose info string starts with `lang`
/// (any case): ```` ```json ````, `~~~JSON`.
fn fenced_as(text: &str, lang: &str) -> bool {
    text.lines().any(|line| {
        fence::opener(line).is_some_and(|_| {
            let info = line.trim().trim_start_matches(['`', '~']).trim_start();
            info.get(..lang.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(lang))
        })
    })
}

/// The text without surrounding whitespace and a fence around all of it.
fn body<'a>(text: &'a str, langs: &[&str]) -> &'a str {
    unwrap_fence(text, langs).0.trim()
}

fn json(text: &str, props: &[String]) -> f64 {
    let inner = body(text, &["json", "json5"]);
    let fenced = fenced_as(text, "json");
    if let Ok(value) = serde_json::from_str::<Value>(inner) {
        if value.is_object() || value.is_array() {
            return 0.98;
        }
    }
    let keys = props
        .iter()
        .filter(|p| inner.contains(&format!("\"{p}\"")) || inner.contains(&format!("'{p}'")))
        .count();
    let key_bonus = if props.is_empty() {
        0.0
    } else {
        0.15 * keys as f64 / props.len() as f64
    };
    let starts = inner.starts_with(['{', '[']);
    let ends = inner.ends_with(['}', ']']);
    match (starts, fenced) {
        (true, true) => 0.85 + key_bonus,
        (true, false) => 0.6 + if ends { 0.15 } else { 0.05 } + key_bonus,
        (false, true) => 0.7 + key_bonus,
        (false, false) if keys > 0 && inner.contains('{') => 0.35 + key_bonus,
        _ => 0.0,
    }
}

fn xml_and_tagged(
    text: &str,
    schema: &Value,
    props: &[String],
    share: &dyn Fn(usize) -> f64,
) -> (f64, f64) {
    let doc = read_forest(text);
    if super::xml::no_elements(&doc) {
        return (0.0, 0.0);
    }
    let xml_names = root_field_names(schema, Format::Xml);
    let tag_names = root_field_names(schema, Format::Tagged);
    let count = |children: &[super::node::Node], names: &[String]| {
        let found: HashSet<String> = children
            .iter()
            .map(|c| fold(&c.name))
            .filter(|n| names.contains(n))
            .collect();
        found.len()
    };
    let top = count(&doc.children, &tag_names);
    let wanted_root = super::options::global_opt(schema, schema, Format::Xml, "root-element")
        .and_then(Value::as_str)
        .map(fold);
    let wrapper = doc
        .children
        .iter()
        .map(|c| (c, count(&c.children, &xml_names)))
        .max_by_key(|(_, n)| *n)
        .filter(|(_, n)| *n > 0);
    let trimmed = body(text, &["xml"]);
    let starts = trimmed.starts_with('<');
    let xml_signs = text.contains("<?xml") || fenced_as(text, "xml");
    let mut xml = 0.0;
    let mut tagged = 0.0;
    if let Some((root, found)) = wrapper {
        xml = 0.55 + 0.3 * share(found);
        if wanted_root.as_ref() == Some(&fold(&root.name)) {
            xml += 0.1;
        }
        if starts || xml_signs {
            xml += 0.05;
        }
        tagged = 0.3 + 0.2 * share(found);
    }
    if top > 0 {
        let upper = doc
            .children
            .iter()
            .filter(|c| tag_names.contains(&fold(&c.name)))
            .all(|c| !c.name.chars().any(|ch| ch.is_ascii_lowercase()));
        let t = 0.5 + 0.4 * share(top) + if upper { 0.05 } else { 0.0 };
        tagged = f64::max(tagged, t);
        let x = 0.3 + 0.2 * share(top) + if xml_signs { 0.2 } else { 0.0 };
        xml = f64::max(xml, x);
    }
    if xml == 0.0 && starts {
        xml = 0.2;
    }
    let _ = props;
    (xml, tagged)
}

fn delimited(text: &str, schema: &Value, props: &[String], share: &dyn Fn(usize) -> f64) -> f64 {
    let known = known_names(schema);
    let markers = delimited::markers(text, schema, &known);
    if markers.is_empty() {
        return 0.0;
    }
    let fields: HashSet<String> = props.iter().map(|p| fold(p)).collect();
    let found: HashSet<String> = markers
        .iter()
        .filter(|m| !m.end)
        .map(|m| fold(m.name))
        .filter(|n| fields.contains(n))
        .collect();
    if found.is_empty() {
        return 0.15;
    }
    let ends = if markers.iter().any(|m| m.end) {
        0.05
    } else {
        0.0
    };
    0.5 + 0.4 * share(found.len()) + ends
}

fn markdown(text: &str, schema: &Value, props: &[String], share: &dyn Fn(usize) -> f64) -> f64 {
    let known = known_names(schema);
    let (inner, _) = unwrap_fence(text, &["markdown", "md"]);
    let fields: HashSet<String> = props.iter().map(|p| fold(p)).collect();
    let mut headers = HashSet::new();
    let mut bold = HashSet::new();
    let mut any_header = false;
    let mut lists = false;
    let mut fences = fence::Tracker::new();
    for line in inner.lines() {
        let trimmed = line.trim();
        if fences.line(line) {
            continue;
        }
        if let Some((_, name)) = markdown::header(line) {
            any_header = true;
            if fields.contains(&fold(name)) || known.contains(&fold(name)) {
                headers.insert(fold(name));
            }
        } else if let Some((name, _)) = markdown::bold_field(line, &known) {
            bold.insert(fold(name));
        } else if strip_list_marker(trimmed).is_some() {
            lists = true;
        }
    }
    let list_bonus = if lists { 0.05 } else { 0.0 };
    let by_headers = if headers.is_empty() {
        0.0
    } else {
        0.5 + 0.4 * share(headers.intersection(&fields).count().max(1)) + list_bonus
    };
    let by_bold = if bold.is_empty() {
        0.0
    } else {
        0.4 + 0.3 * share(bold.intersection(&fields).count().max(1)) + list_bonus
    };
    let weak = if any_header {
        0.15
    } else if lists {
        0.1
    } else {
        0.0
    };
    by_headers.max(by_bold).max(weak)
}
