//! From the tree a reader found to a value of the schema's types.
//!
//! Everything a reader finds is text; the schema says what it should be. Conversions
//! are the ones a person would make without guessing: `0.85` is a number, `yes` is
//! `true`, a list of lines is an array, a single value where an array is wanted is a
//! one-item array. `85%`, `1,234` or `about 3` are not numbers: they are `validation`
//! errors that say what was expected. Every problem is collected (up to the cap of
//! [`crate::caps`]), not only the first, and what did convert is kept as the partial
//! value.
//!
//! The rules every format shares are applied here, once: a field written twice keeps
//! its last value with a `duplicate_key` warning (an array field's repeated parts are
//! its items), and a part the text ended inside is judged by [`super::ending`].
//!
//! Items and lifted fields borrow the reader's nodes instead of copying them, so the
//! converter's memory stays proportional to the text whatever the nesting.

use super::ending::{self, Cut};
use super::node::{Node, clean_string, each_comma_item, each_list_item, fold};
use super::options::{self, field_names, hint, item_names};
use super::{Format, FormatFailure, FormatRead};
use crate::caps::Capped;
use crate::error::{ErrorKind, Location, PayloadError};
use crate::limits::MAX_DEPTH;
use crate::warning::{Warning, WarningKind};
use payload_schema::pointer;
use payload_schema::walk::{self as schema_walk, describe, resolve, single_branch, types_of};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// How much of a received text an error message repeats (the `received` member keeps
/// all of it).
const ECHO_CHARS: usize = 200;

/// Converts nodes to values of one schema, collecting errors and warnings.
pub(crate) struct Converter<'a> {
    format: Format,
    root: &'a Value,
    text: &'a str,
    errors: Capped<PayloadError>,
    warnings: Capped<Warning>,
    /// How the reader judges parts the text ended inside.
    cut: Cut,
    /// Truncation errors and warnings, listed first whatever the cap.
    cut_errors: Vec<PayloadError>,
    cut_warnings: Vec<Warning>,
}

impl<'a> Converter<'a> {
    /// A converter for `format` responses against `root`; `text` is the model's text,
    /// for error locations.
    pub fn new(format: Format, root: &'a Value, text: &'a str) -> Self {
        Converter {
            format,
            root,
            text,
            errors: Capped::errors(),
            warnings: Capped::warnings(),
            cut: Cut::Certain,
            cut_errors: Vec::new(),
            cut_warnings: Vec::new(),
        }
    }

    /// Judges the parts marked cut as the reader says the format allows.
    pub fn judging(mut self, cut: Cut) -> Self {
        self.cut = cut;
        self
    }

    /// Converts the node that holds the whole value. `nothing_found` says the reader
    /// found no structure at all, which is reported as a `parsing` error before the
    /// missing fields; `rootless` says the holder has no end of its own (the fields are
    /// top-level parts), so where the text stops is checked too.
    pub fn finish(mut self, node: &Node, nothing_found: bool, rootless: bool) -> FormatRead {
        if nothing_found {
            let mut error = PayloadError::new(
                ErrorKind::Parsing,
                "",
                format!("no {} structure found in the response", self.format.label()),
            );
            if let Some(first) = first_property(self.root) {
                error = error.with_suggestion(format!(
                    "Write the whole response in {}. {}",
                    self.format.label(),
                    hint(self.root, self.root, &first, self.format, 0)
                ));
            }
            self.errors.push(error);
        }
        let value = self.value(node, self.root, "", 0);
        // Nothing found is a `parsing` error already; a cut adds nothing to it.
        if !nothing_found && self.cut_errors.is_empty() && self.cut_warnings.is_empty() {
            // The text ended inside a part no field holds (`<RECOMM`, an unknown
            // section), or between parts: the value may still have been cut.
            match ending::innermost_cut(node) {
                Some(cut) if self.cut == Cut::Certain => {
                    let error = ending::truncated(
                        self.format,
                        self.root,
                        cut,
                        "",
                        self.location(cut.offset),
                    );
                    self.cut_errors.push(error);
                }
                _ if rootless => {
                    if let Some(warning) = ending::could_continue(self.format, self.root, node) {
                        self.cut_warnings.push(warning);
                    }
                }
                _ => {}
            }
        }
        let warnings = first_then_capped(self.cut_warnings, self.warnings, Capped::warnings());
        let errors = first_then_capped(self.cut_errors, self.errors, Capped::errors());
        let result = if errors.items().is_empty() && errors.omitted() == 0 {
            Ok(value.unwrap_or(Value::Null))
        } else {
            Err(FormatFailure {
                errors: errors.finish(),
                partial: value.unwrap_or_else(|| Value::Object(Map::new())),
            })
        };
        FormatRead {
            result,
            warnings: warnings.finish(),
        }
    }

