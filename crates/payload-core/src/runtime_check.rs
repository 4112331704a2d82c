//! The checks a schema written by hand gets before it becomes a payload type, beyond
//! the meta-schema and the generic document checks of `payload_schema::document`:
//! `x-format` (seed 002) is consistent — format blocks under known format names, option values of the
//! right kind, per-property options only for properties that exist, and no two
//! properties given the same element, tag or header.

use payload_schema::document::SchemaProblem;
use payload_schema::keywords::{self, Holds, Property};
use payload_schema::pointer;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The formats `x-format` may configure.
const FORMATS: &[&str] = &["json", "xml", "delimited", "tagged", "markdown"];
/// Options whose value names something the model writes: non-empty strings.
const NAMES: &[&str] = &[
    "root-element",
    "element",
    "item-element",
    "tag",
    "header",
    "section-pattern",
    "end-pattern",
];
/// Options that are switches.
const SWITCHES: &[&str] = &["attribute", "cdata"];
/// Whether `name` is a payload type name: `[a-z][a-z0-9_]*`, the rule the derive holds
/// too (`payload-derive`'s `attr::is_valid_name`).
pub(crate) fn is_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether `marker` is a marker: SHOUTY_SNAKE_CASE ASCII, starting with a letter.
pub(crate) fn is_marker(marker: &str) -> bool {
    marker.starts_with(|c: char| c.is_ascii_uppercase())
        && marker
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether `tag` can name a tag pair (docs/spec.md §1.21): an ASCII letter, then ASCII
/// letters, digits, `-` and `_`, at most 64 bytes, and not a reasoning tag. No space, `<`, `>` or `/`, so the
/// opening and closing tags are plain literals the scanner matches exactly.
pub(crate) fn is_tag(tag: &str) -> bool {
    !REASONING_TAGS.contains(&tag.to_ascii_lowercase().as_str())
        && tag.len() <= MAX_TAG
        && tag.starts_with(|c: char| c.is_ascii_alphabetic())
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The tags models write their reasoning in (docs/spec.md §9.1): cut out before any
/// block is looked for, so no type can be written in them.
pub(crate) const REASONING_TAGS: [&str; 3] = ["think", "thinking", "reasoning"];

/// The longest tag name.
pub(crate) const MAX_TAG: usize = 64;

fn push(problems: &mut Vec<SchemaProblem>, pointer: &str, message: String) {
    problems.push(SchemaProblem {
        pointer: pointer.to_string(),
        message,
    });
}

/// Checks the `x-format` blocks of the object schema at `pointer` and of its
/// properties, recursively through `properties`, `items` and `$defs`.
pub(crate) fn x_format(schema: &Value, pointer: &str, problems: &mut Vec<SchemaProblem>) {
    let Value::Object(map) = schema else { return };
    let properties = map.get("properties").and_then(Value::as_object);
    if let Some(block) = map.get("x-format") {
        format_blocks(block, properties, &format!("{pointer}/x-format"), problems);
    }
    if let Some(properties) = properties {
        for format in FORMATS {
            distinct_names(map, properties, format, pointer, problems);
        }
        for (name, child) in properties {
            x_format(
                child,
                &format!("{pointer}/properties/{}", pointer::escape_token(name)),
                problems,
            );
        }
    }
    for keyword in ["items", "additionalProperties"] {
        if let Some(child) = map.get(keyword) {
            x_format(child, &format!("{pointer}/{keyword}"), problems);
        }
    }
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get(keyword) {
            for (name, child) in defs {
                x_format(
                    child,
                    &format!("{pointer}/{keyword}/{}", pointer::escape_token(name)),
                    problems,
                );
            }
        }
    }
    for keyword in keywords::with(Property::Holds(Holds::List)) {
        if let Some(Value::Array(list)) = map.get(keyword) {
            for (index, child) in list.iter().enumerate() {
                x_format(child, &format!("{pointer}/{keyword}/{index}"), problems);
            }
        }
    }
}

fn format_blocks(
    block: &Value,
    properties: Option<&Map<String, Value>>,
    pointer: &str,
    problems: &mut Vec<SchemaProblem>,
) {
    let Value::Object(formats) = block else {
        return push(
            problems,
            pointer,
            "x-format must be an object of format names".into(),
        );
    };
    for (format, options) in formats {
        let at = format!("{pointer}/{}", pointer::escape_token(format));
        if !FORMATS.contains(&format.as_str()) {
            push(
                problems,
                &at,
                format!("'{format}' is not a format (use {})", FORMATS.join(", ")),
            );
            continue;
        }
        let Value::Object(options) = options else {
            push(
                problems,
                &at,
                format!("the {format} options must be an object"),
            );
            continue;
        };
        option_values(options, &at, problems);
        if let Some(per_property) = options.get("properties") {
            let Value::Object(per_property) = per_property else {
                push(
                    problems,
                    &format!("{at}/properties"),
                    "must be an object of property names".into(),
                );
                continue;
            };
            for (name, options) in per_property {
                let at = format!("{at}/properties/{}", pointer::escape_token(name));
                if properties.is_none_or(|p| !p.contains_key(name)) {
                    push(
                        problems,
                        &at,
                        format!("'{name}' is not a property of this object"),
                    );
                }
                match options {
                    Value::Object(options) => option_values(options, &at, problems),
                    _ => push(problems, &at, "the options must be an object".into()),
                }
            }
        }
    }
}

fn option_values(options: &Map<String, Value>, pointer: &str, problems: &mut Vec<SchemaProblem>) {
    for (key, value) in options {
        let at = format!("{pointer}/{}", pointer::escape_token(key));
        if NAMES.contains(&key.as_str()) && value.as_str().is_none_or(|s| s.trim().is_empty()) {
            push(problems, &at, format!("'{key}' must be a non-empty string"));
        } else if SWITCHES.contains(&key.as_str()) && !value.is_boolean() {
            push(problems, &at, format!("'{key}' must be true or false"));
        } else if key == "level" && !value.as_u64().is_some_and(|l| (1..=6).contains(&l)) {
            push(
                problems,
                &at,
                "'level' must be a heading level from 1 to 6".into(),
            );
        }
    }
}

/// No two properties of one object given the same explicit element, tag or header in
/// `format`: the reader could not tell them apart.
fn distinct_names(
    object: &Map<String, Value>,
    properties: &Map<String, Value>,
    format: &str,
    pointer: &str,
    problems: &mut Vec<SchemaProblem>,
) {
    let key = match format {
        "xml" => "element",
        "tagged" => "tag",
        "markdown" => "header",
        _ => return,
    };
    let from_parent = object
        .get("x-format")
        .and_then(|x| x.get(format))
        .and_then(|f| f.get("properties"));
    let mut seen: HashMap<String, &str> = HashMap::new();
    for (name, schema) in properties {
        let explicit = schema
            .get("x-format")
            .and_then(|x| x.get(format))
            .and_then(|f| f.get(key))
            .or_else(|| {
                from_parent
                    .and_then(|p| p.get(name))
                    .and_then(|o| o.get(key))
            })
            .and_then(Value::as_str);
        let Some(explicit) = explicit else { continue };
        let folded = explicit.trim().to_lowercase();
        if let Some(other) = seen.insert(folded, name) {
            push(
                problems,
                &format!("{pointer}/properties/{}", pointer::escape_token(name)),
                format!("its {format} {key} '{explicit}' is also the {key} of '{other}'"),
            );
        }
    }
}

/// The output-schema app's `x-parsing` at the root, checked for the values the seed defines.
pub(crate) fn x_parsing(schema: &Value, problems: &mut Vec<SchemaProblem>) {
    let Some(parsing) = schema.get("x-parsing") else {
        return;
    };
    let at = "/x-parsing";
    let Value::Object(parsing) = parsing else {
        return push(problems, at, "x-parsing must be an object".into());
    };
    let choice = |section: &str, key: &str, allowed: &[&str], problems: &mut Vec<SchemaProblem>| {
        if let Some(value) = parsing.get(section).and_then(|s| s.get(key)) {
            if value.as_str().is_none_or(|v| !allowed.contains(&v)) {
                push(
                    problems,
                    &format!("{at}/{section}/{key}"),
                    format!("must be one of {}", allowed.join(", ")),
                );
            }
        }
    };
    choice(
        "error-recovery",
        "mode",
        &["strict", "lenient", "aggressive"],
        problems,
    );
    choice(
        "validation",
        "required-enforcement",
        &["error", "warn", "ignore"],
        problems,
    );
    choice(
        "validation",
        "additional-properties",
        &["allow", "warn", "error"],
        problems,
    );
    for key in ["strategies", "fallback-order"] {
        let Some(list) = parsing.get("format-detection").and_then(|d| d.get(key)) else {
            continue;
        };
        let pointer = format!("{at}/format-detection/{key}");
        match list.as_array() {
            Some(list) => {
                for (index, format) in list.iter().enumerate() {
                    if format.as_str().is_none_or(|f| !FORMATS.contains(&f)) {
                        push(
                            problems,
                            &format!("{pointer}/{index}"),
                            format!("not a format (use {})", FORMATS.join(", ")),
                        );
                    }
                }
            }
            None => push(problems, &pointer, "must be a list of format names".into()),
        }
    }
    if let Some(threshold) = parsing
        .get("format-detection")
        .and_then(|d| d.get("confidence-threshold"))
    {
        if threshold.as_f64().is_none_or(|t| !(0.0..=1.0).contains(&t)) {
            push(
                problems,
                &format!("{at}/format-detection/confidence-threshold"),
                "must be a number from 0 to 1".into(),
            );
        }
    }
}
