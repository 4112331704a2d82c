//! A schema compiled into plan nodes, once per payload type.
//!
//! Every keyword the plan checks is read here into a field of [`Node`]; a keyword that
//! only annotates, or belongs to the document, is passed over (`payload_schema::keywords`
//! says which, the one table every schema reader asks); any other keyword marks its node
//! unsupported, so a value that reaches it goes the validator's way. Work is bounded by
//! the schema's size: each schema object is compiled once (a `$ref` to one already
//! compiled, a recursive type's included, is its node), at most [`MAX_NODES`] nodes, and
//! nothing is followed deeper than [`MAX_SCHEMA_DEPTH`].

use super::node::{Extra, Node, NodeId, Pick, Types, Union};
use payload_schema::formats::{FLOAT_FORMATS, integer_format};
use payload_schema::keywords::never_refuses;
use payload_schema::limits::{MAX_REF_HOPS, MAX_SCHEMA_DEPTH};
use payload_schema::walk::{resolve, target};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The most nodes one plan holds; a larger schema gets no plan (its values are checked
/// the validator's way).
pub(super) const MAX_NODES: usize = 4_000;

/// Compiles `root` into nodes; the root's node is the first. `None` when the schema is
/// past [`MAX_NODES`].
pub(super) fn compile(root: &Value) -> Option<Vec<Node>> {
    let mut compiler = Compiler {
        root,
        nodes: Vec::new(),
        seen: HashMap::new(),
    };
    compiler.node(root, 0)?;
    Some(compiler.nodes)
}

struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// The node of each schema object compiled, by address.
    seen: HashMap<*const Value, NodeId>,
}

impl<'s> Compiler<'s> {
    fn node(&mut self, schema: &'s Value, depth: usize) -> Option<NodeId> {
        if let Some(&id) = self.seen.get(&(schema as *const Value)) {
            return Some(id);
        }
        if self.nodes.len() >= MAX_NODES {
            return None;
        }
        let id = NodeId::try_from(self.nodes.len()).ok()?;
        self.nodes.push(Node::default());
        self.seen.insert(schema, id);
        let node = match schema {
            Value::Bool(true) => Node::default(),
            Value::Bool(false) => Node {
                refuses_all: true,
                ..Node::default()
            },
            Value::Object(keywords) if depth < MAX_SCHEMA_DEPTH => self.object(keywords, depth)?,
            _ => Node {
                unsupported: true,
                ..Node::default()
            },
        };
        self.nodes[id as usize] = node;
        Some(id)
    }

    fn list(&mut self, schemas: &'s Value, depth: usize) -> Option<Option<Box<[NodeId]>>> {
        let Value::Array(schemas) = schemas else {
            return Some(None);
        };
        let mut ids = Vec::with_capacity(schemas.len());
        for schema in schemas {
            ids.push(self.node(schema, depth + 1)?);
        }
        Some(Some(ids.into_boxed_slice()))
    }

