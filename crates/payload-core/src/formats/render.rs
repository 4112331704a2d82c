//! Values written in a text format: the inverse of the readers, used to show a model
//! the type's example (and the bare structure) in the format it is asked to answer in.
//!
//! The layout is the one the output-schema app shows for each format, with the names, patterns and
//! styles of the schema's `x-format` (see [`super`]): XML with a root element, an
//! element per field and an item element per array item; `---NAME---` sections with
//! numbered, bullet or plain lists; `<NAME>` tags repeated once per array item; `##`
//! headers with lists. Whatever is written here, the reader of the same format reads
//! back to the same value (the round-trip tests hold them together).
//!
//! Not every shape has a faithful spelling in every format: a map with free keys, a
//! choice between object shapes, an array of arrays, or (in delimited sections and
//! markdown) an array of objects. [`expressible`] says which, and why; [`render`] on
//! such a value still writes something, but the reader will not give it back.
//!
//! Written by hand because it must mirror our own readers, names and `x-format`
//! options; no general serializer knows them. Nesting is bounded by [`MAX_EXPANSION_DEPTH`].

use super::Format;
use super::options::{custom_name, field_opt, global_opt, opt_str};
use heck::{ToShoutySnakeCase, ToSnakeCase, ToTitleCase, ToUpperCamelCase};
use payload_schema::walk::{self as schema_walk, enum_values, resolve, single_branch, types_of};
use serde_json::{Map, Value};
use std::fmt::Write;

use payload_schema::limits::{MAX_EXPANSION_DEPTH, MAX_EXPANSION_NODES};

/// The XML root element when the schema names none (the output-schema app's `response`).
pub const DEFAULT_ROOT: &str = "response";
/// The XML item element when the schema names none.
pub const DEFAULT_ITEM: &str = "item";

/// What a schema holds, as far as the text formats are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar,
    Object,
    ScalarList,
    ObjectList,
}

/// The kind of `schema`, or why no text format can write it.
fn kind(root: &Value, schema: &Value, in_array: bool) -> Result<Kind, String> {
    let schema = resolve(root, schema);
    let schema = single_branch(root, schema)
        .map(|b| resolve(root, b))
        .unwrap_or(schema);
    if let Some(values) = enum_values(root, schema) {
        return if values.iter().all(|v| !v.is_object() && !v.is_array()) {
            Ok(Kind::Scalar)
        } else {
            Err("an enum of structured values".into())
        };
    }
    if schema.get("const").is_some() {
        return Ok(Kind::Scalar);
    }
    let types: Vec<&str> = types_of(schema)
        .into_iter()
        .filter(|t| *t != "null")
        .collect();
    match types.as_slice() {
        ["object"] if schema.get("anyOf").is_some() || schema.get("oneOf").is_some() => {
            Err("a choice between several shapes".into())
        }
        ["object"] => {
            let has_props = schema
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty());
            if has_props {
                Ok(Kind::Object)
            } else {
                Err("a map with free-form keys".into())
            }
        }
        ["array"] => {
            if in_array {
                return Err("an array of arrays".into());
            }
            let Some(items) = schema.get("items").filter(|i| i.is_object()) else {
                return Err("an array without one item type".into());
            };
            match kind(root, items, true)? {
                Kind::Scalar => Ok(Kind::ScalarList),
                Kind::Object => Ok(Kind::ObjectList),
                _ => Err("an array of arrays".into()),
            }
        }
        [] if schema.get("anyOf").is_some() || schema.get("oneOf").is_some() => {
            Err("a choice between several shapes".into())
        }
        [] => Err("a value of any type".into()),
        many if many.iter().all(|t| !matches!(*t, "object" | "array")) => Ok(Kind::Scalar),
        _ => Err("a value that is either structured or not".into()),
    }
}

/// Why a type cannot be written in a format and read back the same: which field and
/// why, in one sentence (`field 'rows' is an array of objects, which delimited sections
/// cannot write`). Its `Display` is that sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inexpressible {
    reason: String,
}