    fn location(&self, offset: usize) -> Location {
        Location::of_offset(self.text, offset)
    }

    /// Records an error unless the cap is reached (then only counts it): building one
    /// costs a scan for its location, which must not happen once per hostile item.
    fn error(&mut self, build: impl FnOnce(&Self) -> PayloadError) {
        if self.errors.is_full() {
            self.errors.count_omitted(1);
        } else {
            let error = build(self);
            self.errors.push(error);
        }
    }

    /// Records a warning unless the cap is reached (then only counts it).
    fn warn(&mut self, build: impl FnOnce(&Self) -> Warning) {
        if self.warnings.is_full() {
            self.warnings.count_omitted(1);
        } else {
            let warning = build(self);
            self.warnings.push(warning);
        }
    }

    fn too_deep(&mut self, node: &Node, path: &str) {
        self.error(|c| {
            let mut error = crate::limits::too_deep().with_location(c.location(node.offset));
            error.details_mut().path = path.to_string();
            error
        });
    }

    /// The value of `node` as `schema` wants it, or `None` (with an error recorded).
    /// `depth` is how many objects and arrays hold it. When `node` is a part the text
    /// ended inside and nothing within it said so, the cut is reported here, at its
    /// path.
    fn value(&mut self, node: &Node, schema: &Value, path: &str, depth: usize) -> Option<Value> {
        let reported = self.cut_errors.len() + self.cut_warnings.len();
        let value = self.value_in(node, schema, path, depth, 0);
        if node.cut && self.cut_errors.len() + self.cut_warnings.len() == reported {
            return self.cut_here(node, path, value);
        }
        value
    }

    /// Reports `node` as the innermost value the text ended inside. A certain cut keeps
    /// nothing of a scalar or an array (`0.8` cut from `0.87` is not a value); an object
    /// keeps the members that closed, for the partial value only.
    fn cut_here(&mut self, node: &Node, path: &str, value: Option<Value>) -> Option<Value> {
        match self.cut {
            Cut::Certain => {
                let location = self.location(node.offset);
                let error = ending::truncated(self.format, self.root, node, path, location);
                self.cut_errors.push(error);
                value.filter(Value::is_object)
            }
            Cut::Possible => {
                let warning = ending::runs_to_end(self.format, node, path);
                self.cut_warnings.push(warning);
                value
            }
        }
    }

