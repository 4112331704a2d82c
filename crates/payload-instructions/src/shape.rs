//! A JSON Schema written as the value's shape, the way a person sketches JSON for a
//! colleague: `"mode": "create" | "update"`, `"reasoning"?: string`, bounds and
//! descriptions in `//` comments, `$ref`s expanded in place.
//!
//! Why not show the schema itself: a model reads a shape far more reliably than a
//! schema (it pattern-matches on the shape of what it should write), and the shape is a
//! fraction of the schema's size (see [`super::size_report`]). Nothing is lost: every
//! enum value, every required member and every bound the schema states is in the text,
//! which the tests check by walking the schema.
//!
//! The walk is recursive but bounded: at most [`MAX_EXPANSION_DEPTH`] levels of nesting and
//! [`MAX_EXPANSION_NODES`] schema nodes, and a `$ref` met again inside its own expansion (a
//! recursive type) is printed by name.
//!
//! **One description per definition.** A definition (`$defs`) referenced more than once
//! among the schemas a prompt writes ([`Definitions`]: one type's, or every type of a
//! page's) is written out once, at its first use, labelled with its name
//! (`"from":  // Unit: The unit it is in.`), and named everywhere else
//! (`"to": Unit,  // The unit wanted.`): its values, their meanings and its members are
//! stated once. A definition that reads as a bare list of values on one line
//! (`"a" | "b"`, no meanings) is cheaper written again than named, and is; so is every
//! definition when descriptions are left out (the label is a comment).

use super::InstructionOptions;
use payload_schema::formats::{integer_format, is_numeric_format};
use payload_schema::keywords;
use payload_schema::limits::{MAX_EXPANSION_DEPTH, MAX_EXPANSION_NODES, MAX_SCHEMA_DEPTH};
use serde_json::{Map, Value};

/// The widest an object or union may be to be written on one line.
const INLINE_WIDTH: usize = 64;

/// The value's shape, as compact annotated pseudo-JSON.
///
/// Members not in `required` carry a `?`; `Option<T>` reads `T | null`; enums read
/// `"a" | "b"`; tagged enums are written one variant per line, each led by `| `; a
/// recursive type is expanded once and then named. `options` decide whether bounds
/// (`include_constraints`) and doc comments (`include_descriptions`) are written; enum
/// values, required members and types always are. The root's own description is left
/// out: the caller introduces the shape with it.
pub fn render_shape(schema: &Value, options: &InstructionOptions) -> String {
    render_shape_in(schema, options, &mut Definitions::of(&[schema]))
}

/// [`render_shape`] as one of several shapes of a prompt: the definitions that
/// `definitions` counts as shared are written once across them all, at their first
/// use in any of the shapes, and named in the others (module docs).
pub fn render_shape_in(
    schema: &Value,
    options: &InstructionOptions,
    definitions: &mut Definitions,
) -> String {
    let mut renderer = Renderer::new(schema, options, std::mem::take(definitions));
    let mut rendered = renderer.render(schema, 0);
    *definitions = std::mem::take(&mut renderer.definitions);
    rendered.notes.description.clear();
    let root_comment = rendered.notes.comment();
    if let Some(first) = rendered.lines.first_mut() {
        first.comment = join_comments(&root_comment, &first.comment);
    }
    layout(&rendered.lines)
}

/// The shared definitions of the schemas one prompt writes: how often each definition
/// is referenced among them, and which are written out already. Count them once with
/// [`Definitions::of`], then pass the same value to every [`render_shape_in`] (or
/// [`super::payload_instructions_in`]) of the prompt.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    /// Each definition met, by name and content, with how many `$ref`s point at it.
    counted: Vec<(String, Value, usize)>,
    /// The names written out already.
    written: Vec<String>,
}

