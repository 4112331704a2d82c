//! The `x-format` extension: per-format, per-field names and styles, read exactly as
//! the schema spells them, and the "how to write this field" hints built from them.
//!
//! Options are looked up in three places, nearest first: the property's own schema
//! (`#[schemars(extend("x-format" = ...))]` on a field), the parent's
//! `x-format.<format>.properties.<field>` (the same attribute on the struct), and, for
//! format-wide settings, the parent and then the root schema.

use super::Format;
use super::node::fold;
use heck::{ToShoutySnakeCase, ToSnakeCase, ToTitleCase, ToUpperCamelCase};
use payload_schema::walk::{self as schema_walk, resolve};
use serde_json::Value;
use std::collections::HashSet;

/// `schema["x-format"][format]`, if present.
fn format_block(schema: &Value, format: Format) -> Option<&Value> {
    schema.get("x-format")?.get(format.as_str())
}

/// A per-field option `key` of property `prop` of the object `parent`.
pub(crate) fn field_opt<'a>(
    root: &'a Value,
    parent: &'a Value,
    prop: &str,
    format: Format,
    key: &str,
) -> Option<&'a Value> {
    let parent = resolve(root, parent);
    let raw = parent.get("properties").and_then(|p| p.get(prop));
    raw.and_then(|s| format_block(s, format))
        .and_then(|b| b.get(key))
        .or_else(|| {
            format_block(parent, format)
                .and_then(|b| b.get("properties"))
                .and_then(|p| p.get(prop))
                .and_then(|f| f.get(key))
        })
        .or_else(|| {
            raw.map(|s| resolve(root, s))
                .and_then(|s| format_block(s, format))
                .and_then(|b| b.get(key))
        })
}

/// A format-wide option `key`, from `schema` or else the root.
pub(crate) fn global_opt<'a>(
    root: &'a Value,
    schema: &'a Value,
    format: Format,
    key: &str,
) -> Option<&'a Value> {
    format_block(resolve(root, schema), format)
        .and_then(|b| b.get(key))
        .or_else(|| format_block(resolve(root, root), format).and_then(|b| b.get(key)))
}

/// A string option as `&str`.
pub(crate) fn opt_str(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// A markdown `header` option without its `#`s.
pub(crate) fn header_text(header: &str) -> &str {
    header.trim().trim_start_matches('#').trim()
}

/// The custom name a format gives property `prop`, if any.
pub(crate) fn custom_name<'a>(
    root: &'a Value,
    parent: &'a Value,
    prop: &str,
    format: Format,
) -> Option<&'a str> {
    match format {
        Format::Xml => opt_str(field_opt(root, parent, prop, format, "element")),
        Format::Tagged => opt_str(field_opt(root, parent, prop, format, "tag")),
        Format::Markdown => {
            opt_str(field_opt(root, parent, prop, format, "header")).map(header_text)
        }
        Format::Delimited => opt_str(field_opt(root, parent, prop, format, "name")),
        Format::Json => None,
    }
}

/// The folded names under which property `prop` may appear in `format`: its own name
/// and the custom name its options give.
pub(crate) fn field_names(root: &Value, parent: &Value, prop: &str, format: Format) -> Vec<String> {
    let mut names = vec![fold(prop)];
    if let Some(custom) = custom_name(root, parent, prop, format) {
        names.push(fold(custom));
    }
    names
}

/// The folded names of one item of array property `prop` when items appear directly
/// (repeated `<recommendation>` elements without their container).
pub(crate) fn item_names(root: &Value, parent: &Value, prop: &str, format: Format) -> Vec<String> {
    let key = match format {
        Format::Xml => "item-element",
        _ => return Vec::new(),
    };
    opt_str(field_opt(root, parent, prop, format, key))
        .map(|n| vec![fold(n)])
        .unwrap_or_default()
}

/// Whether array property `prop` is written as comma-separated values in `format`.
pub(crate) fn comma_separated(root: &Value, parent: &Value, prop: &str, format: Format) -> bool {
    opt_str(field_opt(root, parent, prop, format, "multi-value")) == Some("comma-separated")
}