    /// [`Self::value`] without the cut check; `hops` counts the schema wrappers
    /// (`Option`, `anyOf`) crossed on this node, which a recursive schema could repeat.
    fn value_in(
        &mut self,
        node: &Node,
        schema: &Value,
        path: &str,
        depth: usize,
        hops: usize,
    ) -> Option<Value> {
        if hops > MAX_DEPTH {
            self.too_deep(node, path);
            return None;
        }
        let schema = resolve(self.root, schema);
        if let Some(branch) = single_branch(self.root, schema) {
            if is_nullish(node) {
                return Some(Value::Null);
            }
            return self.value_in(node, branch, path, depth, hops + 1);
        }
        if let Some(branches) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            return self.branches(node, schema, branches, path, depth, hops);
        }
        let types = types_of(schema);
        let structured = !node.children.is_empty() || !node.attrs.is_empty();
        if types.contains(&"object")
            && (structured || !types.iter().any(|t| *t != "object" && *t != "null"))
        {
            if types.contains(&"null") && is_nullish(node) {
                return Some(Value::Null);
            }
            return self.object(node, schema, path, depth);
        }
        if types.contains(&"array") {
            if types.contains(&"null") && is_nullish(node) {
                return Some(Value::Null);
            }
            let items = items_of(&[node], &[], false, self.root, schema);
            return self.array(items, schema, path, depth);
        }
        if types.is_empty() && structured && schema.get("enum").is_none() {
            return self.any_object(node, path, depth);
        }
        self.scalar(node, schema, &types, path)
    }

    /// A schema with several alternatives (`anyOf`/`oneOf` beyond `Option`): structure
    /// picks the first object branch; text picks the first scalar branch it converts to.
    /// One try per branch on text only, so the cost stays linear.
    fn branches(
        &mut self,
        node: &Node,
        schema: &Value,
        branches: &[Value],
        path: &str,
        depth: usize,
        hops: usize,
    ) -> Option<Value> {
        let structured = !node.children.is_empty() || !node.attrs.is_empty();
        let resolved: Vec<&Value> = branches.iter().map(|b| resolve(self.root, b)).collect();
        if structured {
            if let Some(object) = resolved.iter().find(|b| types_of(b).contains(&"object")) {
                return self.value_in(node, object, path, depth, hops + 1);
            }
        }
        for branch in &resolved {
            let types = types_of(branch);
            if types.contains(&"object") || types.contains(&"array") {
                continue;
            }
            if let Ok(value) = scalar_value(&node.text, branch, &types) {
                return Some(value);
            }
        }
        if let Some(array) = resolved.iter().find(|b| types_of(b).contains(&"array")) {
            return self.value_in(node, array, path, depth, hops + 1);
        }
        if let Some(object) = resolved.iter().find(|b| types_of(b).contains(&"object")) {
            return self.value_in(node, object, path, depth, hops + 1);
        }
        self.mismatch(node, schema, path);
        None
    }

    fn scalar(&mut self, node: &Node, schema: &Value, types: &[&str], path: &str) -> Option<Value> {
        let converted = if node.children.is_empty() {
            scalar_value(&node.text, schema, types)
        } else {
            scalar_value(&node.deep_text(), schema, types)
        };
        match converted {
            Ok(value) => Some(value),
            Err(()) => {
                self.mismatch(node, schema, path);
                None
            }
        }
    }

    fn mismatch(&mut self, node: &Node, schema: &Value, path: &str) {
        self.error(|c| {
            let received = node.deep_text().trim().to_string();
            let expected = describe(c.root, schema);
            let types = types_of(resolve(c.root, schema));
            let suggestion = if schema.get("enum").is_some() {
                format!("Write exactly one of the allowed values: {expected}")
            } else if types.contains(&"integer") {
                "Write a whole number in digits, such as 3, with no units, words or separators"
                    .to_string()
            } else if types.contains(&"number") {
                "Write a plain number in digits, such as 0.85, with no units, percent sign or thousands separators"
                    .to_string()
            } else if types.contains(&"boolean") {
                "Write true or false".to_string()
            } else {
                format!("Write {expected}")
            };
            PayloadError::validation(path, format!("expected {expected}, got '{}'", echo(&received)))
                .with_received(received)
                .with_expected(expected)
                .with_suggestion(suggestion)
                .with_location(c.location(node.offset))
        });
    }

    fn object(&mut self, node: &Node, schema: &Value, path: &str, depth: usize) -> Option<Value> {
        let level = depth + 1;
        if level > MAX_DEPTH {
            self.too_deep(node, path);
            return None;
        }
        let mut map = Map::new();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let props = schema.get("properties").and_then(Value::as_object);
        let lifted = self.lift_misnested(node, schema);
        let children: Vec<&Node> = match &lifted {
            Some(lifted) => lifted.iter().map(AsRef::as_ref).collect(),
            None => node.children.iter().collect(),
        };
        let (mut by_field, mut by_item, unmatched) = self.by_property(schema, &children);
        for (index, (prop, prop_schema)) in props.into_iter().flatten().enumerate() {
            let child_path = pointer::join(path, prop);
            let names = field_names(self.root, schema, prop, self.format);
            let mut matches = std::mem::take(&mut by_field[index]);
            // An element and an attribute of one name are one field written twice; the
            // element, written after the start tag, is the later one.
            let elements = matches.len();
            let attrs: Vec<&String> = node
                .attrs
                .iter()
                .filter(|(k, _)| names.contains(&fold(k)))
                .map(|(_, v)| v)
                .collect();
            let attr_node;
            if let (0, Some(value)) = (elements, attrs.last()) {
                attr_node = Node::text_only((*value).clone(), node.offset);
                matches.push(&attr_node);
            }
            let value = if options::is_array(self.root, prop_schema) {
                let direct = std::mem::take(&mut by_item[index]);
                if matches.is_empty() && direct.is_empty() {
                    None
                } else {
                    let field = (schema, prop.as_str(), prop_schema);
                    Some(self.array_field(&matches, &direct, field, &child_path, level))
                }
            } else {
                let written = elements + attrs.len();
                if let (true, Some(last)) = (written > 1, matches.last()) {
                    self.duplicate(&child_path, written, last);
                }
                matches
                    .last()
                    .map(|last| self.value(last, prop_schema, &child_path, level))
            };
            match value {
                Some(Some(v)) => {
                    map.insert(prop.clone(), v);
                }
                Some(None) => {}
                None if required.contains(&prop.as_str()) => self.error(|c| {
                    let expected = describe(c.root, prop_schema);
                    PayloadError::missing(&child_path, format!("required field '{prop}' not found"))
                        .with_expected(expected.clone())
                        .with_suggestion(format!(
                            "Add the field '{prop}' ({expected}). {}",
                            hint(c.root, schema, prop, c.format, depth)
                        ))
                }),
                None => {}
            }
        }
        // docs/spec.md §7.1: a part named for no field is a member the type does not declare.
        // It is kept under the name it was written with, so that the value check
        // reports it (an `unknown_member` warning, or an error when it is a near miss of
        // an absent field) as it does for JSON, instead of the reader dropping it unseen.
        // A part certainly cut off where the text ends (`<RECOMM`) is the response's
        // truncation, which [`Self::finish`] reports; it is not a member. A part that
        // only may have been cut (a last Markdown section) is one.
        if props.is_some_and(|p| !p.is_empty()) {
            let any = Value::Bool(true);
            let certain = self.cut == Cut::Certain;
            for child in unmatched.into_iter().filter(|c| !(c.cut && certain)) {
                let child_path = pointer::join(path, &child.name);
                if let Some(v) = self.value(child, &any, &child_path, level) {
                    self.insert_last_wins(&mut map, child, v);
                }
            }
        }
        if props.is_none_or(|p| p.is_empty()) {
            if let Some(extra) = schema.get("additionalProperties").filter(|e| e.is_object()) {
                for child in &children {
                    let child_path = pointer::join(path, &child.name);
                    if let Some(v) = self.value(child, extra, &child_path, level) {
                        self.insert_last_wins(&mut map, child, v);
                    }
                }
            }
        }
        Some(Value::Object(map))
    }

    /// An array field: its items from every part written for it (repeated parts are
    /// items, never duplicates). When the text ended inside one of those parts and no
    /// item said so, the cut is the array's.
    /// `field` is the object's schema, the property and its schema; `depth` counts
    /// the containers around the array.
    fn array_field(
        &mut self,
        matches: &[&Node],
        direct: &[&Node],
        field: (&Value, &str, &Value),
        path: &str,
        depth: usize,
    ) -> Option<Value> {
        let (schema, prop, prop_schema) = field;
        if matches.len() == 1
            && direct.is_empty()
            && is_nullish(matches[0])
            && allows_null(self.root, prop_schema)
        {
            return Some(Value::Null);
        }
        let array_schema = resolve(self.root, prop_schema);
        let array_schema = single_branch(self.root, array_schema).unwrap_or(array_schema);
        let comma = options::comma_separated(self.root, schema, prop, self.format);
        let items = items_of(matches, direct, comma, self.root, array_schema);
        let reported = self.cut_errors.len() + self.cut_warnings.len();
        let value = self.array(items, array_schema, path, depth);
        let cut = matches.iter().chain(direct).rev().find(|n| n.cut);
        match cut {
            Some(cut) if self.cut_errors.len() + self.cut_warnings.len() == reported => {
                self.cut_here(cut, path, value)
            }
            _ => value,
        }
    }

    /// Warns that the field at `path` was written `times` times and `used` was kept.
    fn duplicate(&mut self, path: &str, times: usize, used: &Node) {
        self.warn(|c| {
            let at = c.location(used.offset);
            Warning::new(
                WarningKind::DuplicateKey,
                format!(
                    "the field at '{path}' is written {times} times; the last one (line {}, \
                     column {}) was used and the others were dropped: write each field once",
                    at.line, at.column
                ),
            )
        });
    }

    /// Inserts a member read from `child` into a map with free keys: a name already
    /// there is a duplicate, and the last one wins.
    fn insert_last_wins(&mut self, map: &mut Map<String, Value>, child: &Node, value: Value) {
        if map.insert(child.name.clone(), value).is_some() {
            self.warn(|c| {
                let at = c.location(child.offset);
                Warning::new(
                    WarningKind::DuplicateKey,
                    format!(
                        "the member '{}' is written more than once; the last one (line {}, \
                         column {}) was used: write each member once",
                        child.name, at.line, at.column
                    ),
                )
            });
        }
    }

    /// The children of an object sorted by the property they are written for: per
    /// property, the parts named as the field, and the parts named as one of its items
    /// (and not as the field); then the parts that name no property. One pass over the
    /// children, one name folded at a time.
    #[allow(clippy::type_complexity)]
    fn by_property<'n>(
        &self,
        schema: &Value,
        children: &[&'n Node],
    ) -> (Vec<Vec<&'n Node>>, Vec<Vec<&'n Node>>, Vec<&'n Node>) {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return (Vec::new(), Vec::new(), Vec::new());
        };
        let mut fields: HashMap<String, Vec<usize>> = HashMap::new();
        let mut items: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, (prop, prop_schema)) in props.iter().enumerate() {
            // A name can be listed twice for one property (its own and a custom one
            // that folds the same); the property takes the part once.
            let add = |map: &mut HashMap<String, Vec<usize>>, name: String| {
                let props = map.entry(name).or_default();
                if props.last() != Some(&index) {
                    props.push(index);
                }
            };
            for name in field_names(self.root, schema, prop, self.format) {
                add(&mut fields, name);
            }
            if options::is_array(self.root, prop_schema) {
                for name in item_names(self.root, schema, prop, self.format) {
                    add(&mut items, name);
                }
            }
        }
        let mut by_field = vec![Vec::new(); props.len()];
        let mut by_item = vec![Vec::new(); props.len()];
        let mut unmatched = Vec::new();
        for child in children {
            let name = fold(&child.name);
            let as_field = fields.get(&name);
            let as_item = items.get(&name);
            if as_field.is_none() && as_item.is_none() {
                unmatched.push(*child);
            }
            for &index in as_field.into_iter().flatten() {
                by_field[index].push(*child);
            }
            for &index in as_item.into_iter().flatten() {
                if !as_field.is_some_and(|f| f.contains(&index)) {
                    by_item[index].push(*child);
                }
            }
        }
        (by_field, by_item, unmatched)
    }

    /// Fields a model nested inside a text field (`# Task` above `## Confidence`, or
    /// `<task>` left open before `<confidence>`): a text field cannot hold fields, so
    /// when a child of `node` that is a scalar field holds fields of this same object,
    /// they are moved up beside it. `None` when nothing is misnested (the usual case).
    /// Only the moved fields' own text is copied; everything else is borrowed.
    fn lift_misnested<'n>(&self, node: &'n Node, schema: &Value) -> Option<Vec<Cow<'n, Node>>> {
        let props = schema.get("properties").and_then(Value::as_object)?;
        let mut all = Vec::new();
        let mut scalar = Vec::new();
        for (prop, prop_schema) in props {
            let names = field_names(self.root, schema, prop, self.format);
            let resolved = resolve(self.root, prop_schema);
            let resolved = single_branch(self.root, resolved).unwrap_or(resolved);
            let types = types_of(resolved);
            if !types.is_empty() && !types.contains(&"object") && !types.contains(&"array") {
                scalar.extend(names.iter().cloned());
            }
            all.extend(names);
        }
        let misnested = |n: &Node| {
            scalar.contains(&fold(&n.name))
                && n.children.iter().any(|c| all.contains(&fold(&c.name)))
        };
        if !node.children.iter().any(misnested) {
            return None;
        }
        let mut out = Vec::new();
        let mut stack: Vec<std::slice::Iter<'n, Node>> = vec![node.children.iter()];
        while let Some(top) = stack.last_mut() {
            let Some(child) = top.next() else {
                stack.pop();
                continue;
            };
            if misnested(child) && stack.len() < MAX_DEPTH {
                let mut own = Node::named(child.name.clone(), child.offset);
                own.text = child.text.clone();
                own.attrs = child.attrs.clone();
                own.end = child.end;
                // The text ended inside what was nested in it, not inside its own text.
                own.cut = child.cut && !child.children.iter().any(|c| c.cut);
                out.push(Cow::Owned(own));
                stack.push(child.children.iter());
            } else {
                out.push(Cow::Borrowed(child));
            }
        }
        Some(out)
    }

    /// A node under a schema that says nothing: an object of its children's texts.
    fn any_object(&mut self, node: &Node, path: &str, depth: usize) -> Option<Value> {
        let level = depth + 1;
        if level > MAX_DEPTH {
            self.too_deep(node, path);
            return None;
        }
        let mut map = Map::new();
        for (k, v) in &node.attrs {
            map.insert(k.clone(), Value::String(v.clone()));
        }
        let any = Value::Bool(true);
        for child in &node.children {
            let child_path = pointer::join(path, &child.name);
            if let Some(v) = self.value(child, &any, &child_path, level) {
                self.insert_last_wins(&mut map, child, v);
            }
        }
        Some(Value::Object(map))
    }

    fn array(
        &mut self,
        items: Vec<Items<'_>>,
        schema: &Value,
        path: &str,
        depth: usize,
    ) -> Option<Value> {
        let level = depth + 1;
        if level > MAX_DEPTH {
            if let Some(first) = items.first() {
                self.too_deep(first.node(), path);
            }
            return None;
        }
        let mut array = ArrayBuilder {
            schema,
            path,
            level,
            next: 0,
            out: Vec::new(),
            failed: false,
        };
        for source in items {
            match source {
                Items::Part(node) => self.item(&mut array, node),
                Items::Lines(node) => each_list_item(&node.text, |text, _, last| {
                    let mut item = Node::text_only(text, node.offset);
                    item.cut = node.cut && last;
                    self.item(&mut array, &item);
                }),
                Items::Commas(node) => each_comma_item(&node.text, |text, last| {
                    let mut item = Node::text_only(text, node.offset);
                    item.cut = node.cut && last;
                    self.item(&mut array, &item);
                }),
            }
        }
        // A partial array would shift indices; keep the good items only when all are.
        (!array.failed).then_some(Value::Array(array.out))
    }

    /// Converts the next item of `array`.
    fn item(&mut self, array: &mut ArrayBuilder<'_>, item: &Node) {
        let any = Value::Bool(true);
        let index = array.next;
        array.next += 1;
        let item_schema = schema_walk::item(self.root, array.schema, index).unwrap_or(&any);
        let item_path = pointer::join(array.path, &index.to_string());
        match self.value(item, item_schema, &item_path, array.level) {
            Some(v) => array.out.push(v),
            None => array.failed = true,
        }
    }
}