impl Definitions {
    /// Counts the `$ref`s of `schemas` (each resolved in its own document).
    pub fn of(schemas: &[&Value]) -> Definitions {
        let mut definitions = Definitions::default();
        for root in schemas {
            // An explicit stack, bounded like every walk of a schema.
            let mut stack: Vec<(&Value, usize)> = vec![(root, 0)];
            while let Some((node, depth)) = stack.pop() {
                if depth > MAX_SCHEMA_DEPTH {
                    continue;
                }
                match node {
                    Value::Object(map) => {
                        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                            definitions.count(root, reference);
                        }
                        stack.extend(map.values().map(|child| (child, depth + 1)));
                    }
                    Value::Array(items) => stack.extend(items.iter().map(|c| (c, depth + 1))),
                    _ => {}
                }
            }
        }
        definitions
    }

    fn count(&mut self, root: &Value, reference: &str) {
        let (Some(name), Some(target)) = (
            definition_name(reference),
            reference.strip_prefix('#').and_then(|p| root.pointer(p)),
        ) else {
            return;
        };
        match self
            .counted
            .iter_mut()
            .find(|(n, t, _)| n == name && t == target)
        {
            Some((_, _, uses)) => *uses += 1,
            None => self.counted.push((name.to_string(), target.clone(), 1)),
        }
    }

    /// Whether the definition `name` with content `target` is referenced more than once
    /// and is the only definition of that name (two different ones could not be told
    /// apart by name).
    fn shared(&self, name: &str, target: &Value) -> bool {
        let mut same_name = self.counted.iter().filter(|(n, _, _)| n == name);
        matches!((same_name.next(), same_name.next()),
            (Some((_, t, uses)), None) if *uses > 1 && t == target)
    }
}

/// The name of a local definition reference (`#/$defs/Unit`: `Unit`).
fn definition_name(reference: &str) -> Option<&str> {
    match reference.rsplit('/').next() {
        Some(name) if !name.is_empty() && name != "#" => Some(name),
        _ => None,
    }
}

/// The members of an object schema's top level, for "required fields" lists.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TopLevel {
    /// Required member names, in schema order.
    pub required: Vec<String>,
    /// Optional member names, in schema order.
    pub optional: Vec<String>,
    /// `(member, bounds)` for each member the schema bounds, in schema order.
    pub bounds: Vec<(String, String)>,
    /// For a root union: each variant's tag (`intent "search"`) and the members it
    /// requires beyond the common ones, nested ones as dotted paths
    /// (`parameters.entity_type`). Variants without a tag or without more to require
    /// are left out.
    pub variants: Vec<(String, Vec<String>)>,
}

/// The top-level members of `schema`, if its root is an object. A member every branch
/// of the root's `oneOf`/`anyOf` requires (the tag and content of a flattened tagged
/// enum) is required; the other members of the branches depend on the tag, so they are
/// left to the shape.
pub fn top_level(schema: &Value, options: &InstructionOptions) -> Option<TopLevel> {
    let root = payload_schema::walk::resolve(schema, schema);
    let own = root.get("properties").and_then(Value::as_object);
    let common = common_required(schema, root);
    if own.is_none() && common.is_empty() {
        return None;
    }
    let required = required_names(root);
    let mut renderer = Renderer::new(schema, options, Definitions::default());
    let variants = variant_requirements(schema, root, &common);
    let mut top = TopLevel {
        required: common,
        variants,
        ..TopLevel::default()
    };
    for (name, member) in own.into_iter().flatten() {
        if required.contains(&name.as_str()) {
            top.required.push(name.clone());
        } else {
            top.optional.push(name.clone());
        }
        let notes = renderer.render(member, 1).notes;
        if !notes.bounds.is_empty() {
            top.bounds.push((name.clone(), notes.bounds.join(", ")));
        }
    }
    Some(top)
}

/// How deep variant requirements follow required objects (`parameters.filters.kind`).
const VARIANT_PATH_DEPTH: usize = 3;

/// Each tagged branch of `schema`'s union with the members it requires beyond
/// `common`, see [`TopLevel::variants`].
fn variant_requirements(
    root: &Value,
    schema: &Value,
    common: &[String],
) -> Vec<(String, Vec<String>)> {
    let Some(branches) = ["oneOf", "anyOf"]
        .iter()
        .find_map(|keyword| schema.get(*keyword).and_then(Value::as_array))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for branch in branches {
        let branch = payload_schema::walk::resolve(root, branch);
        let Some(tag) = variant_tag(branch) else {
            continue;
        };
        let mut paths = Vec::new();
        required_paths(root, branch, "", VARIANT_PATH_DEPTH, &mut paths);
        paths.retain(|path| !common.contains(path) && !tag.starts_with(&format!("{path} ")));
        if !paths.is_empty() {
            out.push((tag, paths));
        }
    }
    out
}

