//! A schema compiled for coercion (`crate::validate::coerce`), once per payload type: at
//! each place of a value, what the walks after validation read from the schema
//! (`crate::schema::applies`) held in fields, so that coercing a value asks no keyword
//! by name and hashes no member name.
//!
//! The walks after validation read a schema after its `$ref`s (`payload_schema::walk::
//! resolve`), while the verdict's nodes (`super::node`) follow a schema as written, a
//! `$ref` beside its own keywords: so a coercion node is one schema object *after* its
//! `$ref`s, read by the same `crate::schema::facts::Facts` the walks read, and found
//! again by that object's address (each object compiled once, a recursive type's
//! included). It shares the verdict's shapes: [`NodeId`] indices, [`Types`] bits, names
//! sorted for a binary search. Compiling takes no recursion and is bounded by the
//! schema's size.

use super::node::{NodeId, Types};
use crate::schema::facts::{Facts, Union as UnionFacts};
use crate::validate::schema_errors::fold;
use payload_schema::walk::{resolve, types_of};
use serde_json::Value;
use std::collections::HashMap;

/// A schema compiled for coercion.
#[derive(Debug)]
pub(crate) struct Coercion {
    pub(super) nodes: Box<[Target]>,
    /// The root's node.
    pub(super) root: NodeId,
    /// The member a bare array is wrapped in: the root wants an object with exactly one
    /// member, an array.
    pub(super) wrap: Option<Box<str>>,
}

/// One schema object after its `$ref`s: what [`Facts`] says of it.
#[derive(Debug)]
pub(super) struct Target {
    /// Its `type`s, when it states any ([`Types::OTHER`] for a name that is no type).
    pub(super) types: Option<Types>,
    /// Its allowed values, when it is an enum.
    pub(super) enum_values: Option<Box<[Value]>>,
    /// Its `properties`, sorted by name.
    pub(super) properties: Option<Box<[Declared]>>,
    /// `additionalProperties: false` or `unevaluatedProperties: false`.
    pub(super) closed: bool,
    /// `patternProperties`, or `additionalProperties` that is a schema or `true`.
    pub(super) open_ended: bool,
    /// `additionalProperties` when it is a schema.
    pub(super) extra: Option<NodeId>,
    /// Its `allOf` parts.
    pub(super) all_of: Box<[NodeId]>,
    /// Its `oneOf`, then its `anyOf`.
    pub(super) unions: Box<[Union]>,
    /// Its `prefixItems`, when a list.
    pub(super) prefix_items: Option<Box<[NodeId]>>,
    /// Its `items`.
    pub(super) items: Items,
}

/// A declared member.
#[derive(Debug)]
pub(super) struct Declared {
    pub(super) name: Box<str>,
    /// The name folded (`crate::validate::schema_errors::fold`), for the key-style rule.
    pub(super) folded: Box<str>,
    pub(super) schema: NodeId,
}

/// What `items` says.
#[derive(Debug)]
pub(super) enum Items {
    /// Nothing (absent, or not a schema).
    Unstated,
    /// One schema for every item.
    Each(NodeId),
    /// A list of schemas, one per place (`items` as an array).
    Tuple(Box<[NodeId]>),
}

/// A `oneOf` or `anyOf`, with what choosing its branch reads
/// (`crate::schema::applies::choose`).
#[derive(Debug)]
pub(super) struct Union {
    pub(super) branches: Box<[NodeId]>,
    /// Which branches take non-null values, and their discriminators.
    pub(super) facts: UnionFacts,
    /// What each branch's shape says, for an untagged union.
    pub(super) fits: Box<[Fit]>,
}

/// What a branch's schema says a value fits: its types and required members.
#[derive(Debug)]
pub(super) struct Fit {
    /// Its JSON types, when it states any (a name that is no type counts for none).
    pub(super) types: Option<Types>,
    /// Its `required`, when a list.
    pub(super) required: Option<Box<[Box<str>]>>,
}

