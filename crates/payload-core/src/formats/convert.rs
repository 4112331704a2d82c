//! From the tree a reader found to a value of the schema's types.
//!
//! Everything a reader finds is text; the schema says what it should be. Conversions
//! are the ones a person would make without guessing: `0.85` is a number, `yes` is
//! `true`, a list of lines is an array, a single value where an array is wanted is a
//! one-item array. `85%`, `1,234` or `about 3` are not numbers: they are `validation`
//! errors that say what was expected. Every problem is collected, not only the first,
//! and what did convert is kept as the partial value.

use super::node::{Node, clean_string, comma_items, fold, list_items};
use super::options::{self, field_names, hint, item_names};
use super::{Format, FormatFailure};
use crate::error::{ErrorKind, Location, PayloadError, pointer_join};
use crate::schema_walk::{self, describe, resolve, single_branch, types_of};
use serde_json::{Map, Number, Value};

/// How deep values may nest (readers already limit their trees; this also bounds a
/// recursive schema).
const MAX_DEPTH: usize = 128;

/// Converts nodes to values of one schema, collecting errors.
pub(crate) struct Converter<'a> {
    format: Format,
    root: &'a Value,
    text: &'a str,
    errors: Vec<PayloadError>,
}

impl<'a> Converter<'a> {
    /// A converter for `format` responses against `root`; `text` is the model's text,
    /// for error locations.
    pub fn new(format: Format, root: &'a Value, text: &'a str) -> Self {
        Converter {
            format,
            root,
            text,
            errors: Vec::new(),
        }
    }

    /// Converts the node that holds the whole value. `nothing_found` says the reader
    /// found no structure at all, which is reported as a `parsing` error before the
    /// missing fields.
    pub fn finish(mut self, node: &Node, nothing_found: bool) -> Result<Value, FormatFailure> {
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
        if self.errors.is_empty() {
            Ok(value.unwrap_or(Value::Null))
        } else {
            Err(FormatFailure {
                errors: self.errors,
                partial: value.unwrap_or_else(|| Value::Object(Map::new())),
            })
        }
    }

    fn location(&self, offset: usize) -> Location {
        Location::of_offset(self.text, offset)
    }