/// `intent "search"`: the member whose value names the variant (a `const`, or an
/// `enum` of one value).
fn variant_tag(branch: &Value) -> Option<String> {
    let properties = branch.get("properties")?.as_object()?;
    properties.iter().find_map(|(name, member)| {
        let value = member.get("const").or_else(|| {
            member
                .get("enum")
                .and_then(Value::as_array)
                .filter(|values| values.len() == 1)
                .and_then(|values| values.first())
        })?;
        Some(format!("{name} {}", literal(value)))
    })
}

/// The required members of `schema` as paths under `prefix`; a required member that is
/// itself an object is replaced by its own required members, down to `depth` levels.
fn required_paths(root: &Value, schema: &Value, prefix: &str, depth: usize, out: &mut Vec<String>) {
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in required_names(schema) {
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        };
        let member = properties
            .and_then(|p| p.get(name))
            .map(|member| payload_schema::walk::resolve(root, member));
        let nested = member.filter(|m| depth > 1 && !required_names(m).is_empty());
        match nested {
            Some(member) => {
                if prefix.is_empty() {
                    out.push(path.clone());
                }
                required_paths(root, member, &path, depth - 1, out);
            }
            None => out.push(path),
        }
    }
}

/// The members every branch of `schema`'s union requires, in the first branch's order.
fn common_required(root: &Value, schema: &Value) -> Vec<String> {
    let Some(branches) = ["oneOf", "anyOf"]
        .iter()
        .find_map(|keyword| schema.get(*keyword).and_then(Value::as_array))
    else {
        return Vec::new();
    };
    let lists: Vec<Vec<&str>> = branches
        .iter()
        .map(|branch| required_names(payload_schema::walk::resolve(root, branch)))
        .collect();
    let Some((first, rest)) = lists.split_first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter(|name| rest.iter().all(|list| list.contains(name)))
        .map(|name| (*name).to_string())
        .collect()
}

/// One line of the shape before layout.
#[derive(Debug)]
struct Line {
    /// Indentation, relative to the start of the fragment it belongs to.
    depth: usize,
    text: String,
    comment: String,
}

impl Line {
    fn new(depth: usize, text: impl Into<String>) -> Self {
        Line {
            depth,
            text: text.into(),
            comment: String::new(),
        }
    }
}

/// What an enclosing member's comment says about a value.
#[derive(Debug, Default)]
struct Notes {
    /// The name of a recursive type, on its first expansion.
    label: Option<String>,
    bounds: Vec<String>,
    description: Vec<String>,
    /// `"value": description` for enum values that have one.
    values: Vec<String>,
}

impl Notes {
    fn is_empty(&self) -> bool {
        self.label.is_none()
            && self.bounds.is_empty()
            && self.description.is_empty()
            && self.values.is_empty()
    }

    /// `Label: bounds. Description. "value": meaning.`
    fn comment(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !self.bounds.is_empty() {
            parts.push(self.bounds.join(", "));
        }
        parts.extend(self.description.iter().cloned());
        parts.extend(self.values.iter().cloned());
        if let Some(label) = &self.label {
            // The name a recursive type is referred to by further down.
            let label = if parts.is_empty() {
                label.clone()
            } else {
                format!("{label}:")
            };
            parts.insert(0, label);
        }
        let mut text = String::new();
        for part in parts {
            if !text.is_empty() {
                text.push_str(if text.ends_with(['.', ':']) {
                    " "
                } else {
                    ". "
                });
            }
            text.push_str(&part);
        }
        text
    }
}

/// A value's shape: its lines (the first one is what follows `"name": `) and what the
/// member that holds it should say in its comment.
#[derive(Debug)]
struct Rendered {
    lines: Vec<Line>,
    notes: Notes,
    /// Alternatives written one per line, each led by `| `: they start on their own
    /// line, not after the member's name.
    stacked: bool,
}

impl Rendered {
    fn inline(text: impl Into<String>) -> Self {
        Rendered {
            lines: vec![Line::new(0, text)],
            notes: Notes::default(),
            stacked: false,
        }
    }