impl Inexpressible {
    /// The sentence: which field cannot be written, and why.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl std::fmt::Display for Inexpressible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Inexpressible {}

/// Whether every value of `schema` can be written in `format` and read back the same,
/// or which field cannot and why. JSON can write everything.
pub fn expressible(format: Format, schema: &Value) -> Result<(), Inexpressible> {
    first_unwritable(format, schema).map_err(|reason| Inexpressible { reason })
}

/// The reason of [`expressible`], as the walk finds it.
fn first_unwritable(format: Format, schema: &Value) -> Result<(), String> {
    if format == Format::Json {
        return Ok(());
    }
    if kind(schema, schema, false)? != Kind::Object {
        return Err("the top level is not an object with fields".into());
    }
    let mut stack: Vec<(&Value, String, usize)> = vec![(resolve(schema, schema), String::new(), 0)];
    let mut visited = 0;
    while let Some((object, path, depth)) = stack.pop() {
        visited += 1;
        if visited > MAX_EXPANSION_NODES || depth > MAX_EXPANSION_DEPTH {
            return Err("the type nests too deeply (a recursive type?)".into());
        }
        let object = single_branch(schema, object).unwrap_or(object);
        let Some(props) = resolve(schema, object)
            .get("properties")
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (prop, prop_schema) in props {
            let field = if path.is_empty() {
                prop.clone()
            } else {
                format!("{path}.{prop}")
            };
            let why = |reason: String| format!("field '{field}' is {reason}");
            match kind(schema, prop_schema, false).map_err(why)? {
                Kind::Scalar | Kind::ScalarList => {}
                Kind::Object => stack.push((resolve(schema, prop_schema), field, depth + 1)),
                Kind::ObjectList => {
                    if matches!(format, Format::Delimited | Format::Markdown) {
                        return Err(format!(
                            "field '{field}' is an array of objects, which {} cannot write",
                            format.label()
                        ));
                    }
                    if let Some(item) = schema_walk::item(schema, prop_schema, 0) {
                        stack.push((item, field, depth + 1));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Writes `value` (a value of `schema`) in `format`, with the names and styles of the
/// schema's `x-format`. Optional members that are `null` are left out (an absent
/// optional field reads back as the same `None`); required ones are written `null`.
pub fn render(format: Format, value: &Value, schema: &Value) -> String {
    let mut out = String::new();
    let Some(map) = value.as_object() else {
        return serde_json::to_string_pretty(value).unwrap_or_default();
    };
    match format {
        Format::Json => return serde_json::to_string_pretty(value).unwrap_or_default(),
        Format::Xml => {
            let root = xml_root(schema);
            Xml { root: schema }.element(&mut out, root, schema, value, DEFAULT_ITEM, false, 0);
        }
        Format::Delimited => Delimited::new(schema).sections(&mut out, schema, map, 0),
        Format::Tagged => tagged(&mut out, schema, schema, map, 0),
        Format::Markdown => markdown(&mut out, schema, schema, map, 0),
    }
    let end = out.trim_end().len();
    out.truncate(end);
    out
}

/// The XML root element's name: the schema's `root-element`, else `response`.
pub fn xml_root(schema: &Value) -> &str {
    opt_str(global_opt(schema, schema, Format::Xml, "root-element")).unwrap_or(DEFAULT_ROOT)
}

/// The members of `map` to write, in the order of the schema's properties (the order
/// the reader's errors and the instructions use); a `null` is left out unless the
/// member is required, when it is written as `null`.
fn members<'a>(
    root: &'a Value,
    schema: &'a Value,
    map: &'a Map<String, Value>,
) -> Vec<(&'a str, &'a Value, &'a Value)> {
    let schema = resolve(root, schema);
    let schema = single_branch(root, schema).unwrap_or(schema);
    let Some(props) = resolve(root, schema)
        .get("properties")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let schema = resolve(root, schema);
    let required = |prop: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n == prop))
    };
    props
        .iter()
        .filter_map(|(prop, prop_schema)| {
            map.get(prop)
                .filter(|v| !v.is_null() || required(prop))
                .map(|v| (prop.as_str(), prop_schema, v))
        })
        .collect()
}

/// The object schema `schema` is or wraps (through `$ref` and `Option`).
fn object_schema<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let schema = resolve(root, schema);
    resolve(root, single_branch(root, schema).unwrap_or(schema))
}

/// A scalar as text: strings as they are, everything else as JSON.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Escapes text for XML content (and tagged content, which the same reader reads).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

struct Xml<'a> {
    root: &'a Value,
}

impl Xml<'_> {
    /// Writes one element: `name` holding `value` of `schema`; `item` names the items
    /// if it is an array.
    #[allow(clippy::too_many_arguments)]
    fn element(
        &self,
        out: &mut String,
        name: &str,
        schema: &Value,
        value: &Value,
        item: &str,
        cdata: bool,
        indent: usize,
    ) {
        let pad = "  ".repeat(indent);
        match value {
            _ if indent > MAX_EXPANSION_DEPTH => {
                let _ = writeln!(out, "{pad}<{name}>{}</{name}>", escape(&value.to_string()));
            }
            Value::Object(map) => {
                let object = object_schema(self.root, schema);
                let mut attrs = String::new();
                let mut children = Vec::new();
                for (prop, prop_schema, v) in members(self.root, object, map) {
                    let as_attr = field_opt(self.root, object, prop, Format::Xml, "attribute")
                        .and_then(Value::as_bool)
                        == Some(true);
                    let child = custom_name(self.root, object, prop, Format::Xml).unwrap_or(prop);
                    if as_attr && !v.is_object() && !v.is_array() {
                        let text = escape(&scalar_text(v)).replace('"', "&quot;");
                        let _ = write!(attrs, " {child}=\"{text}\"");
                    } else {
                        children.push((prop, child, prop_schema, v));
                    }
                }
                let _ = writeln!(out, "{pad}<{name}{attrs}>");
                for (prop, child, prop_schema, v) in children {
                    let item = opt_str(field_opt(
                        self.root,
                        object,
                        prop,
                        Format::Xml,
                        "item-element",
                    ))
                    .unwrap_or(DEFAULT_ITEM);
                    let cdata = field_opt(self.root, object, prop, Format::Xml, "cdata")
                        .and_then(Value::as_bool)
                        == Some(true);
                    self.element(out, child, prop_schema, v, item, cdata, indent + 1);
                }
                let _ = writeln!(out, "{pad}</{name}>");
            }
            Value::Array(items) if items.is_empty() => {
                let _ = writeln!(out, "{pad}<{name}></{name}>");
            }
            Value::Array(items) => {
                let _ = writeln!(out, "{pad}<{name}>");
                let any = Value::Bool(true);
                for (index, it) in items.iter().enumerate() {
                    let item_schema = schema_walk::item(self.root, schema, index).unwrap_or(&any);
                    self.element(out, item, item_schema, it, DEFAULT_ITEM, false, indent + 1);
                }
                let _ = writeln!(out, "{pad}</{name}>");
            }
            scalar => {
                let text = scalar_text(scalar);
                if cdata && !text.contains("]]>") {
                    let _ = writeln!(out, "{pad}<{name}><![CDATA[{text}]]></{name}>");
                } else {
                    let _ = writeln!(out, "{pad}<{name}>{}</{name}>", escape(&text));
                }
            }
        }
    }
}

