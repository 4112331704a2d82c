//! The rewrite of a type's 2020-12 schema into OpenAI's strict subset, keyword by
//! keyword: each is kept, dropped (it only annotates), rewritten into keywords strict
//! mode takes (integer formats, exclusive `oneOf`s, `$ref`s with siblings, optional
//! members), or refused with the reason.
//!
//! The rewrite never changes which values are accepted: where no strict form says the
//! same thing, it records a [`StrictRefusal`] and leaves the node as it was, so that the
//! best-effort schema ([`crate::dialect::Dialect::OpenAiStrict`]) still comes out whole.
//!
//! Recursion here follows the schema, which comes from the type's declaration, and is
//! bounded by [`MAX_SCHEMA_DEPTH`] (deeper is a refusal).

use super::STRING_FORMATS;
use super::integers;
use super::refusal::{StrictRefusal, StrictRefusalKind as Kind};
use super::union;
use crate::keywords::is_annotation;
use crate::limits::MAX_SCHEMA_DEPTH;
use crate::pointer::push_token;
use crate::walk::{accepts_null, resolve, types_of};
use serde_json::{Map, Number, Value, json};

/// Whether `key` is dropped from the strict schema (it only annotates).
pub(super) fn dropped(key: &str) -> bool {
    key == "$schema" || (is_annotation(key) && !kept_annotation(key))
}

/// Whether `key` is an annotation strict mode keeps.
fn kept_annotation(key: &str) -> bool {
    key == "description" || key == "title"
}

/// The JSON types a `type` keyword may name.
const TYPES: [&str; 7] = [
    "string", "number", "boolean", "integer", "object", "array", "null",
];

/// The rewrite of one schema: its state while the nodes are visited.
pub(super) struct Rewrite<'a> {
    /// The whole input schema, for `$ref`s.
    root: &'a Value,
    /// The definitions that reach themselves through `$ref`s: never inlined.
    recursive: Vec<String>,
    /// The definitions a kept `$ref` points at, in the order first met.
    kept: Vec<String>,
    /// What could not be rewritten.
    refusals: Vec<StrictRefusal>,
}

impl<'a> Rewrite<'a> {
    /// Rewrites `root`: the best-effort strict schema, and every refusal met, in the
    /// order they were met.
    pub(super) fn run(root: &'a Value) -> (Value, Vec<StrictRefusal>) {
        let mut rewrite = Rewrite {
            root,
            recursive: recursive_definitions(root),
            kept: Vec::new(),
            refusals: Vec::new(),
        };
        rewrite.check_root();
        let body = match root {
            Value::Object(map) => {
                let mut map = map.clone();
                map.remove("$defs");
                Value::Object(map)
            }
            other => other.clone(),
        };
        let mut schema = rewrite.node(&body, "", 0);
        let mut definitions = Map::new();
        let mut next = 0;
        while let Some(name) = rewrite.kept.get(next).cloned() {
            next += 1;
            if let Some(definition) = rewrite.definition(&name) {
                let path = definition_path(&name);
                let rewritten = rewrite.node(definition, &path, 1);
                definitions.insert(name, rewritten);
            }
        }
        if let (Value::Object(map), false) = (&mut schema, definitions.is_empty()) {
            // In the order the input declares them.
            let order = root.get("$defs").and_then(Value::as_object);
            let mut sorted = Map::new();
            for name in order.into_iter().flat_map(|defs| defs.keys()) {
                if let Some(definition) = definitions.remove(name) {
                    sorted.insert(name.clone(), definition);
                }
            }
            map.insert("$defs".into(), Value::Object(sorted));
        }
        (schema, rewrite.refusals)
    }

    fn refuse(&mut self, kind: Kind, path: &str, reason: impl Into<String>) {
        let refusal = StrictRefusal::new(kind, path, reason);
        if !self.refusals.contains(&refusal) {
            self.refusals.push(refusal);
        }
    }