    /// Whether it says more than a bare list of values on one line: several lines, or
    /// meanings of its values (module docs: such a definition is named, not repeated).
    fn describes(&self) -> bool {
        self.lines.len() > 1 || self.stacked || !self.notes.values.is_empty()
    }

    /// One line with no comment: can sit inside `[...]` or `{ ... }` on one line.
    fn as_inline(&self) -> Option<&str> {
        match self.lines.as_slice() {
            [only] if only.comment.is_empty() && !self.stacked => Some(&only.text),
            _ => None,
        }
    }

    /// Appends `| null` (how `Option<T>` reads).
    /// The same without a trailing `| null`: an optional member may be left out, which
    /// says what `null` would (its `?` already tells the model), in fewer tokens.
    fn without_null(mut self) -> Self {
        if self.stacked {
            if self.lines.last().is_some_and(|line| line.text == "| null") {
                self.lines.pop();
            }
        } else if let Some(last) = self.lines.last_mut() {
            if let Some(kept) = last.text.strip_suffix(" | null") {
                last.text = kept.to_string();
            }
        }
        self
    }

    fn or_null(mut self) -> Self {
        if self.stacked {
            self.lines.push(Line::new(0, "| null"));
        } else if let Some(last) = self.lines.last_mut() {
            last.text.push_str(" | null");
        }
        self
    }
}

struct Renderer<'a> {
    root: &'a Value,
    options: &'a InstructionOptions,
    /// `$ref`s being expanded right now, innermost last: the cycle guard.
    expanding: Vec<&'a str>,
    /// `$ref`s met inside their own expansion, whose first expansion gets a label.
    recursive: Vec<&'a str>,
    /// `$ref`s whose enum value meanings are written already: a shared enum's values
    /// are stated at every use, their meanings at the first.
    explained: Vec<&'a str>,
    /// The prompt's shared definitions (module docs).
    definitions: Definitions,
    nodes_left: usize,
}

impl<'a> Renderer<'a> {
    fn new(root: &'a Value, options: &'a InstructionOptions, definitions: Definitions) -> Self {
        Renderer {
            root,
            options,
            expanding: Vec::new(),
            recursive: Vec::new(),
            explained: Vec::new(),
            definitions,
            nodes_left: MAX_EXPANSION_NODES,
        }
    }