impl Coercion {
    /// Compiles `root` (a schema, the root of its `$ref`s).
    pub(crate) fn compile(root: &Value) -> Coercion {
        let mut compiler = Compiler {
            root,
            ids: HashMap::new(),
            pending: Vec::new(),
        };
        let root_id = compiler.id(root);
        let mut nodes: Vec<Option<Target>> = Vec::new();
        while let Some((id, target)) = compiler.pending.pop() {
            let node = compiler.target(target);
            if nodes.len() <= id as usize {
                nodes.resize_with(id as usize + 1, || None);
            }
            nodes[id as usize] = Some(node);
        }
        Coercion {
            nodes: nodes.into_iter().map(|n| n.expect("compiled")).collect(),
            root: root_id,
            wrap: wrap_member(root),
        }
    }
}

struct Compiler<'s> {
    root: &'s Value,
    /// The node of each schema object after its `$ref`s, by address.
    ids: HashMap<*const Value, NodeId>,
    /// Objects given a node and not compiled yet.
    pending: Vec<(NodeId, &'s Value)>,
}

impl<'s> Compiler<'s> {
    /// The node of `schema` after its `$ref`s.
    fn id(&mut self, schema: &'s Value) -> NodeId {
        let target = resolve(self.root, schema);
        let next = self.ids.len();
        *self.ids.entry(target as *const Value).or_insert_with(|| {
            // A schema holds fewer objects than `u32` counts (it is held in memory).
            let id = NodeId::try_from(next).expect("fewer schema objects than u32::MAX");
            self.pending.push((id, target));
            id
        })
    }

    fn ids(&mut self, schemas: &'s [Value]) -> Box<[NodeId]> {
        schemas.iter().map(|schema| self.id(schema)).collect()
    }

    fn target(&mut self, target: &'s Value) -> Target {
        let facts = Facts::of_target(self.root, target);
        let properties = facts.properties.map(|properties| {
            let mut declared: Vec<Declared> = properties
                .iter()
                .map(|(name, schema)| Declared {
                    name: name.as_str().into(),
                    folded: fold(name).into(),
                    schema: self.id(schema),
                })
                .collect();
            declared.sort_by(|a, b| a.name.cmp(&b.name));
            declared.into_boxed_slice()
        });
        let unions = facts
            .unions
            .iter()
            .flatten()
            .map(|branches| Union {
                branches: self.ids(branches),
                facts: UnionFacts::describe(self.root, branches),
                fits: branches
                    .iter()
                    .map(|branch| fit(resolve(self.root, branch)))
                    .collect(),
            })
            .collect();
        let prefix_items = target
            .get("prefixItems")
            .and_then(Value::as_array)
            .map(|schemas| self.ids(schemas));
        let items = match target.get("items") {
            Some(schema @ Value::Object(_)) => Items::Each(self.id(schema)),
            Some(Value::Array(schemas)) => Items::Tuple(self.ids(schemas)),
            _ => Items::Unstated,
        };
        Target {
            types: stated(&facts.types, Types::OTHER),
            enum_values: facts.enum_values.map(Vec::into_boxed_slice),
            properties,
            closed: facts.closed,
            open_ended: facts.open_ended,
            extra: facts.extra.map(|schema| self.id(schema)),
            all_of: self.ids(facts.all_of),
            unions,
            prefix_items,
            items,
        }
    }
}

/// The bits of a `type` list, `None` when it names none; a name that is no JSON type
/// adds `other`.
fn stated(names: &[&str], other: u8) -> Option<Types> {
    (!names.is_empty()).then(|| {
        Types(
            names
                .iter()
                .fold(0, |all, name| all | Types::bit(name).unwrap_or(other)),
        )
    })
}

fn fit(branch: &Value) -> Fit {
    Fit {
        types: stated(&types_of(branch), 0),
        required: branch
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(Box::from)
                    .collect()
            }),
    }
}

/// The member a bare array is wrapped in, when the root wants an object whose only
/// declared member is an array.
fn wrap_member(root: &Value) -> Option<Box<str>> {
    let schema = resolve(root, root);
    if !types_of(schema).contains(&"object") {
        return None;
    }
    let properties = schema.get("properties").and_then(Value::as_object)?;
    let [(name, property)] = properties.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    types_of(resolve(root, property))
        .contains(&"array")
        .then(|| name.as_str().into())
}