/// An array being converted item by item.
struct ArrayBuilder<'s> {
    schema: &'s Value,
    path: &'s str,
    level: usize,
    /// The index of the next item.
    next: usize,
    out: Vec<Value>,
    failed: bool,
}

/// Where an array's items come from, in order.
enum Items<'n> {
    /// A part that is one item.
    Part(&'n Node),
    /// A part whose text is a list: split into items as they are converted, so a long
    /// list is never held twice.
    Lines(&'n Node),
    /// A part whose text is comma-separated items.
    Commas(&'n Node),
}

impl Items<'_> {
    fn node(&self) -> &Node {
        match self {
            Items::Part(node) | Items::Lines(node) | Items::Commas(node) => node,
        }
    }
}

/// The items of an array field: the children of a container (`<steps><step>`), every
/// repeated field node (`<STEP>a</STEP><STEP>b</STEP>`), item elements found directly,
/// or the lines of a list in the text. Nodes are borrowed, never copied.
fn items_of<'n>(
    matches: &[&'n Node],
    direct: &[&'n Node],
    comma: bool,
    root: &Value,
    schema: &Value,
) -> Vec<Items<'n>> {
    let item_schema = schema_walk::item(root, schema, 0);
    let item_props: Vec<String> = item_schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(|k| fold(k)).collect())
        .unwrap_or_default();
    let mut items = Vec::new();
    for node in matches {
        if !node.children.is_empty() {
            let is_item = node
                .children
                .iter()
                .any(|c| item_props.contains(&fold(&c.name)));
            if is_item {
                items.push(Items::Part(node));
            } else {
                items.extend(node.children.iter().map(Items::Part));
            }
        } else if node.name.is_empty() {
            // Already one item (split from a list, or an attribute): splitting it again
            // under a recursive schema would copy its text once per level.
            items.push(Items::Part(node));
        } else if comma {
            items.push(Items::Commas(node));
        } else {
            items.push(Items::Lines(node));
        }
    }
    items.extend(direct.iter().map(|n| Items::Part(n)));
    items
}