    fn render(&mut self, schema: &'a Value, depth: usize) -> Rendered {
        if depth > MAX_EXPANSION_DEPTH || self.nodes_left == 0 {
            let mut cut = Rendered::inline("any");
            cut.notes.description.push("nested too deep to show".into());
            return cut;
        }
        self.nodes_left -= 1;
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(false) => return Rendered::inline("never"),
            _ => return Rendered::inline("any"),
        };
        let mut rendered = match map.get("$ref").and_then(Value::as_str) {
            Some(reference) => self.render_ref(reference, depth),
            None => self.render_body(map, depth),
        };
        self.add_notes(map, &mut rendered.notes);
        rendered
    }

    fn render_ref(&mut self, reference: &'a str, depth: usize) -> Rendered {
        let name = match reference.rsplit('/').next() {
            Some(name) if !name.is_empty() && name != "#" => name,
            _ => "Root",
        };
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| self.root.pointer(pointer));
        let Some(target) = target else {
            return Rendered::inline(name);
        };
        if self.expanding.contains(&reference) {
            if !self.recursive.contains(&reference) {
                self.recursive.push(reference);
            }
            return Rendered::inline(name);
        }
        // Naming needs the label's comment: without descriptions, everything is written
        // in full (and no comment at all).
        let shared = self.options.include_descriptions && self.definitions.shared(name, target);
        if shared && self.definitions.written.iter().any(|w| w == name) {
            return Rendered::inline(name);
        }
        self.expanding.push(reference);
        let mut rendered = self.render(target, depth + 1);
        self.expanding.pop();
        if self.recursive.contains(&reference) {
            rendered.notes.label = Some(name.to_string());
        }
        if shared && rendered.describes() {
            rendered.notes.label = Some(name.to_string());
            self.definitions.written.push(name.to_string());
        }
        if !rendered.notes.values.is_empty() {
            if self.explained.contains(&reference) {
                rendered.notes.values.clear();
            } else {
                self.explained.push(reference);
            }
        }
        rendered
    }

    fn render_body(&mut self, map: &'a Map<String, Value>, depth: usize) -> Rendered {
        if let Some(value) = map.get("const") {
            return Rendered::inline(literal(value));
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            let texts: Vec<String> = values.iter().map(literal).collect();
            return Rendered::inline(texts.join(" | "));
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(branches) = map.get(keyword).and_then(Value::as_array) {
                let alternatives = self.render_alternatives(branches, " | ", depth);
                // Members beside the union (a flattened enum's shared fields) belong to
                // every variant: say so once after the variants, with their types.
                return match map.get("properties") {
                    Some(Value::Object(shared)) if !shared.is_empty() => {
                        let shared = self.render_object(map, depth);
                        with_shared_members(alternatives, shared)
                    }
                    _ => alternatives,
                };
            }
        }
        if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
            return self.render_alternatives(parts, " & ", depth);
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let nullable = types.contains(&"null") && types.len() > 1;
        let concrete: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        let looks_like_object = map.contains_key("properties")
            || map
                .get("additionalProperties")
                .is_some_and(Value::is_object);
        let looks_like_array = map.contains_key("items") || map.contains_key("prefixItems");
        let base = match concrete.as_slice() {
            ["object"] => self.render_object(map, depth),
            ["array"] => self.render_array(map, depth),
            [] if types.len() == 1 => Rendered::inline("null"),
            [] if looks_like_object => self.render_object(map, depth),
            [] if looks_like_array => self.render_array(map, depth),
            [] => Rendered::inline("any"),
            many => Rendered::inline(many.join(" | ")),
        };
        if nullable { base.or_null() } else { base }
    }

    /// `anyOf`/`oneOf` (joined by `|`) or `allOf` (joined by `&`). A lone non-null
    /// branch beside `null` is `Option<T>`: `T | null`. Scalars join on one line; objects
    /// (tagged enum variants) go one per line, each led by the joiner.
    fn render_alternatives(
        &mut self,
        branches: &'a [Value],
        joiner: &str,
        depth: usize,
    ) -> Rendered {
        let is_union = joiner == " | ";
        let mut has_null = false;
        let mut rendered = Vec::with_capacity(branches.len());
        let mut examples = Vec::with_capacity(branches.len());
        for branch in branches {
            let resolved = payload_schema::walk::resolve(self.root, branch);
            if is_union && is_null_schema(resolved) {
                has_null = true;
                continue;
            }
            rendered.push(self.render(branch, depth + 1));
            examples.push(self.variant_example(branch, resolved));
        }
        if rendered.len() == 1 {
            let only = rendered.pop().unwrap_or_else(|| Rendered::inline("any"));
            return if has_null { only.or_null() } else { only };
        }
        if rendered.is_empty() {
            return Rendered::inline(if has_null { "null" } else { "any" });
        }
        if let Some(joined) = self.join_inline(&rendered, joiner) {
            let mut line = Rendered::inline(joined);
            for branch in rendered {
                line.notes.values.extend(branch.notes.values);
                if let (Some(text), false) =
                    (branch.lines.first(), branch.notes.description.is_empty())
                {
                    let meaning = branch.notes.description.join(" ");
                    line.notes.values.push(format!("{}: {meaning}", text.text));
                }
            }
            return if has_null { line.or_null() } else { line };
        }
        let lead = joiner.trim_start();
        let mut lines = Vec::new();
        for (branch, example) in rendered.into_iter().zip(examples) {
            let comment = branch.notes.comment();
            for (index, mut line) in branch.lines.into_iter().enumerate() {
                if index == 0 {
                    if branch.stacked {
                        // A union inside a union: its own leads already say `|`.
                        line.depth += 1;
                    } else {
                        line.text = format!("{lead}{}", line.text);
                    }
                    line.comment = join_comments(&comment, &line.comment);
                } else {
                    line.depth += 1;
                }
                lines.push(line);
            }
            if let Some(example) = example {
                lines.push(Line::new(1, format!("// e.g. {example}")));
            }
        }
        let mut stacked = Rendered {
            lines,
            notes: Notes::default(),
            stacked: true,
        };
        if has_null {
            stacked = stacked.or_null();
        }
        stacked
    }

    /// A variant's first `examples` entry as compact JSON (`#[schemars(example = ...)]`
    /// on the variant), shown under it when examples are asked for: one example per
    /// intent teaches the tag and the content together.
    fn variant_example(&self, branch: &Value, resolved: &Value) -> Option<String> {
        if !(self.options.include_example && self.options.detailed()) {
            return None;
        }
        let first = branch
            .get("examples")
            .or_else(|| resolved.get("examples"))
            .and_then(Value::as_array)
            .and_then(|examples| examples.first())?;
        one_line_json(first)
    }

    /// The branches on one line, if they are all short scalars without bounds.
    fn join_inline(&self, branches: &[Rendered], joiner: &str) -> Option<String> {
        let mut texts = Vec::with_capacity(branches.len());
        for branch in branches {
            let text = branch.as_inline()?;
            if text.starts_with('{') || !branch.notes.bounds.is_empty() {
                return None;
            }
            texts.push(text);
        }
        let joined = texts.join(joiner);
        (joined.chars().count() <= INLINE_WIDTH).then_some(joined)
    }

    fn render_object(&mut self, map: &'a Map<String, Value>, depth: usize) -> Rendered {
        let required = required_names_of(map);
        let mut members: Vec<(String, Rendered)> = Vec::new();
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            for (name, member) in properties {
                let optional = if required.contains(&name.as_str()) {
                    ""
                } else {
                    "?"
                };
                let key = format!("{}{optional}:", literal(&Value::String(name.clone())));
                let value = self.render(member, depth + 1);
                let value = if optional.is_empty() {
                    value
                } else {
                    value.without_null()
                };
                members.push((key, value));
            }
        }
        let open_map = match map.get("additionalProperties") {
            Some(extra @ Value::Object(_)) if members.is_empty() => Some(extra),
            _ => None,
        };
        if let Some(extra) = open_map {
            members.push(("\"<key>\":".into(), self.render(extra, depth + 1)));
        }
        if members.is_empty() {
            return Rendered::inline("object");
        }
        let etc = if open_map.is_some() { ", ..." } else { "" };
        let inline: Option<Vec<String>> = members
            .iter()
            .map(|(key, value)| {
                let text = value.as_inline()?;
                value.notes.is_empty().then(|| format!("{key} {text}"))
            })
            .collect();
        if let Some(parts) = inline {
            let text = format!("{{ {}{etc} }}", parts.join(", "));
            if text.chars().count() <= INLINE_WIDTH {
                return Rendered::inline(text);
            }
        }
        let mut lines = vec![Line::new(0, "{")];
        let count = members.len();
        for (index, (key, value)) in members.into_iter().enumerate() {
            let comment = value.notes.comment();
            if value.stacked {
                let mut head = Line::new(1, key);
                head.comment = comment;
                lines.push(head);
                lines.extend(value.lines.into_iter().map(|mut line| {
                    line.depth += 2;
                    line
                }));
            } else {
                for (position, mut line) in value.lines.into_iter().enumerate() {
                    if position == 0 {
                        line.text = format!("{key} {}", line.text);
                        line.comment = join_comments(&comment, &line.comment);
                    }
                    line.depth += 1;
                    lines.push(line);
                }
            }
            if index + 1 < count || open_map.is_some() {
                if let Some(last) = lines.last_mut() {
                    last.text.push(',');
                }
            }
        }
        if open_map.is_some() {
            lines.push(Line::new(1, "..."));
        }
        lines.push(Line::new(0, "}"));
        Rendered {
            lines,
            notes: Notes::default(),
            stacked: false,
        }
    }

    fn render_array(&mut self, map: &'a Map<String, Value>, depth: usize) -> Rendered {
        if let Some(prefix) = map.get("prefixItems").and_then(Value::as_array) {
            return self.render_tuple(prefix, depth);
        }
        let item = match map.get("items") {
            Some(items @ Value::Object(_)) => self.render(items, depth + 1),
            _ => Rendered::inline("any"),
        };
        let mut notes = Notes::default();
        if !item.notes.bounds.is_empty() {
            notes
                .bounds
                .push(format!("each item: {}", item.notes.bounds.join(", ")));
        }
        let Rendered {
            lines: item_lines,
            notes: item_notes,
            stacked,
        } = item;
        notes.label = item_notes.label;
        notes.description = item_notes.description;
        notes.values = item_notes.values;
        let lines = match item_lines.as_slice() {
            [only] if only.comment.is_empty() && !stacked => {
                vec![Line::new(0, format!("[{}]", only.text))]
            }
            _ => {
                let mut lines = vec![Line::new(0, "[")];
                lines.extend(item_lines.into_iter().map(|mut line| {
                    line.depth += 1;
                    line
                }));
                lines.push(Line::new(0, "]"));
                lines
            }
        };
        Rendered {
            lines,
            notes,
            stacked: false,
        }
    }

    /// `[A, B]` for a fixed-length tuple.
    fn render_tuple(&mut self, prefix: &'a [Value], depth: usize) -> Rendered {
        let items: Vec<Rendered> = prefix.iter().map(|s| self.render(s, depth + 1)).collect();
        let inline: Option<Vec<&str>> = items
            .iter()
            .map(|item| item.as_inline().filter(|_| item.notes.is_empty()))
            .collect();
        if let Some(texts) = inline {
            return Rendered::inline(format!("[{}]", texts.join(", ")));
        }
        let mut lines = vec![Line::new(0, "[")];
        let count = items.len();
        for (index, item) in items.into_iter().enumerate() {
            let comment = item.notes.comment();
            let start = lines.len();
            for (position, mut line) in item.lines.into_iter().enumerate() {
                if position == 0 {
                    line.comment = join_comments(&comment, &line.comment);
                }
                line.depth += 1;
                lines.push(line);
            }
            if index + 1 < count && lines.len() > start {
                if let Some(last) = lines.last_mut() {
                    last.text.push(',');
                }
            }
        }
        lines.push(Line::new(0, "]"));
        Rendered {
            lines,
            notes: Notes::default(),
            stacked: false,
        }
    }

    /// Bounds and description of one schema node, in the order a reader wants them.
    fn add_notes(&self, map: &Map<String, Value>, notes: &mut Notes) {
        if self.options.include_constraints {
            // A node's own bounds come before those of what it contains.
            notes.bounds.splice(0..0, bounds_of(map));
        }
        if self.options.include_descriptions {
            if let Some(text) = map.get("description").and_then(Value::as_str) {
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                if !text.is_empty() {
                    // A member's own doc comment says more than its type's.
                    notes.description = vec![text];
                }
            }
        }
    }
}

