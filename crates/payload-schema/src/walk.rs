//! Walking a JSON Schema alongside a value: `$ref` resolution and the sub-schema that
//! governs a given JSON Pointer. Used to describe what was expected in errors, to
//! coerce values to the schema's types, to render instructions and grammars.
//!
//! Every step is bounded: `$ref` chains by [`MAX_REF_HOPS`], and nothing here recurses
//! on the schema without a depth of its own.

use crate::keywords::{Holds, holds, is_annotation};
use crate::limits::MAX_REF_HOPS;
use crate::pointer;
use serde_json::Value;

/// Follows `$ref`s from `schema` (local `#/...` references into `root` only, as
/// [`target`] reads them), and the
/// `allOf` of one schema that draft-07 documents wrap a `$ref` in to describe it
/// (`{"description": ..., "allOf": [{"$ref": ...}]}`): a wrapper that adds nothing but
/// annotations is the schema it wraps.
pub fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..MAX_REF_HOPS {
        if let Some(wrapped) = annotated_wrapper(current) {
            current = wrapped;
            continue;
        }
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            return current;
        };
        match target(root, reference) {
            Some(found) => current = found,
            None => return current,
        }
    }
    current
}

/// The schema a local `$ref` (`#`, `#/...`, percent-escapes decoded) names in `root`,
/// or `None` for a reference outside the document or to nothing.
pub fn target<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.contains('%') {
        root.pointer(&pointer::decode_fragment(fragment))
    } else {
        root.pointer(fragment)
    }
}

/// Where a sub-schema sits under its keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot<'a> {
    /// The keyword's value is the schema (`items`, `not`, ...).
    Whole,
    /// A member of a map of schemas (`properties`, `$defs`, ...).
    Member(&'a str),
    /// An item of a list of schemas (`anyOf`, `prefixItems`, ...).
    Index(usize),
}

/// One sub-schema of a schema node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subschema<'a> {
    /// The keyword that holds it.
    pub keyword: &'a str,
    /// Where under the keyword.
    pub slot: Slot<'a>,
    /// The sub-schema.
    pub schema: &'a Value,
}

impl Subschema<'_> {
    /// Appends the sub-schema's place (`/keyword`, and `/member` or `/index`) to a JSON
    /// Pointer to its parent.
    pub fn push_pointer(&self, at: &mut String) {
        pointer::push_token(at, self.keyword);
        match self.slot {
            Slot::Whole => {}
            Slot::Member(name) => pointer::push_token(at, name),
            Slot::Index(index) => pointer::push_index(at, index),
        }
    }
}

/// The sub-schemas directly under `node`, in the order its keywords are written, by
/// the one table of which keywords hold schemas ([`crate::keywords::holds`]). Member
/// names of `properties` and the like are data, never read as keywords.
pub fn subschemas(node: &Value) -> impl Iterator<Item = Subschema<'_>> {
    node.as_object()
        .into_iter()
        .flatten()
        .flat_map(|(keyword, value)| {
            let keyword = keyword.as_str();
            let found: Box<dyn Iterator<Item = Subschema<'_>>> = match (holds(keyword), value) {
                (Some(Holds::One), schema)
                | (Some(Holds::OneOrList), schema @ Value::Object(_)) => {
                    Box::new(std::iter::once(Subschema {
                        keyword,
                        slot: Slot::Whole,
                        schema,
                    }))
                }
                (Some(Holds::List | Holds::OneOrList), Value::Array(list)) => Box::new(
                    list.iter()
                        .enumerate()
                        .map(move |(index, schema)| Subschema {
                            keyword,
                            slot: Slot::Index(index),
                            schema,
                        }),
                ),
                (Some(Holds::Map), Value::Object(members)) => {
                    Box::new(members.iter().map(move |(name, schema)| Subschema {
                        keyword,
                        slot: Slot::Member(name),
                        schema,
                    }))
                }
                _ => Box::new(std::iter::empty()),
            };
            found
        })
}