    fn object(&mut self, keywords: &'s Map<String, Value>, depth: usize) -> Option<Node> {
        let mut node = Node::default();
        let mut all_of = Vec::new();
        let mut unions = Vec::new();
        let mut leaf = Map::new();
        // The walks that follow validation read a `$ref`'s target and not the keywords
        // beside it (`payload_schema::walk::resolve`): beside a `$ref`, only keywords
        // that never refuse a value keep the plan and those walks in step.
        let referring = keywords.contains_key("$ref");
        for (keyword, value) in keywords {
            let keyword = keyword.as_str();
            if never_refuses(keyword) {
                continue;
            }
            if referring && keyword != "$ref" {
                node.unsupported = true;
                continue;
            }
            let understood = match keyword {
                "$ref" => match value.as_str().and_then(|r| target(self.root, r)) {
                    Some(found) => {
                        all_of.push(self.node(found, depth + 1)?);
                        true
                    }
                    None => false,
                },
                "type" => types(value).map(|t| node.types = Some(t)).is_some(),
                "enum" => match value {
                    Value::Array(values) => {
                        node.enumeration = Some(values.clone().into_boxed_slice());
                        true
                    }
                    _ => false,
                },
                "const" => {
                    node.constant = Some(value.clone());
                    true
                }
                "minimum" => number(value, &mut node.bounds.minimum),
                "maximum" => number(value, &mut node.bounds.maximum),
                "exclusiveMinimum" => number(value, &mut node.bounds.exclusive_minimum),
                "exclusiveMaximum" => number(value, &mut node.bounds.exclusive_maximum),
                "minLength" => count(value, &mut node.min_length),
                "maxLength" => count(value, &mut node.max_length),
                "minItems" => count(value, &mut node.min_items),
                "maxItems" => count(value, &mut node.max_items),
                "pattern" => {
                    leaf.insert(keyword.to_string(), value.clone());
                    true
                }
                "format" => match value.as_str() {
                    Some(name) => {
                        if let Some(format) = integer_format(name) {
                            node.integer_range = format.range_i128();
                            // `uint128`'s top is past `i128`: its range is not checked.
                            format.range_i128().is_some()
                        } else if FLOAT_FORMATS.contains(&name) {
                            node.single_precision = name == "float";
                            true
                        } else {
                            leaf.insert(keyword.to_string(), value.clone());
                            true
                        }
                    }
                    None => false,
                },
                "required" => match value.as_array().and_then(|names| {
                    names
                        .iter()
                        .map(|name| name.as_str().map(Box::from))
                        .collect::<Option<Vec<Box<str>>>>()
                }) {
                    Some(names) => {
                        node.required = names.into_boxed_slice();
                        true
                    }
                    None => false,
                },
                "properties" => match value {
                    Value::Object(properties) => {
                        let mut compiled: Vec<(Box<str>, NodeId)> =
                            Vec::with_capacity(properties.len());
                        for (name, schema) in properties {
                            compiled
                                .push((Box::from(name.as_str()), self.node(schema, depth + 1)?));
                        }
                        compiled.sort_by(|a, b| a.0.cmp(&b.0));
                        node.properties = Some(compiled.into_boxed_slice());
                        true
                    }
                    _ => false,
                },
                "additionalProperties" => {
                    node.extra = Some(match value {
                        Value::Bool(false) => Extra::Closed,
                        Value::Bool(true) => Extra::Allowed(None),
                        schema => Extra::Allowed(Some(self.node(schema, depth + 1)?)),
                    });
                    true
                }
                "items" if !value.is_array() => {
                    node.items = Some(self.node(value, depth + 1)?);
                    true
                }
                "prefixItems" => match self.list(value, depth)? {
                    Some(ids) => {
                        node.prefix_items = ids;
                        true
                    }
                    None => false,
                },
                "allOf" => match self.list(value, depth)? {
                    Some(ids) => {
                        all_of.extend(ids);
                        true
                    }
                    None => false,
                },
                "oneOf" | "anyOf" => match self.list(value, depth)? {
                    Some(branches) if !branches.is_empty() => {
                        let pick = self.pick(value.as_array().map_or(&[][..], Vec::as_slice));
                        unions.push(Union { branches, pick });
                        true
                    }
                    _ => false,
                },
                _ => false,
            };
            node.unsupported |= !understood;
        }
        if !leaf.is_empty() {
            match jsonschema::options()
                .should_validate_formats(true)
                .build(&Value::Object(leaf))
            {
                Ok(validator) => node.leaf = Some(Box::new(validator)),
                Err(_) => node.unsupported = true,
            }
        }
        node.all_of = all_of.into_boxed_slice();
        node.unions = unions.into_boxed_slice();
        Some(node)
    }

    /// How a union's branch is chosen (`Pick`), when its branches exclude one another.
    fn pick(&self, branches: &'s [Value]) -> Pick {
        let resolved: Vec<&Value> = branches.iter().map(|b| resolve(self.root, b)).collect();
        if let Some(pick) = tagged(&resolved) {
            return pick;
        }
        let types: Option<Vec<Types>> = resolved
            .iter()
            .map(|b| stated_types(self.root, b, 0))
            .collect();
        if let Some(types) = types {
            let disjoint = types
                .iter()
                .enumerate()
                .all(|(i, a)| types[i + 1..].iter().all(|b| !a.overlaps(*b)));
            if disjoint {
                return Pick::Type(types.into_boxed_slice());
            }
        }
        let constants: Option<Vec<Value>> = resolved.iter().map(|b| constant(b).cloned()).collect();
        if let Some(constants) = constants {
            let distinct = constants
                .iter()
                .enumerate()
                .all(|(i, a)| !has_number(a, 0) && !constants[i + 1..].contains(a));
            if distinct {
                return Pick::Constant(constants.into_boxed_slice());
            }
        }
        Pick::Undecided
    }
}