/// Every bound a schema node states, in words.
fn bounds_of(map: &Map<String, Value>) -> Vec<String> {
    let mut bounds = Vec::new();
    // A bound that only restates the Rust integer type's width (0 for unsigned, 255
    // for a u8) tells a model nothing it needs; a bound the type's author chose does.
    let natural = natural_range(map);
    let get = |key: &str| {
        map.get(key)
            .filter(|v| v.is_number())
            .filter(|v| match key {
                "minimum" => natural.0.is_none_or(|low| v.as_f64() != Some(low)),
                "maximum" => natural.1.is_none_or(|high| v.as_f64() != Some(high)),
                _ => true,
            })
    };
    match (get("minimum"), get("maximum")) {
        (Some(low), Some(high)) if low == high => bounds.push(format!("exactly {low}")),
        (Some(low), Some(high)) => bounds.push(format!("from {low} to {high}")),
        (Some(low), None) => bounds.push(format!("at least {low}")),
        (None, Some(high)) => bounds.push(format!("at most {high}")),
        (None, None) => {}
    }
    if let Some(low) = get("exclusiveMinimum") {
        bounds.push(format!("greater than {low}"));
    }
    if let Some(high) = get("exclusiveMaximum") {
        bounds.push(format!("less than {high}"));
    }
    if let Some(step) = get("multipleOf") {
        bounds.push(format!("a multiple of {step}"));
    }
    for (low, high, unit) in keywords::count_bounds() {
        if let Some(text) = count_bound(get(low), get(high), unit) {
            bounds.push(text);
        }
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        bounds.push("no duplicates".into());
    }
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        bounds.push(format!("matching {pattern}"));
    }
    if let Some(format) = map.get("format").and_then(Value::as_str) {
        if !is_numeric_format(format) {
            bounds.push(format_hint(format));
        }
    }
    // Defaults are not written: what the app does when a member is left out is not the
    // model's business (the `?` already says it may be), and a default beside a bound
    // ("at least 1 item, default []") reads as a contradiction.
    bounds
}