/// The first `max` characters of `text`, marked when cut, for a message.
fn echo(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(ECHO_CHARS) {
        Some((at, _)) => Cow::Owned(format!("{}...", &text[..at])),
        None => Cow::Borrowed(text),
    }
}

/// `first` (truncation reports, which must be seen), then what `rest` kept and counted,
/// in a fresh collector with the same cap.
fn first_then_capped<T>(first: Vec<T>, rest: Capped<T>, mut out: Capped<T>) -> Capped<T> {
    out.extend(first);
    let (kept, omitted) = rest.into_parts();
    out.extend(kept);
    out.count_omitted(omitted);
    out
}

/// Whether a node says "no value": no structure, and empty text or `null`.
fn is_nullish(node: &Node) -> bool {
    if !node.children.is_empty() || !node.attrs.is_empty() {
        return false;
    }
    let t = node.text.trim();
    t.is_empty() || t.eq_ignore_ascii_case("null")
}

fn allows_null(root: &Value, schema: &Value) -> bool {
    let schema = resolve(root, schema);
    single_branch(root, schema).is_some() || types_of(schema).contains(&"null")
}

/// The first property name of an object schema, for an example in a suggestion.
fn first_property(root: &Value) -> Option<String> {
    resolve(root, root)
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.keys().next().cloned())
}