/// The tag member every branch requires, each branch with its own string constants
/// there (`const`, or an `enum` of strings no other branch names), if there is one.
fn tagged(branches: &[&Value]) -> Option<Pick> {
    let first = branches.first()?;
    let properties = first.get("properties")?.as_object()?;
    'keys: for key in properties.keys() {
        let mut tags: Vec<Box<[Box<str>]>> = Vec::with_capacity(branches.len());
        let mut objects_only = true;
        for branch in branches {
            let required = branch
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|names| names.iter().any(|n| n == key.as_str()));
            let names = branch
                .get("properties")
                .and_then(|p| p.get(key))
                .and_then(string_constants);
            match names {
                Some(names)
                    if required
                        && !tags
                            .iter()
                            .any(|taken| taken.iter().any(|t| names.contains(t))) =>
                {
                    tags.push(names)
                }
                _ => continue 'keys,
            }
            objects_only &= branch.get("type").and_then(types) == Some(Types(Types::OBJECT));
        }
        return Some(Pick::Tag {
            key: key.as_str().into(),
            tags: tags.into_boxed_slice(),
            objects_only,
        });
    }
    None
}

/// The strings a schema holds a value to: its `const`, or its `enum`, when they are
/// all strings.
fn string_constants(schema: &Value) -> Option<Box<[Box<str>]>> {
    let values = match (schema.get("const"), schema.get("enum")) {
        (Some(constant), None) => std::slice::from_ref(constant),
        (None, Some(Value::Array(values))) if !values.is_empty() => values.as_slice(),
        _ => return None,
    };
    values.iter().map(|v| v.as_str().map(Box::from)).collect()
}

/// The types a schema allows, when it says: its `type`, or the types of every branch
/// of its one union when each says.
fn stated_types(root: &Value, schema: &Value, depth: usize) -> Option<Types> {
    if let Some(stated) = schema.get("type") {
        return types(stated);
    }
    if depth >= MAX_REF_HOPS {
        return None;
    }
    let branches = match (schema.get("oneOf"), schema.get("anyOf")) {
        (Some(Value::Array(branches)), None) | (None, Some(Value::Array(branches))) => branches,
        _ => return None,
    };
    let mut all = 0;
    for branch in branches {
        all |= stated_types(root, resolve(root, branch), depth + 1)?.0;
    }
    (!branches.is_empty()).then_some(Types(all))
}

/// `type`, one name or a list.
fn types(value: &Value) -> Option<Types> {
    match value {
        Value::String(name) => Types::bit(name).map(Types),
        Value::Array(names) => names.iter().try_fold(Types(0), |all, name| {
            Some(Types(all.0 | Types::bit(name.as_str()?)?))
        }),
        _ => None,
    }
}

/// `const`, or an `enum` of one value.
fn constant(schema: &Value) -> Option<&Value> {
    schema.get("const").or_else(|| match schema.get("enum") {
        Some(Value::Array(values)) if values.len() == 1 => values.first(),
        _ => None,
    })
}

/// Whether `value` holds a number anywhere (where the validator's equality, which
/// calls `1` and `1.0` equal, is not serde_json's).
pub(super) fn has_number(value: &Value, depth: usize) -> bool {
    match value {
        Value::Number(_) => true,
        // Past the nesting limit nothing is decided: say "maybe".
        _ if depth >= crate::limits::MAX_DEPTH => true,
        Value::Array(items) => items.iter().any(|item| has_number(item, depth + 1)),
        Value::Object(members) => members.values().any(|member| has_number(member, depth + 1)),
        _ => false,
    }
}

fn number(value: &Value, slot: &mut Option<serde_json::Number>) -> bool {
    match value {
        Value::Number(n) => {
            *slot = Some(n.clone());
            true
        }
        _ => false,
    }
}

fn count(value: &Value, slot: &mut Option<u64>) -> bool {
    match value.as_u64() {
        Some(n) => {
            *slot = Some(n);
            true
        }
        None => false,
    }
}