/// The range of the Rust integer type a schemars `format` names (`uint8`: 0 to 255;
/// `uint64`: from 0), as the minimum and maximum schemars writes for it: a bound is
/// stated only when a float holds it exactly as an integer (within 2^53), so the
/// 64-bit and wider ends are left unsaid.
pub(crate) fn natural_range(map: &Map<String, Value>) -> (Option<f64>, Option<f64>) {
    const EXACT: i128 = 1 << 53;
    let Some(format) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_format)
    else {
        return (None, None);
    };
    let low = (format.min >= -EXACT).then_some(format.min as f64);
    let high = (format.max <= EXACT as u128).then_some(format.max as f64);
    (low, high)
}

/// `1 to 5 items`, `at least 1 item`, `exactly 3 characters`.
fn count_bound(low: Option<&Value>, high: Option<&Value>, unit: &str) -> Option<String> {
    let plural = |n: &Value| {
        if n.as_u64() == Some(1) {
            unit.to_string()
        } else {
            format!("{unit}s")
        }
    };
    Some(match (low, high) {
        (Some(low), Some(high)) if low == high => format!("exactly {low} {}", plural(low)),
        (Some(low), Some(high)) => format!("{low} to {high} {}", plural(high)),
        // The most common bound of all (`min_length = 1`, a non-empty list), in the
        // fewest words.
        (Some(low), None) if low.as_u64() == Some(1) => "non-empty".to_string(),
        (Some(low), None) => format!("at least {low} {}", plural(low)),
        (None, Some(high)) => format!("at most {high} {}", plural(high)),
        (None, None) => return None,
    })
}