    /// The value of `node` as `schema` wants it, or `None` (with an error recorded).
    fn value(&mut self, node: &Node, schema: &Value, path: &str, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            self.errors.push(
                PayloadError::new(ErrorKind::Parsing, path, "nesting is too deep")
                    .with_location(self.location(node.offset)),
            );
            return None;
        }
        let schema = resolve(self.root, schema);
        if let Some(branch) = single_branch(self.root, schema) {
            if is_nullish(node) {
                return Some(Value::Null);
            }
            return self.value(node, branch, path, depth + 1);
        }
        if let Some(branches) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            return self.branches(node, schema, branches, path, depth);
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
            let items = items_of(std::slice::from_ref(&node), &[], false, self.root, schema);
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
    ) -> Option<Value> {
        let structured = !node.children.is_empty() || !node.attrs.is_empty();
        let resolved: Vec<&Value> = branches.iter().map(|b| resolve(self.root, b)).collect();
        if structured {
            if let Some(object) = resolved.iter().find(|b| types_of(b).contains(&"object")) {
                return self.value(node, object, path, depth + 1);
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
            return self.value(node, array, path, depth + 1);
        }
        if let Some(object) = resolved.iter().find(|b| types_of(b).contains(&"object")) {
            return self.value(node, object, path, depth + 1);
        }
        self.mismatch(node, schema, path);
        None
    }

    fn scalar(&mut self, node: &Node, schema: &Value, types: &[&str], path: &str) -> Option<Value> {
        let text = if node.children.is_empty() {
            node.text.clone()
        } else {
            node.deep_text()
        };
        match scalar_value(&text, schema, types) {
            Ok(value) => Some(value),
            Err(()) => {
                self.mismatch(node, schema, path);
                None
            }
        }
    }

    fn mismatch(&mut self, node: &Node, schema: &Value, path: &str) {
        let received = node.deep_text().trim().to_string();
        let expected = describe(self.root, schema);
        let types = types_of(resolve(self.root, schema));
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
        self.errors.push(
            PayloadError::validation(path, format!("expected {expected}, got '{received}'"))
                .with_received(received)
                .with_expected(expected)
                .with_suggestion(suggestion)
                .with_location(self.location(node.offset)),
        );
    }

    fn object(&mut self, node: &Node, schema: &Value, path: &str, depth: usize) -> Option<Value> {
        let mut map = Map::new();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let props = schema.get("properties").and_then(Value::as_object);
        let lifted = self.lift_misnested(node, schema);
        let children = lifted.as_deref().unwrap_or(&node.children);
        for (prop, prop_schema) in props.into_iter().flatten() {
            let child_path = pointer_join(path, prop);
            let names = field_names(self.root, schema, prop, self.format);
            let matches: Vec<&Node> = children
                .iter()
                .filter(|c| names.contains(&fold(&c.name)))
                .collect();
            let attr_node;
            let mut matches = matches;
            if matches.is_empty() {
                if let Some((_, v)) = node.attrs.iter().find(|(k, _)| names.contains(&fold(k))) {
                    attr_node = Node::text_only(v.clone(), node.offset);
                    matches.push(&attr_node);
                }
            }
            let value = if options::is_array(self.root, prop_schema) {
                let item_names = item_names(self.root, schema, prop, self.format);
                let direct: Vec<&Node> = children
                    .iter()
                    .filter(|c| {
                        item_names.contains(&fold(&c.name)) && !names.contains(&fold(&c.name))
                    })
                    .collect();
                if matches.is_empty() && direct.is_empty() {
                    None
                } else {
                    let array_schema = resolve(self.root, prop_schema);
                    let array_schema =
                        single_branch(self.root, array_schema).unwrap_or(array_schema);
                    if matches.len() == 1
                        && direct.is_empty()
                        && is_nullish(matches[0])
                        && allows_null(self.root, prop_schema)
                    {
                        Some(Some(Value::Null))
                    } else {
                        let comma = options::comma_separated(self.root, schema, prop, self.format);
                        let items = items_of(&matches, &direct, comma, self.root, array_schema);
                        Some(self.array(items, array_schema, &child_path, depth + 1))
                    }
                }
            } else {
                matches
                    .first()
                    .map(|first| self.value(first, prop_schema, &child_path, depth + 1))
            };
            match value {
                Some(Some(v)) => {
                    map.insert(prop.clone(), v);
                }
                Some(None) => {}
                None if required.contains(&prop.as_str()) => {
                    let expected = describe(self.root, prop_schema);
                    self.errors.push(
                        PayloadError::missing(
                            &child_path,
                            format!("required field '{prop}' not found"),
                        )
                        .with_expected(expected.clone())
                        .with_suggestion(format!(
                            "Add the field '{prop}' ({expected}). {}",
                            hint(self.root, schema, prop, self.format, depth)
                        )),
                    );
                }
                None => {}
            }
        }
        if props.is_none_or(|p| p.is_empty()) {
            if let Some(extra) = schema.get("additionalProperties").filter(|e| e.is_object()) {
                for child in &node.children {
                    let child_path = pointer_join(path, &child.name);
                    if let Some(v) = self.value(child, extra, &child_path, depth + 1) {
                        map.insert(child.name.clone(), v);
                    }
                }
            }
        }
        Some(Value::Object(map))
    }

    /// Fields a model nested inside a text field (`# Task` above `## Confidence`, or
    /// `<task>` left open before `<confidence>`): a text field cannot hold fields, so
    /// when a child of `node` that is a scalar field holds fields of this same object,
    /// they are moved up beside it. `None` when nothing is misnested (the usual case).
    fn lift_misnested(&self, node: &Node, schema: &Value) -> Option<Vec<Node>> {
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
        let mut stack: Vec<std::slice::Iter<'_, Node>> = vec![node.children.iter()];
        while let Some(top) = stack.last_mut() {
            let Some(child) = top.next() else {
                stack.pop();
                continue;
            };
            if misnested(child) && stack.len() < MAX_DEPTH {
                let mut own = Node::named(child.name.clone(), child.offset);
                own.text = child.text.clone();
                own.attrs = child.attrs.clone();
                out.push(own);
                stack.push(child.children.iter());
            } else {
                out.push(child.clone());
            }
        }
        Some(out)
    }

    /// A node under a schema that says nothing: an object of its children's texts.
    fn any_object(&mut self, node: &Node, path: &str, depth: usize) -> Option<Value> {
        let mut map = Map::new();
        for (k, v) in &node.attrs {
            map.insert(k.clone(), Value::String(v.clone()));
        }
        let any = Value::Bool(true);
        for child in &node.children {
            let child_path = pointer_join(path, &child.name);
            if let Some(v) = self.value(child, &any, &child_path, depth + 1) {
                map.insert(child.name.clone(), v);
            }
        }
        Some(Value::Object(map))
    }

    fn array(
        &mut self,
        items: Vec<Node>,
        schema: &Value,
        path: &str,
        depth: usize,
    ) -> Option<Value> {
        let any = Value::Bool(true);
        let mut out = Vec::with_capacity(items.len());
        let mut failed = false;
        for (index, item) in items.iter().enumerate() {
            let item_schema = schema_walk::item(self.root, schema, index).unwrap_or(&any);
            let item_path = pointer_join(path, &index.to_string());
            match self.value(item, item_schema, &item_path, depth + 1) {
                Some(v) => out.push(v),
                None => failed = true,
            }
        }
        // A partial array would shift indices; keep the good items only when all are.
        (!failed).then_some(Value::Array(out))
    }
}

/// The items of an array field: the children of a container (`<steps><step>`), every
/// repeated field node (`<STEP>a</STEP><STEP>b</STEP>`), item elements found directly,
/// or the lines of a list in the text.
fn items_of(
    matches: &[&Node],
    direct: &[&Node],
    comma: bool,
    root: &Value,
    schema: &Value,
) -> Vec<Node> {
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
                items.push((*node).clone());
            } else {
                items.extend(node.children.iter().cloned());
            }
        } else if comma {
            items.extend(
                comma_items(&node.text)
                    .into_iter()
                    .map(|t| Node::text_only(t, node.offset)),
            );
        } else {
            items.extend(
                list_items(&node.text)
                    .into_iter()
                    .map(|(t, _)| Node::text_only(t, node.offset)),
            );
        }
    }
    items.extend(direct.iter().map(|n| (*n).clone()));
    items
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

/// `f64::from_str`, without the spellings no person means as a number (`inf`, `NaN`).
fn plain_float(text: &str) -> Option<f64> {
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|f| f.is_finite())
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
        for bad in ["85%", "1,234", "about 3", "NaN", "inf", ""] {
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
