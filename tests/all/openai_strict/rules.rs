//! OpenAI's strict-mode rules (Structured Outputs, "Supported schemas"), written from
//! the documented list and nothing else: this module shares no code with the rewrite in
//! payload-core, so that a rewrite which drifts from the rules is caught.

use serde_json::Value;

/// The types `type` may name.
const TYPES: [&str; 7] = [
    "string", "number", "boolean", "integer", "object", "array", "null",
];
/// The string formats strict mode supports.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// Keywords any schema may carry.
const ANY: [&str; 7] = [
    "type",
    "description",
    "title",
    "enum",
    "const",
    "anyOf",
    "$ref",
];
/// Keywords by the type they belong to.
const BY_TYPE: [(&str, &[&str]); 5] = [
    (
        "object",
        &["properties", "required", "additionalProperties"],
    ),
    ("array", &["items", "minItems", "maxItems"]),
    ("string", &["pattern", "format"]),
    (
        "number",
        &[
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
        ],
    ),
    (
        "integer",
        &[
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
        ],
    ),
];

/// Every rule `schema` breaks, each as "what (at path)"; empty when it is strict.
pub fn violations(schema: &Value) -> Vec<String> {
    let mut check = Check {
        root: schema,
        found: Vec::new(),
        properties: 0,
        enum_values: 0,
        text: 0,
    };
    if schema.get("type") != Some(&Value::String("object".into())) {
        check
            .found
            .push("the root is not `type: \"object\"`".into());
    }
    if schema.get("anyOf").is_some() {
        check.found.push("the root is an `anyOf`".into());
    }
    check.node(schema, "", true);
    if let Some(defs) = schema.get("$defs") {
        match defs.as_object() {
            Some(defs) => {
                for (name, def) in defs {
                    check.text += name.chars().count();
                    check.node(def, &format!("/$defs/{name}"), false);
                }
            }
            None => check.found.push("`$defs` is not an object".into()),
        }
    }
    let nesting = object_levels(schema, schema, &mut Vec::new());
    let limits = [
        (nesting, 10, "levels of object nesting"),
        (check.properties, 5000, "object properties"),
        (check.enum_values, 1000, "enum values"),
        (check.text, 120_000, "characters of names and values"),
    ];
    for (count, max, what) in limits {
        if count > max {
            check.found.push(format!("{count} {what}, more than {max}"));
        }
    }
    check.found
}

struct Check<'a> {
    root: &'a Value,
    found: Vec<String>,
    properties: usize,
    enum_values: usize,
    text: usize,
}

impl Check<'_> {
    fn node(&mut self, node: &Value, path: &str, root: bool) {
        let Some(map) = node.as_object() else {
            self.found
                .push(format!("a schema that is not an object (at {path})"));
            return;
        };
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            Some(_) => {
                self.found
                    .push(format!("a `type` that is not a name or list (at {path})"));
                Vec::new()
            }
            None => Vec::new(),
        };
        for t in &types {
            if !TYPES.contains(t) {
                self.found.push(format!("unknown type {t} (at {path})"));
            }
        }
        if ["type", "anyOf", "$ref", "enum", "const"]
            .iter()
            .all(|k| !map.contains_key(*k))
        {
            self.found
                .push(format!("a schema that accepts any value (at {path})"));
        }
        for key in map.keys() {
            let allowed = ANY.contains(&key.as_str())
                || (root && key == "$defs")
                || BY_TYPE
                    .iter()
                    .any(|(t, keys)| types.contains(t) && keys.contains(&key.as_str()));
            if !allowed {
                self.found
                    .push(format!("unsupported keyword `{key}` (at {path})"));
            }
        }
        if let Some(reference) = map.get("$ref") {
            if map.len() > 1 {
                self.found
                    .push(format!("keywords beside `$ref` (at {path})"));
            }
            let target = reference.as_str().and_then(|r| {
                if r == "#" {
                    return Some(());
                }
                let name = r.strip_prefix("#/$defs/")?;
                self.root.get("$defs")?.get(name).map(|_| ())
            });
            if target.is_none() {
                self.found
                    .push(format!("a `$ref` to {reference} (at {path})"));
            }
        }
        if let Some(format) = map.get("format") {
            if !format.as_str().is_some_and(|f| FORMATS.contains(&f)) {
                self.found.push(format!("the format {format} (at {path})"));
            }
        }
        if let Some(values) = map.get("enum") {
            for value in values.as_array().into_iter().flatten() {
                self.enum_values += 1;
                self.text += length(value);
            }
        }
        if let Some(value) = map.get("const") {
            self.text += length(value);
        }
        if types.contains(&"object") {
            self.object(map, path);
        }
        if let Some(items) = map.get("items") {
            self.node(items, &format!("{path}/items"), false);
        }
        if let Some(branches) = map.get("anyOf") {
            match branches.as_array() {
                Some(branches) if !branches.is_empty() => {
                    for (i, branch) in branches.iter().enumerate() {
                        self.node(branch, &format!("{path}/anyOf/{i}"), false);
                    }
                }
                _ => self
                    .found
                    .push(format!("an empty or malformed `anyOf` (at {path})")),
            }
        }
    }

    fn object(&mut self, map: &serde_json::Map<String, Value>, path: &str) {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            self.found.push(format!(
                "an object without `additionalProperties: false` (at {path})"
            ));
        }
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            self.found
                .push(format!("an object without `properties` (at {path})"));
            return;
        };
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut listed = required.clone();
        names.sort_unstable();
        listed.sort_unstable();
        if names != listed {
            self.found
                .push(format!("`required` is not every property (at {path})"));
        }
        self.properties += properties.len();
        for (name, member) in properties {
            self.text += name.chars().count();
            self.node(member, &format!("{path}/properties/{name}"), false);
        }
    }
}

/// How a value counts toward the text limit.
fn length(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().len(),
    }
}

/// The most object schemas met on one path down from `node`, following `$ref`s except
/// back into a definition already being followed (recursion is allowed).
fn object_levels<'a>(root: &'a Value, node: &'a Value, following: &mut Vec<&'a str>) -> usize {
    let own = usize::from(node.get("properties").is_some());
    let mut below = 0;
    if let Some(name) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        if let Some(def) = root.get("$defs").and_then(|d| d.get(name)) {
            if !following.contains(&name) {
                following.push(name);
                below = below.max(object_levels(root, def, following));
                following.pop();
            }
        }
    }
    let children = node
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values())
        .chain(node.get("items"))
        .chain(
            node.get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    for child in children {
        below = below.max(object_levels(root, child, following));
    }
    own + below
}

#[test]
fn the_rules_catch_what_they_name() {
    use serde_json::json;
    let good = json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}},
                      "required": ["a"], "additionalProperties": false});
    assert!(violations(&good).is_empty());
    let cases = [
        (
            json!({"type": "array", "items": {"type": "string"}}),
            "root",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": []}),
            "additionalProperties",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}},
                "required": ["a"], "additionalProperties": false}),
            "minLength",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "x"}},
                "required": ["a"], "additionalProperties": false,
                "$defs": {"A": {"type": "string"}}}),
            "beside `$ref`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "integer", "format": "uint8"}},
                "required": ["a"], "additionalProperties": false}),
            "format",
        ),
        (
            json!({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}},
                "required": ["a"], "additionalProperties": false}),
            "oneOf",
        ),
    ];
    for (schema, named) in cases {
        let found = violations(&schema);
        assert!(
            found.iter().any(|v| v.contains(named)),
            "{named}: {found:?}"
        );
    }
}
