//! Telling the branches of a `oneOf` / `anyOf` apart by the value's tag, the way serde
//! tells an enum's variants apart, for every representation schemars writes:
//!
//! - adjacently tagged (`{"intent": "export", "parameters": {...}}`) and internally
//!   tagged (`{"action": "add", ...}`): a required member whose schema is a constant;
//! - externally tagged (`{"add": {...}}`): a closed object with exactly one required
//!   member, whose name is the tag; its unit variants are bare string constants;
//! - unit-only enums (`"warm"`): constants;
//! - `null`, the second branch of an `Option<Enum>`.
//!
//! Read from the schema, not guessed from the errors: a value whose tag names a variant
//! is checked against that variant only, however many errors that variant reports.

use payload_schema::keywords::{self, Property};
use payload_schema::walk::{resolve, types_of};
use serde_json::Value;

/// How one branch of a union is recognised in a value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Discriminator {
    /// A member that holds a constant: `intent: "export"` (adjacent or internal tag).
    Member {
        /// The tag member, e.g. `intent`.
        key: String,
        /// The variant's tag, e.g. `"export"`.
        value: Value,
    },
    /// The only member of a closed object: the externally tagged variant `add`.
    Key(String),
    /// The value itself is a constant: a unit variant written as a string, or `null`.
    Constant(Value),
}

impl Discriminator {
    /// Whether `instance` carries this branch's tag.
    pub(crate) fn matches(&self, instance: &Value) -> bool {
        match self {
            Discriminator::Member { key, value } => instance.get(key) == Some(value),
            Discriminator::Key(key) => instance
                .as_object()
                .is_some_and(|map| map.contains_key(key)),
            Discriminator::Constant(value) => instance == value,
        }
    }

    /// The variant's name as a model writes it: `export`, `add`, `noop`.
    pub(crate) fn tag(&self) -> Value {
        match self {
            Discriminator::Member { value, .. } => value.clone(),
            Discriminator::Key(key) => Value::String(key.clone()),
            Discriminator::Constant(value) => value.clone(),
        }
    }

    /// How messages about this variant's content name it: `intent "export"`,
    /// `variant "add"`. `None` for a constant, which has no content.
    pub(crate) fn label(&self) -> Option<String> {
        match self {
            Discriminator::Member { key, value } => Some(format!("{key} {value}")),
            Discriminator::Key(key) => Some(format!("variant \"{key}\"")),
            Discriminator::Constant(_) => None,
        }
    }
}

/// The discriminator of every branch, if every branch has one (the union is a tagged
/// enum), together with the resolved branch schemas.
pub(crate) fn discriminators<'a>(
    root: &'a Value,
    branches: &'a [Value],
) -> Option<Vec<(Discriminator, &'a Value)>> {
    let found: Vec<(Discriminator, &Value)> = branches
        .iter()
        .map(|branch| {
            let branch = resolve(root, branch);
            discriminator(root, branch).map(|d| (d, branch))
        })
        .collect::<Option<_>>()?;
    // Constants alone are a plain enum, reported as one list of values elsewhere; a
    // lone `null` beside one other branch is an `Option`.
    let tagged = found
        .iter()
        .filter(|(d, _)| !matches!(d, Discriminator::Constant(_)))
        .count();
    (tagged > 0).then_some(found)
}

/// How `branch` (already resolved) is recognised, if the schema says.
fn discriminator(root: &Value, branch: &Value) -> Option<Discriminator> {
    if let Some(value) = constant(branch) {
        return Some(Discriminator::Constant(value.clone()));
    }
    if types_of(branch) == ["null"] {
        return Some(Discriminator::Constant(Value::Null));
    }
    let properties = object_properties(root, branch);
    let required = required(branch);
    for &(key, member) in &properties {
        if !required.contains(&key) {
            continue;
        }
        if let Some(value) = constant(resolve(root, member)) {
            return Some(Discriminator::Member {
                key: key.to_string(),
                value: value.clone(),
            });
        }
    }
    let closed = branch.get("additionalProperties") == Some(&Value::Bool(false))
        || branch.get("unevaluatedProperties") == Some(&Value::Bool(false));
    match (properties.len(), required.as_slice()) {
        (1, [only]) if closed && property(&properties, only).is_some() => {
            Some(Discriminator::Key((*only).to_string()))
        }
        _ => None,
    }
}