/// The delimiter patterns of a schema.
struct Delimited<'a> {
    root: &'a Value,
    start: String,
    end: Option<String>,
    object_end: String,
}

impl<'a> Delimited<'a> {
    fn new(root: &'a Value) -> Self {
        let start = opt_str(global_opt(root, root, Format::Delimited, "section-pattern"))
            .filter(|p| p.contains("{NAME}"));
        let end = opt_str(global_opt(root, root, Format::Delimited, "end-pattern"))
            .filter(|p| p.contains("{NAME}"));
        let (start, end) = match (start, end) {
            (Some(s), e) => (s.to_string(), e.map(str::to_string)),
            (None, e) => (
                "---{NAME}---".to_string(),
                Some(e.unwrap_or("---END-{NAME}---").to_string()),
            ),
        };
        // A section holding sections needs an end line whatever the schema says: it is
        // what tells the reader where the nested fields stop.
        let object_end = end
            .clone()
            .unwrap_or_else(|| start.replacen("{NAME}", "END-{NAME}", 1));
        Delimited {
            root,
            start,
            end,
            object_end,
        }
    }

    fn sections(&self, out: &mut String, schema: &Value, map: &Map<String, Value>, depth: usize) {
        let object = object_schema(self.root, schema);
        for (prop, prop_schema, value) in members(self.root, object, map) {
            let name = custom_name(self.root, object, prop, Format::Delimited)
                .map(str::to_string)
                .unwrap_or_else(|| prop.to_shouty_snake_case());
            let _ = writeln!(out, "{}", self.start.replace("{NAME}", &name));
            match value {
                Value::Object(inner) if depth < MAX_EXPANSION_DEPTH => {
                    self.sections(out, prop_schema, inner, depth + 1);
                    let _ = writeln!(out, "{}", self.object_end.replace("{NAME}", &name));
                    out.push('\n');
                    continue;
                }
                Value::Array(items) => {
                    let style = opt_str(field_opt(
                        self.root,
                        object,
                        prop,
                        Format::Delimited,
                        "list-format",
                    ));
                    let prefix = opt_str(field_opt(
                        self.root,
                        object,
                        prop,
                        Format::Delimited,
                        "item-prefix",
                    ));
                    for (index, item) in items.iter().enumerate() {
                        let text = scalar_text(item);
                        let _ = match (style, prefix) {
                            (Some("plain"), _) => writeln!(out, "{text}"),
                            (Some("bullet"), Some(p)) => writeln!(out, "{} {text}", p.trim_end()),
                            (Some("bullet"), None) => writeln!(out, "- {text}"),
                            _ => writeln!(out, "{}. {text}", index + 1),
                        };
                    }
                }
                other => {
                    let _ = writeln!(out, "{}", scalar_text(other));
                }
            }
            if let Some(end) = &self.end {
                let _ = writeln!(out, "{}", end.replace("{NAME}", &name));
            }
            out.push('\n');
        }
    }
}