/// The one schema of an `allOf` whose other members are only annotations.
fn annotated_wrapper(schema: &Value) -> Option<&Value> {
    let map = schema.as_object()?;
    let [only] = map.get("allOf")?.as_array()?.as_slice() else {
        return None;
    };
    let annotations_only = map.keys().all(|key| key == "allOf" || is_annotation(key));
    annotations_only.then_some(only)
}

/// The sub-schema for member `key` of an object governed by `schema`.
pub fn property<'a>(root: &'a Value, schema: &'a Value, key: &str) -> Option<&'a Value> {
    let schema = resolve(root, schema);
    if let Some(found) = schema.get("properties").and_then(|p| p.get(key)) {
        return Some(resolve(root, found));
    }
    match schema.get("additionalProperties") {
        Some(extra @ Value::Object(_)) => Some(resolve(root, extra)),
        _ => single_branch(root, schema).and_then(|branch| property(root, branch, key)),
    }
}

/// The sub-schema for item `index` of an array governed by `schema`.
pub fn item<'a>(root: &'a Value, schema: &'a Value, index: usize) -> Option<&'a Value> {
    let schema = resolve(root, schema);
    if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array) {
        if let Some(found) = prefix.get(index) {
            return Some(resolve(root, found));
        }
    }
    match schema.get("items") {
        Some(items @ Value::Object(_)) => Some(resolve(root, items)),
        Some(Value::Array(tuple)) => tuple.get(index).map(|s| resolve(root, s)),
        _ => single_branch(root, schema).and_then(|branch| item(root, branch, index)),
    }
}

/// The one non-null branch of an `anyOf`/`oneOf` (how schemars writes `Option<T>`).
pub fn single_branch<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    for keyword in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(keyword).and_then(Value::as_array) {
            let mut non_null = branches
                .iter()
                .map(|b| resolve(root, b))
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
            let first = non_null.next();
            if non_null.next().is_none() {
                return first;
            }
        }
    }
    None
}

/// The sub-schema that governs the value at `pointer` (a JSON Pointer), if the schema
/// says it unambiguously.
pub fn at_pointer<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut schema = resolve(root, root);
    if pointer.is_empty() {
        return Some(schema);
    }
    for raw in pointer.strip_prefix('/')?.split('/') {
        let token = raw.replace("~1", "/").replace("~0", "~");
        let by_key = property(root, schema, &token);
        schema = match by_key {
            Some(found) => found,
            None => item(root, schema, token.parse().ok()?)?,
        };
    }
    Some(schema)
}

/// Whether `schema` accepts `null`, as far as its `type`, `enum`, `const`, unions,
/// `allOf` parts and `$ref`s say (a schema that says nothing accepts it).
pub fn accepts_null(root: &Value, schema: &Value) -> bool {
    accepts_null_within(root, schema, MAX_REF_HOPS)
}

fn accepts_null_within(root: &Value, schema: &Value, depth: usize) -> bool {
    let map = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(map) => map,
        _ => return false,
    };
    if depth == 0 {
        return false;
    }
    let within = |s: &Value| accepts_null_within(root, s, depth - 1);
    let types = types_of(schema);
    let typed = types.is_empty() || types.contains(&"null");
    let listed = match map.get("enum") {
        Some(Value::Array(values)) => values.contains(&Value::Null),
        Some(_) => false,
        None => true,
    };
    let constant = map.get("const").is_none_or(Value::is_null);
    let branches = |keyword: &str| match map.get(keyword) {
        Some(Value::Array(branches)) => Some(branches),
        _ => None,
    };
    let unions = ["anyOf", "oneOf"]
        .iter()
        .all(|k| branches(k).is_none_or(|b| b.iter().any(within)));
    let parts = branches("allOf").is_none_or(|parts| parts.iter().all(within));
    let referenced = match map.get("$ref").and_then(Value::as_str) {
        Some(reference) => match reference.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(target) => within(target),
            None => false,
        },
        None => true,
    };
    typed && listed && constant && unions && parts && referenced && !map.contains_key("not")
}