/// Every name (folded) a field or item can have anywhere in the schema, for readers that
/// need to tell a field from prose (markdown's `**Field:**` lines, a delimited
/// `---END-DATE---` that is the `end_date` field). Walks the schema with an explicit
/// stack.
pub(crate) fn known_names(root: &Value) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut stack = vec![root];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    names.extend(props.keys().map(|k| fold(k)));
                }
                if let Some(Value::Object(formats)) = map.get("x-format") {
                    for block in formats.values() {
                        collect_custom_names(block, &mut names);
                    }
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    names
}

/// Custom names (`element`, `item-element`, `tag`, `header`) anywhere inside one
/// `x-format.<format>` block.
fn collect_custom_names(block: &Value, names: &mut HashSet<String>) {
    let mut stack = vec![block];
    while let Some(value) = stack.pop() {
        if let Value::Object(map) = value {
            for (key, inner) in map {
                match (key.as_str(), inner) {
                    ("element" | "item-element" | "tag", Value::String(s)) => {
                        names.insert(fold(s));
                    }
                    ("header", Value::String(s)) => {
                        names.insert(fold(header_text(s)));
                    }
                    (_, Value::Object(_)) => stack.push(inner),
                    _ => {}
                }
            }
        }
    }
}

/// Whether `schema` (through `$ref` and `Option`) describes an array.
pub(crate) fn is_array(root: &Value, schema: &Value) -> bool {
    let schema = resolve(root, schema);
    let schema = schema_walk::single_branch(root, schema).unwrap_or(schema);
    schema_walk::types_of(schema).contains(&"array")
}

/// How property `prop` of `parent` is written in `format`, as one line for a
/// suggestion: `In XML: <task>...</task>`. `depth` is how deep the parent is (markdown
/// headers of nested fields go one level deeper).
pub(crate) fn hint(
    root: &Value,
    parent: &Value,
    prop: &str,
    format: Format,
    depth: usize,
) -> String {
    let array = schema_walk::property(root, parent, prop).is_some_and(|s| is_array(root, s));
    match format {
        Format::Json => {
            let value = if array { "[...]" } else { "..." };
            format!("In JSON: \"{prop}\": {value}")
        }
        Format::Xml => xml_hint(root, parent, prop, array),
        Format::Delimited => delimited_hint(root, parent, prop, array),
        Format::Tagged => tagged_hint(root, parent, prop, array),
        Format::Markdown => markdown_hint(root, parent, prop, array, depth),
    }
}

fn xml_hint(root: &Value, parent: &Value, prop: &str, array: bool) -> String {
    let name = custom_name(root, parent, prop, Format::Xml).unwrap_or(prop);
    if field_opt(root, parent, prop, Format::Xml, "attribute").and_then(Value::as_bool)
        == Some(true)
    {
        return format!("In XML: an attribute {name}=\"...\" on the enclosing element");
    }
    if array {
        let item =
            opt_str(field_opt(root, parent, prop, Format::Xml, "item-element")).unwrap_or("item");
        return format!("In XML: <{name}><{item}>...</{item}><{item}>...</{item}></{name}>");
    }
    if field_opt(root, parent, prop, Format::Xml, "cdata").and_then(Value::as_bool) == Some(true) {
        return format!("In XML: <{name}><![CDATA[...]]></{name}>");
    }
    format!("In XML: <{name}>...</{name}>")
}

fn delimited_hint(root: &Value, parent: &Value, prop: &str, array: bool) -> String {
    let name = custom_name(root, parent, prop, Format::Delimited)
        .map(str::to_string)
        .unwrap_or_else(|| prop.to_shouty_snake_case());
    let start = opt_str(global_opt(
        root,
        parent,
        Format::Delimited,
        "section-pattern",
    ));
    let end = opt_str(global_opt(root, parent, Format::Delimited, "end-pattern"));
    let (start, end) = match (start, end) {
        (Some(s), Some(e)) => (s.to_string(), Some(e.to_string())),
        (Some(s), None) if s != "---{NAME}---" => (s.to_string(), None),
        (_, e) => (
            "---{NAME}---".to_string(),
            Some(e.unwrap_or("---END-{NAME}---").to_string()),
        ),
    };
    let body = if array {
        match opt_str(field_opt(
            root,
            parent,
            prop,
            Format::Delimited,
            "list-format",
        )) {
            Some("bullet") => "- ... (one bullet line per item)",
            Some("plain") => "... (one line per item)",
            _ => "1. ... (one numbered line per item)",
        }
    } else {
        "..."
    };
    let mut out = format!(
        "In delimited sections: {} {body}",
        start.replace("{NAME}", &name)
    );
    if let Some(end) = end {
        out.push(' ');
        out.push_str(&end.replace("{NAME}", &name));
    }
    out
}