/// `const`, or an `enum` of one value.
fn constant(schema: &Value) -> Option<&Value> {
    schema.get("const").or_else(|| {
        schema
            .get("enum")
            .and_then(Value::as_array)
            .filter(|values| values.len() == 1)
            .and_then(|values| values.first())
    })
}

/// The members an object schema declares, its own first, then those of its `allOf`
/// parts (schemars puts a newtype variant's content there beside the tag); a name
/// declared twice keeps its first schema. Borrowed from the schema: this runs for every
/// tagged value a walk meets, so nothing is copied.
pub(crate) fn object_properties<'a>(
    root: &'a Value,
    schema: &'a Value,
) -> Vec<(&'a str, &'a Value)> {
    let mut all: Vec<(&'a str, &'a Value)> = Vec::new();
    let mut parts = vec![schema];
    if let Some(more) = schema.get("allOf").and_then(Value::as_array) {
        parts.extend(more.iter().map(|part| resolve(root, part)));
    }
    for part in parts {
        if let Some(properties) = part.get("properties").and_then(Value::as_object) {
            for (key, member) in properties {
                if !all.iter().any(|(name, _)| *name == key.as_str()) {
                    all.push((key.as_str(), member));
                }
            }
        }
    }
    all
}

/// The schema of member `name` among `properties`.
pub(crate) fn property<'a>(properties: &[(&'a str, &'a Value)], name: &str) -> Option<&'a Value> {
    properties
        .iter()
        .find(|(key, _)| *key == name)
        .map(|(_, schema)| *schema)
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The members any branch of the union in `schema` declares, with the schema's own.
pub(crate) fn union_members(root: &Value, schema: &Value) -> Vec<String> {
    let mut names: Vec<String> = object_properties(root, schema)
        .into_iter()
        .map(|(name, _)| name.to_string())
        .collect();
    // `oneOf`'s branches first, then `anyOf`'s and `allOf`'s (the table's order
    // reversed): the members are listed in the order errors have always named them.
    for keyword in keywords::with(Property::Branches).rev() {
        for branch in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for (name, _) in object_properties(root, resolve(root, branch)) {
                if !names.iter().any(|known| known == name) {
                    names.push(name.to_string());
                }
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_representation_has_its_discriminator() {
        let root = json!({
            "$defs": {"P": {"type": "object", "properties": {"format": {"type": "string"}}}},
            "oneOf": [
                {"type": "object", "properties": {"intent": {"type": "string", "const": "export"},
                  "parameters": {"$ref": "#/$defs/P"}}, "required": ["intent", "parameters"]},
                {"type": "object", "properties": {"add": {"$ref": "#/$defs/P"}},
                  "required": ["add"], "additionalProperties": false},
                {"type": "string", "const": "noop"},
                {"type": "null"}
            ]
        });
        let branches = root["oneOf"].as_array().unwrap();
        let found = discriminators(&root, branches).unwrap();
        let kinds: Vec<&Discriminator> = found.iter().map(|(d, _)| d).collect();
        assert_eq!(
            kinds,
            [
                &Discriminator::Member {
                    key: "intent".into(),
                    value: json!("export")
                },
                &Discriminator::Key("add".into()),
                &Discriminator::Constant(json!("noop")),
                &Discriminator::Constant(Value::Null),
            ]
        );
        assert!(kinds[0].matches(&json!({"intent": "export", "parameters": {}})));
        assert!(!kinds[0].matches(&json!({"intent": "exprot"})));
        assert!(kinds[1].matches(&json!({"add": {"format": "csv"}})));
        assert_eq!(kinds[0].label().unwrap(), "intent \"export\"");
        assert_eq!(kinds[1].label().unwrap(), "variant \"add\"");
    }

    #[test]
    fn an_untagged_union_has_none() {
        let root = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "string"}
        ]});
        assert!(discriminators(&root, root["anyOf"].as_array().unwrap()).is_none());
        let plain = json!({"oneOf": [{"const": "a"}, {"const": "b"}]});
        assert!(discriminators(&plain, plain["oneOf"].as_array().unwrap()).is_none());
    }
}