/// Converts text to a scalar the schema allows. Tries, in order, what the schema
/// lists: null, boolean, integer, number, then string; an `enum` or `const` without a
/// type matches the text against the allowed values written out.
pub(crate) fn scalar_value(text: &str, schema: &Value, types: &[&str]) -> Result<Value, ()> {
    let trimmed = text.trim();
    if types.is_empty() {
        let allowed: Vec<&Value> = match (schema.get("enum"), schema.get("const")) {
            (Some(Value::Array(values)), _) => values.iter().collect(),
            (_, Some(value)) => vec![value],
            _ => return Ok(Value::String(clean_string(text))),
        };
        return allowed
            .into_iter()
            .find(|v| match v {
                Value::String(s) => s == trimmed,
                other => *other.to_string() == *trimmed,
            })
            .cloned()
            .ok_or(());
    }
    if types.contains(&"null") && (trimmed.is_empty() || trimmed.eq_ignore_ascii_case("null")) {
        return Ok(Value::Null);
    }
    if types.contains(&"boolean") {
        match trimmed.to_ascii_lowercase().as_str() {
            "true" | "yes" => return Ok(Value::Bool(true)),
            "false" | "no" => return Ok(Value::Bool(false)),
            _ => {}
        }
    }
    if types.contains(&"integer") {
        if let Some(n) = integer(trimmed) {
            return Ok(Value::Number(n));
        }
    }
    if types.contains(&"number") {
        if let Some(n) = number(trimmed) {
            return Ok(Value::Number(n));
        }
    }
    if types.contains(&"string") {
        return Ok(Value::String(clean_string(text)));
    }
    Err(())
}