/// `format date (YYYY-MM-DD)`: the format's name, and for the common ones what it
/// looks like, since a model writes dates in many ways.
fn format_hint(format: &str) -> String {
    let looks = match format {
        "date" => " (YYYY-MM-DD)",
        "date-time" => " (RFC 3339, e.g. 2024-03-15T09:30:00Z)",
        "time" => " (HH:MM:SS)",
        "uri" | "url" => " (absolute URL)",
        "uuid" => " (e.g. 123e4567-e89b-12d3-a456-426614174000)",
        _ => "",
    };
    format!("format {format}{looks}")
}

/// A union's variants followed by the members every variant also has:
/// `& { ... }  // every variant also has these`.
fn with_shared_members(alternatives: Rendered, shared: Rendered) -> Rendered {
    let mut lines = alternatives.lines;
    for (index, mut line) in shared.lines.into_iter().enumerate() {
        if index == 0 {
            line.text = format!("& {}", line.text);
            line.comment = join_comments("every variant also has these", &line.comment);
        }
        lines.push(line);
    }
    Rendered {
        lines,
        notes: alternatives.notes,
        stacked: true,
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .as_object()
        .map(required_names_of)
        .unwrap_or_default()
}

fn required_names_of(map: &Map<String, Value>) -> Vec<&str> {
    map.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// JSON on one line with a space after every `:` and `,`, the way a person writes it
/// in a prompt.
fn one_line_json(value: &Value) -> Option<String> {
    use serde::Serialize;
    use serde_json::ser::Formatter;
    use std::io::{self, Write};

    struct Spaced;
    impl Formatter for Spaced {
        fn begin_array_value<W: ?Sized + Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Spaced);
    value.serialize(&mut serializer).ok()?;
    String::from_utf8(out).ok()
}

/// A JSON value as it is written in JSON (`"create"`, `0.5`, `null`).
fn literal(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

fn join_comments(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (_, true) => first.to_string(),
        _ => format!("{first}. {second}"),
    }
}

/// Indents the lines and starts every comment in one column.
fn layout(lines: &[Line]) -> String {
    let mut out = String::new();
    for line in lines {
        for _ in 0..line.depth {
            out.push_str("  ");
        }
        out.push_str(&line.text);
        if !line.comment.is_empty() {
            // Two spaces, not a shared column: padding every line to align comments
            // costs a model as many tokens as the comments themselves.
            out.push_str("  // ");
            out.push_str(&line.comment);
        }
        out.push('\n');
    }
    if out.ends_with('\n') {
        out.pop();
    }
    out
}