/// The tag of property `prop` of `parent`: its `tag` option, else its name in the
/// schema's `tag-case` (uppercase unless told otherwise).
fn tag_name(root: &Value, parent: &Value, prop: &str) -> String {
    if let Some(custom) = custom_name(root, parent, prop, Format::Tagged) {
        return custom.to_string();
    }
    match opt_str(global_opt(root, parent, Format::Tagged, "tag-case")) {
        Some("lowercase") => prop.to_snake_case(),
        Some("title") => prop.to_upper_camel_case(),
        _ => prop.to_shouty_snake_case(),
    }
}

fn tagged(out: &mut String, root: &Value, schema: &Value, map: &Map<String, Value>, depth: usize) {
    let object = object_schema(root, schema);
    for (prop, prop_schema, value) in members(root, object, map) {
        let tag = tag_name(root, object, prop);
        match value {
            Value::Object(inner) if depth < MAX_EXPANSION_DEPTH => {
                let _ = writeln!(out, "<{tag}>");
                tagged(out, root, prop_schema, inner, depth + 1);
                let _ = writeln!(out, "</{tag}>");
            }
            Value::Array(items) if items.is_empty() => {
                let _ = writeln!(out, "<{tag}></{tag}>");
            }
            Value::Array(items)
                if super::options::comma_separated(root, object, prop, Format::Tagged) =>
            {
                let texts: Vec<String> = items.iter().map(|i| escape(&scalar_text(i))).collect();
                let _ = writeln!(out, "<{tag}>{}</{tag}>", texts.join(", "));
            }
            Value::Array(items) => {
                let any = Value::Bool(true);
                for (index, item) in items.iter().enumerate() {
                    match item {
                        Value::Object(inner) if depth < MAX_EXPANSION_DEPTH => {
                            let item_schema =
                                schema_walk::item(root, prop_schema, index).unwrap_or(&any);
                            let _ = writeln!(out, "<{tag}>");
                            tagged(out, root, item_schema, inner, depth + 1);
                            let _ = writeln!(out, "</{tag}>");
                        }
                        other => {
                            let _ = writeln!(out, "<{tag}>{}</{tag}>", escape(&scalar_text(other)));
                        }
                    }
                }
            }
            other => {
                let _ = writeln!(out, "<{tag}>{}</{tag}>", escape(&scalar_text(other)));
            }
        }
    }
}

fn markdown(
    out: &mut String,
    root: &Value,
    schema: &Value,
    map: &Map<String, Value>,
    depth: usize,
) {
    let object = object_schema(root, schema);
    for (prop, prop_schema, value) in members(root, object, map) {
        let level = field_opt(root, object, prop, Format::Markdown, "level")
            .and_then(Value::as_u64)
            .map_or(2 + depth, |l| l.clamp(1, 6) as usize)
            .min(6);
        let title = custom_name(root, object, prop, Format::Markdown)
            .map(str::to_string)
            .unwrap_or_else(|| prop.to_title_case());
        let _ = writeln!(out, "{} {title}", "#".repeat(level));
        match value {
            Value::Object(inner) if depth < MAX_EXPANSION_DEPTH => {
                out.push('\n');
                markdown(out, root, prop_schema, inner, depth + 1);
                continue;
            }
            Value::Array(items) => {
                let ordered = opt_str(field_opt(
                    root,
                    object,
                    prop,
                    Format::Markdown,
                    "list-style",
                )) == Some("ordered");
                for (index, item) in items.iter().enumerate() {
                    let text = scalar_text(item);
                    let _ = if ordered {
                        writeln!(out, "{}. {text}", index + 1)
                    } else {
                        writeln!(out, "- {text}")
                    };
                }
            }
            other => {
                let fence = opt_str(field_opt(
                    root,
                    object,
                    prop,
                    Format::Markdown,
                    "code-fence",
                ))
                .map(str::to_string)
                .or_else(|| {
                    (field_opt(root, object, prop, Format::Markdown, "code-block")
                        .and_then(Value::as_bool)
                        == Some(true))
                    .then(String::new)
                });
                match fence {
                    Some(lang) => {
                        let _ = writeln!(out, "```{lang}\n{}\n```", scalar_text(other));
                    }
                    None => {
                        let _ = writeln!(out, "{}", scalar_text(other));
                    }
                }
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests;