/// Digits with an optional sign, or a number with a zero fraction (`3.0`).
fn integer(text: &str) -> Option<Number> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Number::from(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Number::from(u));
    }
    let f = plain_float(text)?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Number::from(f as i64))
}

/// A finite decimal number written the way JSON or a person writes one.
fn number(text: &str) -> Option<Number> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Number::from(i));
    }
    Number::from_f64(plain_float(text)?)
}

/// `f64::from_str`, without the spellings no person means as a number (`inf`, `NaN`),
/// and only when the float holds the number to the digits written (`1e-400` is not 0;
/// the rule is in `crate::json::precision`).
fn plain_float(text: &str) -> Option<f64> {
    if !crate::json::precision::number_characters_only(text) {
        return None;
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite() && crate::json::precision::holds(text, *f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn convert(text: &str, schema: Value) -> Result<Value, ()> {
        let types: Vec<&str> = types_of(&schema);
        scalar_value(text, &schema, &types)
    }

    #[test]
    fn numbers_are_converted_without_guessing() {
        let number = json!({"type": "number"});
        assert_eq!(convert(" 0.85 ", number.clone()), Ok(json!(0.85)));
        assert_eq!(convert("3", number.clone()), Ok(json!(3)));
        assert_eq!(convert("-1e3", number.clone()), Ok(json!(-1000.0)));
        for bad in [
            "85%",
            "1,234",
            "about 3",
            "NaN",
            "inf",
            "",
            "1e-400",
            "0.1000000000000000000001",
            "123456789012345678901234567890",
        ] {
            assert_eq!(convert(bad, number.clone()), Err(()), "{bad}");
        }
        let integer = json!({"type": "integer"});
        assert_eq!(convert("42", integer.clone()), Ok(json!(42)));
        assert_eq!(convert("4.0", integer.clone()), Ok(json!(4)));
        assert_eq!(convert("4.5", integer), Err(()));
    }

    #[test]
    fn booleans_nulls_and_enums() {
        let boolean = json!({"type": "boolean"});
        assert_eq!(convert("Yes", boolean.clone()), Ok(json!(true)));
        assert_eq!(convert("FALSE", boolean.clone()), Ok(json!(false)));
        assert_eq!(convert("maybe", boolean), Err(()));
        let nullable = json!({"type": ["integer", "null"]});
        assert_eq!(convert("null", nullable.clone()), Ok(Value::Null));
        assert_eq!(convert("7", nullable), Ok(json!(7)));
        let untyped = json!({"enum": [1, 2, "three"]});
        assert_eq!(convert("2", untyped.clone()), Ok(json!(2)));
        assert_eq!(convert("three", untyped.clone()), Ok(json!("three")));
        assert_eq!(convert("four", untyped), Err(()));
    }
}