/// The JSON Schema type name of `value` (`integer` for a number without a fraction
/// or exponent, `number` otherwise).
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The JSON types a schema allows, as written in its `type` keyword (empty if it does
/// not say).
pub fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A short description of what a schema expects, for error messages and instructions:
/// `one of create, update`, `integer between 0 and 5`, `array of object`, ...
pub fn describe(root: &Value, schema: &Value) -> String {
    describe_within(root, schema, MAX_DESCRIBE_DEPTH)
}

/// How many nested `items` / nullable branches [`describe`] follows: a recursive type
/// (a tree whose items are trees) would otherwise describe itself forever.
const MAX_DESCRIBE_DEPTH: usize = 16;

fn describe_within(root: &Value, schema: &Value, depth: usize) -> String {
    if depth == 0 {
        return "any value".to_string();
    }
    let schema = resolve(root, schema);
    if let Some(values) = enum_values(root, schema) {
        return format!("one of {}", list_values(&values));
    }
    if let Some(value) = schema.get("const") {
        return format!("exactly {value}");
    }
    if let Some(branch) = single_branch(root, schema) {
        return format!("{} or null", describe_within(root, branch, depth - 1));
    }
    let types = types_of(schema);
    let mut text = match types.as_slice() {
        [] => "any value".to_string(),
        [one] => (*one).to_string(),
        many => many.join(" or "),
    };
    if types == ["object"] {
        if let Some(members) = required_members(schema) {
            text = format!("object with {members}");
        }
    }
    if types.contains(&"array") {
        if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
            text = format!("array of {}", describe_within(root, items, depth - 1));
        }
    }
    let bounds = |low: &str, high: &str| -> Option<String> {
        match (schema.get(low), schema.get(high)) {
            (Some(l), Some(h)) => Some(format!("between {l} and {h}")),
            (Some(l), None) => Some(format!("at least {l}")),
            (None, Some(h)) => Some(format!("at most {h}")),
            (None, None) => None,
        }
    };
    if let Some(range) = bounds("minimum", "maximum") {
        text = format!("{text} {range}");
    }
    if let Some(range) = bounds("minItems", "maxItems") {
        text = format!("{text} with {range} items");
    }
    if let Some(range) = bounds("minLength", "maxLength") {
        text = format!("{text} of {range} characters");
    }
    text
}

/// The allowed values of an enum schema: its `enum`, or a `oneOf`/`anyOf` whose
/// branches are all constants (how schemars writes an enum with documented variants).
pub fn enum_values(root: &Value, schema: &Value) -> Option<Vec<Value>> {
    let schema = resolve(root, schema);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    let branches = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut values = Vec::with_capacity(branches.len());
    for branch in branches {
        let branch = resolve(root, branch);
        if let Some(constant) = branch.get("const") {
            values.push(constant.clone());
        } else if let Some(more) = branch.get("enum").and_then(Value::as_array) {
            values.extend(more.iter().cloned());
        } else {
            return None;
        }
    }
    (!values.is_empty()).then_some(values)
}

/// `"a", "b" and "c"` for the required members of an object schema (at most six named),
/// or `None` when it requires none.
fn required_members(schema: &Value) -> Option<String> {
    const NAMED: usize = 6;
    let required: Vec<&str> = schema
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let quoted: Vec<String> = required
        .iter()
        .take(NAMED)
        .map(|r| format!("\"{r}\""))
        .collect();
    match required.len() {
        0 => None,
        1 => Some(quoted[0].clone()),
        n if n <= NAMED => {
            let (last, rest) = quoted.split_last()?;
            Some(format!("{} and {last}", rest.join(", ")))
        }
        n => Some(format!("{}, ... ({n} members)", quoted.join(", "))),
    }
}