    fn definition(&self, name: &str) -> Option<&'a Value> {
        self.root.get("$defs")?.get(name)
    }

    /// Strict mode takes an object schema at the top, never an array, a scalar or a
    /// union of variants.
    fn check_root(&mut self) {
        let top = resolve(self.root, self.root);
        let types = types_of(top);
        if types == ["object"] {
            return;
        }
        let what = if types.contains(&"array") {
            "the top level is an array".to_string()
        } else if types.is_empty() && (top.get("oneOf").is_some() || top.get("anyOf").is_some()) {
            "the top level is a union of variants (an enum payload)".to_string()
        } else if types.is_empty() {
            "the top level does not say it is an object".to_string()
        } else {
            format!("the top level is {}", types.join(" or "))
        };
        self.refuse(
            Kind::NotAnObjectRoot,
            "",
            format!("{what}; strict mode takes an object schema at the top level"),
        );
    }

    /// The strict form of `schema`, found at `path` in the input.
    fn node(&mut self, schema: &Value, path: &str, depth: usize) -> Value {
        if depth > MAX_SCHEMA_DEPTH {
            self.refuse(
                Kind::Limit,
                path,
                format!("the schema nests deeper than {MAX_SCHEMA_DEPTH} levels"),
            );
            return schema.clone();
        }
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(true) => {
                self.refuse(
                    Kind::AnyValue,
                    path,
                    "a member that accepts any value cannot be strict",
                );
                return schema.clone();
            }
            Value::Bool(false) => {
                self.refuse(
                    Kind::UnsupportedKeyword,
                    path,
                    "a schema no value matches (`false`) cannot be strict",
                );
                return schema.clone();
            }
            _ => {
                self.refuse(
                    Kind::UnsupportedKeyword,
                    path,
                    "a schema that is not an object cannot be strict",
                );
                return schema.clone();
            }
        };
        if let Some(reference) = map.get("$ref") {
            return self.reference(map, reference, path, depth);
        }
        if map.keys().all(|k| dropped(k) || kept_annotation(k)) {
            self.refuse(
                Kind::AnyValue,
                path,
                "a member that accepts any JSON value cannot be strict",
            );
        }
        let types: Vec<String> = types_of(schema).into_iter().map(str::to_owned).collect();
        let mut out = Map::new();
        let mut bounds = None;
        for (key, value) in map {
            let mut here = path.to_string();
            push_token(&mut here, key);
            match key.as_str() {
                k if kept_annotation(k) => {
                    out.insert(key.clone(), value.clone());
                }
                k if dropped(k) => {}
                "type" => {
                    if !types_of(schema).iter().all(|t| TYPES.contains(t)) || types.is_empty() {
                        self.refuse(
                            Kind::UnsupportedKeyword,
                            &here,
                            "a `type` that names no JSON type cannot be strict",
                        );
                    }
                    out.insert(key.clone(), value.clone());
                }
                "enum" | "const" | "pattern" | "multipleOf" | "minimum" | "maximum"
                | "exclusiveMinimum" | "exclusiveMaximum" | "minItems" | "maxItems" => {
                    out.insert(key.clone(), value.clone());
                }
                "properties" => self.object(map, &types, &mut out, path, depth),
                // Written by `object` (or `memberless_object`), beside the properties.
                "required" | "additionalProperties" if map.contains_key("properties") => {}
                "additionalProperties" if types.iter().any(|t| t == "object") => {}
                "required" if value.as_array().is_some_and(Vec::is_empty) => {}
                "items" if !value.is_array() => {
                    let items = self.node(value, &here, depth + 1);
                    out.insert(key.clone(), items);
                }
                "format" => {
                    if let Some(found) = self.format(&types, value, &here) {
                        match found {
                            Format::Keep => {
                                out.insert(key.clone(), value.clone());
                            }
                            Format::Bounds(low, high) => bounds = Some((low, high)),
                            Format::Drop => {}
                        }
                    } else {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "anyOf" => {
                    let branches = self.branches(value, &here, depth);
                    out.insert(key.clone(), branches);
                }
                "oneOf" => {
                    let exclusive = value
                        .as_array()
                        .is_some_and(|branches| union::exclusive(self.root, branches));
                    if !exclusive {
                        self.refuse(
                            Kind::OverlappingUnion,
                            &here,
                            "a `oneOf` whose branches are not provably exclusive (no distinct \
                             type, constant or required tag) cannot be written as `anyOf`",
                        );
                    }
                    let branches = self.branches(value, &here, depth);
                    let name = if exclusive { "anyOf" } else { "oneOf" };
                    out.insert(name.into(), branches);
                }
                // No-ops that strict mode does not take: dropping them changes nothing.
                "minLength" if value == &json!(0) => {}
                "uniqueItems" if value == &json!(false) => {}
                other => {
                    let reason = match other {
                        "items" => "a tuple (`items` as a list) cannot be strict".to_string(),
                        _ => format!(
                            "`{other}` cannot be strict, and dropping it would change what is accepted"
                        ),
                    };
                    self.refuse(Kind::UnsupportedKeyword, &here, reason);
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if let Some(found) = bounds {
            integers::apply(&mut out, found);
        }
        let object = types.iter().any(|t| t == "object");
        if object && !map.contains_key("properties") {
            self.memberless_object(map, &mut out, path);
        }
        self.union_siblings(map, &types, &mut out, path);
        Value::Object(out)
    }

    /// Each branch of a union, rewritten.
    fn branches(&mut self, value: &Value, path: &str, depth: usize) -> Value {
        let Some(branches) = value.as_array() else {
            self.refuse(
                Kind::UnsupportedKeyword,
                path,
                "a union that is not a list cannot be strict",
            );
            return value.clone();
        };
        let rewritten = branches
            .iter()
            .enumerate()
            .map(|(i, branch)| self.node(branch, &format!("{path}/{i}"), depth + 1))
            .collect();
        Value::Array(rewritten)
    }

    /// An object's members: each rewritten, every one listed in `required` (an
    /// optional one made to accept `null` unless it already does), and no others
    /// allowed.
    fn object(
        &mut self,
        map: &Map<String, Value>,
        types: &[String],
        out: &mut Map<String, Value>,
        path: &str,
        depth: usize,
    ) {
        let mut here = path.to_string();
        push_token(&mut here, "properties");
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            self.refuse(
                Kind::UnsupportedKeyword,
                &here,
                "`properties` that is not an object cannot be strict",
            );
            return;
        };
        if !types.iter().any(|t| t == "object") {
            self.refuse(
                Kind::UnsupportedKeyword,
                path,
                "members (`properties`) on a schema that does not say `type: object` cannot be strict",
            );
        }
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in &required {
            if !properties.contains_key(*name) {
                self.refuse(
                    Kind::AnyValue,
                    path,
                    format!("the required member `{name}` has no schema (it accepts any value)"),
                );
            }
        }
        let mut rewritten = Map::new();
        for (name, member) in properties {
            let mut at = here.clone();
            push_token(&mut at, name);
            let mut schema = self.node(member, &at, depth + 1);
            if !required.contains(&name.as_str()) && !accepts_null(self.root, member) {
                schema = nullable(schema);
            }
            rewritten.insert(name.clone(), schema);
        }
        let names = properties.keys().cloned().map(Value::String).collect();
        out.insert("properties".into(), Value::Object(rewritten));
        out.insert("required".into(), Value::Array(names));
        match map.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {
                // Closing an object that said nothing of other members only refuses
                // members the type does not declare, which decoding ignores.
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            Some(extra) => {
                let mut at = path.to_string();
                push_token(&mut at, "additionalProperties");
                self.refuse(
                    Kind::FreeFormMap,
                    &at,
                    "members beside the declared ones (a flattened map) cannot be strict",
                );
                out.insert("additionalProperties".into(), extra.clone());
            }
        }
    }

    /// An object schema that declares no members: a map (refused), unless it allows
    /// none at all.
    fn memberless_object(
        &mut self,
        map: &Map<String, Value>,
        out: &mut Map<String, Value>,
        path: &str,
    ) {
        match map.get("additionalProperties") {
            Some(Value::Bool(false)) => {
                out.insert("properties".into(), Value::Object(Map::new()));
                out.insert("required".into(), Value::Array(Vec::new()));
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            Some(extra) => {
                self.refuse(Kind::FreeFormMap, path, "a free-form map cannot be strict");
                out.insert("additionalProperties".into(), extra.clone());
            }
            None => self.refuse(
                Kind::FreeFormMap,
                path,
                "an object with no declared members (any keys) cannot be strict",
            ),
        }
    }

    /// A union must stand alone in its schema (beside annotations): a `type` every
    /// branch already states is dropped, anything else is refused.
    fn union_siblings(
        &mut self,
        map: &Map<String, Value>,
        types: &[String],
        out: &mut Map<String, Value>,
        path: &str,
    ) {
        let union = ["anyOf", "oneOf"]
            .into_iter()
            .find(|k| map.contains_key(*k));
        let Some(union) = union else { return };
        if map.contains_key("properties") {
            self.refuse(
                Kind::UnionBesideMembers,
                path,
                "a union beside members of its own (a flattened enum) cannot be strict",
            );
            return;
        }
        let written = if out.contains_key("anyOf") {
            "anyOf"
        } else {
            "oneOf"
        };
        let others: Vec<String> = out
            .keys()
            .filter(|k| *k != written && !kept_annotation(k))
            .cloned()
            .collect();
        for key in others {
            if key == "type" && self.branches_state_type(map, union, types) {
                out.remove("type");
                continue;
            }
            self.refuse(
                Kind::UnsupportedKeyword,
                path,
                format!("`{key}` beside `{union}` cannot be strict"),
            );
        }
    }

    /// Whether every branch of the union states a type among `own` (the schema's own
    /// `type`), which then says nothing the branches do not.
    fn branches_state_type(&self, map: &Map<String, Value>, union: &str, own: &[String]) -> bool {
        map[union].as_array().is_some_and(|branches| {
            branches.iter().all(|branch| {
                let types = types_of(resolve(self.root, branch));
                !types.is_empty() && types.iter().all(|t| own.iter().any(|o| o == t))
            })
        })
    }

    /// A `$ref`: kept bare, or the definition inlined with the keywords beside it.
    ///
    /// Strict mode takes nothing beside a `$ref`. A non-recursive definition is
    /// inlined, merged with what is beside the reference (the member's own
    /// `description` and `title` win over the definition's). A recursive one cannot be
    /// inlined: its `$ref` is kept, with the annotations beside it dropped (they never
    /// change what is accepted), and any constraint beside it refused.
    fn reference(
        &mut self,
        map: &Map<String, Value>,
        reference: &Value,
        path: &str,
        depth: usize,
    ) -> Value {
        let target = reference.as_str().and_then(|r| self.target(r));
        let Some(target) = target else {
            self.refuse(
                Kind::UnresolvableRef,
                path,
                format!("the `$ref` {reference} does not point at `#` or `#/$defs/...`"),
            );
            return Value::Object(map.clone());
        };
        let beside: Vec<(&String, &Value)> = map
            .iter()
            .filter(|(k, _)| *k != "$ref" && !dropped(k))
            .collect();
        let bare = json!({"$ref": reference});
        let recursive = match &target {
            Target::Root => true,
            Target::Definition(name) => self.recursive.contains(name),
        };
        if recursive {
            if let Some((key, _)) = beside.iter().find(|(k, _)| !kept_annotation(k)) {
                self.refuse(
                    Kind::RefWithSiblings,
                    path,
                    format!("`{key}` beside a `$ref` to a recursive definition cannot be strict"),
                );
                return Value::Object(map.clone());
            }
            if let Target::Definition(name) = target {
                self.keep(name);
            }
            return bare;
        }
        let Target::Definition(name) = target else {
            return bare;
        };
        if beside.is_empty() {
            self.keep(name);
            return bare;
        }
        let definition = self.definition(&name).cloned().unwrap_or(Value::Bool(true));
        let Value::Object(mut merged) = definition else {
            return self.node(&definition, &definition_path(&name), depth + 1);
        };
        for (key, value) in beside {
            match merged.get(key.as_str()) {
                Some(existing) if existing != value && !kept_annotation(key) => {
                    self.refuse(
                        Kind::RefWithSiblings,
                        path,
                        format!(
                            "`{key}` beside a `$ref` whose definition states another `{key}` cannot be strict"
                        ),
                    );
                    return Value::Object(map.clone());
                }
                _ => {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        self.node(&Value::Object(merged), &definition_path(&name), depth + 1)
    }

    /// What a `$ref` points at, when it is one strict mode takes.
    fn target(&self, reference: &str) -> Option<Target> {
        if reference == "#" {
            return Some(Target::Root);
        }
        let token = reference.strip_prefix("#/$defs/")?;
        if token.contains('/') {
            return None;
        }
        let name = token.replace("~1", "/").replace("~0", "~");
        self.definition(&name)?;
        Some(Target::Definition(name))
    }

    fn keep(&mut self, name: String) {
        if !self.kept.contains(&name) {
            self.kept.push(name);
        }
    }

    /// What becomes of a `format`: `None` when it is refused (the reason recorded).
    fn format(&mut self, types: &[String], value: &Value, path: &str) -> Option<Format> {
        let Some(name) = value.as_str() else {
            self.refuse(
                Kind::UnsupportedFormat,
                path,
                "a `format` that is not a string cannot be strict",
            );
            return None;
        };
        let has = |t: &str| types.iter().any(|x| x == t);
        if let Some(bounds) = integers::bounds(name) {
            return match bounds {
                Some((low, high)) if has("integer") => Some(Format::Bounds(low, high)),
                Some(_) => {
                    self.refuse(
                        Kind::UnsupportedFormat,
                        path,
                        format!("the integer format `{name}` on a schema that is not an integer cannot be strict"),
                    );
                    None
                }
                None => {
                    self.refuse(
                        Kind::UnsupportedFormat,
                        path,
                        format!("the bounds of the format `{name}` cannot be written exactly"),
                    );
                    None
                }
            };
        }
        // A float's format is not checked by any validator (every JSON number reads as
        // one): it only annotates.
        if matches!(name, "double" | "float") && !has("string") {
            return Some(Format::Drop);
        }
        if STRING_FORMATS.contains(&name) {
            return Some(Format::Keep);
        }
        self.refuse(
            Kind::UnsupportedFormat,
            path,
            format!(
                "the format `{name}` cannot be strict (strict mode knows {})",
                STRING_FORMATS.join(", ")
            ),
        );
        None
    }
}

/// What a `format` becomes.
enum Format {
    /// Kept as it is (a string format strict mode knows).
    Keep,
    /// Replaced by these bounds (an integer width).
    Bounds(Number, Number),
    /// Dropped (it only annotates).
    Drop,
}

/// Where a `$ref` points.
enum Target {
    /// `#`: the whole schema.
    Root,
    /// `#/$defs/NAME`.
    Definition(String),
}

fn definition_path(name: &str) -> String {
    let mut path = "/$defs".to_string();
    push_token(&mut path, name);
    path
}

/// `schema` made to accept `null` as well: `null` added to its `type` when that says
/// it all, a `null` branch added to its union, or else a union of it and `null` (its
/// annotations moved to the union).
pub(super) fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return json!({"anyOf": [schema, {"type": "null"}]});
    };
    let constrains_values = crate::keywords::names_any(&map, crate::keywords::Property::BeyondType);
    if !constrains_values {
        match map.get_mut("type") {
            Some(Value::String(t)) => {
                let t = std::mem::take(t);
                map.insert("type".into(), json!([t, "null"]));
                return Value::Object(map);
            }
            Some(Value::Array(types)) => {
                types.push("null".into());
                return Value::Object(map);
            }
            _ => {}
        }
    }
    let union_alone = map.keys().all(|k| k == "anyOf" || kept_annotation(k));
    if let (true, Some(Value::Array(branches))) = (union_alone, map.get_mut("anyOf")) {
        branches.push(json!({"type": "null"}));
        return Value::Object(map);
    }
    let mut outer = Map::new();
    let annotations: Vec<(String, Value)> = ["description", "title"]
        .iter()
        .filter_map(|k| map.remove(*k).map(|v| (k.to_string(), v)))
        .collect();
    outer.insert(
        "anyOf".into(),
        json!([Value::Object(map), {"type": "null"}]),
    );
    outer.extend(annotations);
    Value::Object(outer)
}

/// The definitions that reach themselves through `$ref`s.
fn recursive_definitions(root: &Value) -> Vec<String> {
    let Some(definitions) = root.get("$defs").and_then(Value::as_object) else {
        return Vec::new();
    };
    let refs_of =
        |name: &str| -> Vec<String> { definitions.get(name).map(references).unwrap_or_default() };
    definitions
        .keys()
        .filter(|name| {
            let mut seen: Vec<String> = Vec::new();
            let mut todo = refs_of(name);
            while let Some(next) = todo.pop() {
                if &next == *name {
                    return true;
                }
                if !seen.contains(&next) {
                    todo.extend(refs_of(&next));
                    seen.push(next);
                }
            }
            false
        })
        .cloned()
        .collect()
}

/// The definition names every `#/$defs/...` reference inside `schema` points at.
fn references(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                {
                    found.push(name.replace("~1", "/").replace("~0", "~"));
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}