fn tagged_hint(root: &Value, parent: &Value, prop: &str, array: bool) -> String {
    let name = custom_name(root, parent, prop, Format::Tagged)
        .map(str::to_string)
        .unwrap_or_else(
            || match opt_str(global_opt(root, parent, Format::Tagged, "tag-case")) {
                Some("lowercase") => prop.to_snake_case(),
                Some("title") => prop.to_upper_camel_case(),
                _ => prop.to_shouty_snake_case(),
            },
        );
    if !array {
        return format!("In tagged content: <{name}>...</{name}>");
    }
    if comma_separated(root, parent, prop, Format::Tagged) {
        format!("In tagged content: <{name}>first, second, ...</{name}>")
    } else {
        format!("In tagged content: <{name}>...</{name}> once per item")
    }
}

fn markdown_hint(root: &Value, parent: &Value, prop: &str, array: bool, depth: usize) -> String {
    let level = field_opt(root, parent, prop, Format::Markdown, "level")
        .and_then(Value::as_u64)
        .map_or(2 + depth, |l| l.clamp(1, 6) as usize)
        .min(6);
    let title = custom_name(root, parent, prop, Format::Markdown)
        .map(str::to_string)
        .unwrap_or_else(|| prop.to_title_case());
    let body = if array {
        match opt_str(field_opt(
            root,
            parent,
            prop,
            Format::Markdown,
            "list-style",
        )) {
            Some("ordered") => "then one `1. ...` line per item",
            _ => "then one `- ...` line per item",
        }
    } else {
        "then the value on the lines below"
    };
    format!("In markdown: {} {title}, {body}", "#".repeat(level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "task": {"type": "string"},
                "steps": {"type": "array", "items": {"type": "string"},
                          "x-format": {"tagged": {"multi-value": "comma-separated"}}},
                "meta": {"$ref": "#/$defs/Meta"}
            },
            "$defs": {"Meta": {"type": "object", "properties": {"end_date": {"type": "string"}}}},
            "x-format": {
                "xml": {"root-element": "response",
                        "properties": {"steps": {"element": "steps", "item-element": "step"}}},
                "delimited": {"section-pattern": "===={NAME}===="}
            }
        })
    }

    #[test]
    fn options_come_from_parent_and_property() {
        let s = schema();
        assert_eq!(
            field_opt(&s, &s, "steps", Format::Xml, "item-element"),
            Some(&json!("step"))
        );
        assert!(comma_separated(&s, &s, "steps", Format::Tagged));
        assert!(!comma_separated(&s, &s, "task", Format::Tagged));
        assert_eq!(item_names(&s, &s, "steps", Format::Xml), ["step"]);
    }

    #[test]
    fn known_names_cover_nested_fields_and_custom_names() {
        let names = known_names(&schema());
        for name in ["task", "steps", "step", "meta", "enddate"] {
            assert!(names.contains(name), "{name}");
        }
    }

    #[test]
    fn hints_use_the_schema_names_and_patterns() {
        let s = schema();
        assert_eq!(
            hint(&s, &s, "task", Format::Xml, 0),
            "In XML: <task>...</task>"
        );
        assert_eq!(
            hint(&s, &s, "steps", Format::Xml, 0),
            "In XML: <steps><step>...</step><step>...</step></steps>"
        );
        assert_eq!(
            hint(&s, &s, "task", Format::Delimited, 0),
            "In delimited sections: ====TASK==== ..."
        );
        assert_eq!(
            hint(&s, &s, "task", Format::Markdown, 0),
            "In markdown: ## Task, then the value on the lines below"
        );
        assert_eq!(
            hint(&s, &s, "task", Format::Tagged, 0),
            "In tagged content: <TASK>...</TASK>"
        );
    }
}