/// `a, b, c` for a list of JSON values (strings without their quotes).
pub fn list_values(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn root() -> Value {
        json!({
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["create", "update"]},
                "operations": {"type": "array", "items": {"$ref": "#/$defs/Op"}, "minItems": 1},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "$defs": {"Op": {"type": "object", "properties": {"action": {"type": "string"}}}}
        })
    }

    #[test]
    fn walks_through_refs_and_items() {
        let root = root();
        let action = at_pointer(&root, "/operations/3/action").unwrap();
        assert_eq!(action, &json!({"type": "string"}));
        assert!(at_pointer(&root, "/operations/x/action").is_none());
    }

    #[test]
    fn describes_enums_ranges_and_options() {
        let root = root();
        let mode = at_pointer(&root, "/mode").unwrap();
        assert_eq!(describe(&root, mode), "one of create, update");
        let ops = at_pointer(&root, "/operations").unwrap();
        assert_eq!(
            describe(&root, ops),
            "array of object with at least 1 items"
        );
        let note = at_pointer(&root, "/note").unwrap();
        assert_eq!(describe(&root, note), "string or null");
    }

    #[test]
    fn a_recursive_type_is_described_to_a_bounded_depth() {
        let root = json!({"$defs": {"Tree": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
                          "$ref": "#/$defs/Tree"});
        let text = describe(&root, &root);
        assert_eq!(text.matches("array of").count(), MAX_DESCRIBE_DEPTH);
        assert!(text.ends_with("any value"), "{text}");
    }

    #[test]
    fn which_schemas_accept_null() {
        let root =
            json!({"$defs": {"Kind": {"enum": ["a", "b"]}, "Maybe": {"type": ["string", "null"]}}});
        let yes = [
            json!({}),
            json!({"type": ["integer", "null"]}),
            json!({"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}]}),
            json!({"$ref": "#/$defs/Maybe", "description": "d"}),
            json!({"enum": ["a", null]}),
        ];
        for schema in yes {
            assert!(accepts_null(&root, &schema), "{schema}");
        }
        let no = [
            json!({"type": "string"}),
            json!({"$ref": "#/$defs/Kind"}),
            json!({"type": ["string", "null"], "enum": ["a"]}),
            json!({"const": 1}),
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"$ref": "#/$defs/Maybe", "type": "string"}),
            json!(false),
        ];
        for schema in no {
            assert!(!accepts_null(&root, &schema), "{schema}");
        }
    }

    #[test]
    fn ref_cycles_end() {
        let root = json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
                          "$ref": "#/$defs/A"});
        let _ = resolve(&root, &root);
    }

    #[test]
    fn subschemas_are_found_by_keyword_and_located() {
        let node = json!({
            "type": "object",
            "properties": {"a/b": {"type": "string"}, "enum": {"const": 1}},
            "items": [{"type": "null"}],
            "anyOf": [{"minimum": 1}],
            "not": {"type": "array"},
            "enum": [{"properties": {"x": {}}}],
            "description": {"type": "string"}
        });
        let mut found = Vec::new();
        for sub in subschemas(&node) {
            let mut at = String::new();
            sub.push_pointer(&mut at);
            assert_eq!(node.pointer(&at), Some(sub.schema));
            found.push(at);
        }
        assert_eq!(
            found,
            [
                "/properties/a~1b",
                "/properties/enum",
                "/items/0",
                "/anyOf/0",
                "/not"
            ]
        );
    }

    #[test]
    fn a_reference_is_read_as_a_fragment() {
        let root = json!({"$defs": {"a b": {"type": "string"}, "c": {"$ref": "#/$defs/a%20b"}}});
        assert_eq!(
            target(&root, "#/$defs/a%20b"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            resolve(&root, &json!({"$ref": "#/$defs/c"})),
            &json!({"type": "string"})
        );
        assert_eq!(target(&root, "other.json#/a"), None);
        assert_eq!(target(&root, "#/nowhere"), None);
    }
}
