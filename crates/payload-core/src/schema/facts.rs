//! What each node of a payload type's schema says that the value walks ask about, read
//! once per type instead of once per value.
//!
//! The walks (undeclared members, integer-valued numbers, coercion) decide at every
//! node of a value which schemas apply. Reading that from a `serde_json::Value` schema
//! costs a hashed map lookup per keyword (`$ref`, `allOf`, `oneOf`, `anyOf`,
//! `properties`, `additionalProperties`, ...) per part per node. A payload type's
//! compiled schema is leaked once and never changes, so its nodes' facts are read when
//! it is compiled and found again by address. A schema that is not a payload type's
//! (a test's, a temporary one) has no facts and is read directly, as before.
//!
//! The same goes for its unions ([`Union`]): which branches take non-null values and,
//! for a tagged enum, how each branch is recognised, found by the address of the
//! branch list.

use crate::schema::variants;
use payload_schema::walk::{enum_values, resolve, types_of};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{OnceLock, RwLock};

/// What one schema node says, after following its `$ref`s.
#[derive(Debug, Clone)]
pub(crate) struct Facts<'a> {
    /// The node after `$ref`s.
    pub(crate) target: &'a Value,
    /// Its `allOf` parts (empty when it has none).
    pub(crate) all_of: &'a [Value],
    /// Its `oneOf` and `anyOf` branch lists.
    pub(crate) unions: [Option<&'a [Value]>; 2],
    /// Its `properties`.
    pub(crate) properties: Option<&'a Map<String, Value>>,
    /// `additionalProperties: false` or `unevaluatedProperties: false`.
    pub(crate) closed: bool,
    /// `patternProperties`, or `additionalProperties` that is a schema or `true`.
    pub(crate) open_ended: bool,
    /// `additionalProperties` when it is a schema: what governs undeclared members.
    pub(crate) extra: Option<&'a Value>,
    /// Its `type`s (empty when it does not say).
    pub(crate) types: Vec<&'a str>,
    /// Its allowed values, when it is an enum (`payload_schema::walk::enum_values`).
    pub(crate) enum_values: Option<Vec<Value>>,
}

impl<'a> Facts<'a> {
    /// Reads what `node` (a schema in `root`) says.
    pub(crate) fn read(root: &'a Value, node: &'a Value) -> Facts<'a> {
        Facts::of_target(root, resolve(root, node))
    }

    /// Reads what `target` (a schema in `root`, its `$ref`s already followed) says.
    pub(crate) fn of_target(root: &'a Value, target: &'a Value) -> Facts<'a> {
        let list = |keyword: &str| {
            target
                .get(keyword)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
        };
        let additional = target.get("additionalProperties");
        Facts {
            target,
            all_of: list("allOf").unwrap_or(&[]),
            unions: [list("oneOf"), list("anyOf")],
            properties: target.get("properties").and_then(Value::as_object),
            closed: additional == Some(&Value::Bool(false))
                || target.get("unevaluatedProperties") == Some(&Value::Bool(false)),
            open_ended: target.get("patternProperties").is_some()
                || matches!(additional, Some(Value::Object(_) | Value::Bool(true))),
            extra: additional.filter(|extra| extra.is_object()),
            types: types_of(target),
            enum_values: enum_values(root, target),
        }
    }
}

/// The facts of a node: kept for a payload type's schema, read now for any other.
#[derive(Debug, Clone)]
pub(crate) enum Known<'a> {
    /// Read when the type was compiled.
    Kept(&'a Facts<'a>),
    /// Read now.
    Read(Facts<'a>),
}

impl<'a> Known<'a> {
    /// The facts of `node` (a schema in `root`).
    pub(crate) fn of(root: &'a Value, node: &'a Value) -> Known<'a> {
        match of(node) {
            Some(kept) => Known::Kept(kept),
            None => Known::Read(Facts::read(root, node)),
        }
    }
}

impl<'a> std::ops::Deref for Known<'a> {
    type Target = Facts<'a>;

    fn deref(&self) -> &Facts<'a> {
        match self {
            Known::Kept(kept) => kept,
            Known::Read(read) => read,
        }
    }
}

/// What a union's branches say regardless of the value.
#[derive(Debug)]
pub(crate) struct Union {
    /// The branches whose type is not only `null`.
    pub(crate) non_null: Vec<usize>,
    /// Each branch's discriminator, when every branch has one.
    pub(crate) tags: Option<Vec<variants::Discriminator>>,
}

impl Union {
    /// Reads what `branches` (a union in `root`) say.
    pub(crate) fn describe(root: &Value, branches: &[Value]) -> Union {
        Union {
            non_null: branches
                .iter()
                .enumerate()
                .filter(|(_, b)| types_of(resolve(root, b)) != ["null"])
                .map(|(i, _)| i)
                .collect(),
            tags: variants::discriminators(root, branches)
                .map(|found| found.into_iter().map(|(d, _)| d).collect()),
        }
    }
}

type ByAddress<T> = HashMap<usize, &'static T, BuildHasherDefault<AddressHasher>>;

/// The facts of every payload type's schema nodes and unions, by address.
#[derive(Default)]
struct Index {
    nodes: ByAddress<Facts<'static>>,
    unions: ByAddress<Union>,
}

static INDEX: OnceLock<RwLock<Index>> = OnceLock::new();

/// The facts of `node`, when it belongs to a payload type's schema.
pub(crate) fn of(node: &Value) -> Option<&'static Facts<'static>> {
    let index = INDEX.get()?.read().unwrap_or_else(|e| e.into_inner());
    index.nodes.get(&address(node)).copied()
}

/// What the union `branches` says, when it belongs to a payload type's schema.
pub(crate) fn union(branches: &[Value]) -> Option<&'static Union> {
    // Every empty list has the same (dangling) address: none is kept.
    if branches.is_empty() {
        return None;
    }
    let index = INDEX.get()?.read().unwrap_or_else(|e| e.into_inner());
    index.unions.get(&(branches.as_ptr() as usize)).copied()
}

/// Reads the facts of every object node of `root`, a schema the program never drops or
/// changes. Each node's facts are leaked once, as the schema itself is.
pub(crate) fn learn(root: &'static Value) {
    let mut found: Vec<(usize, &'static Facts<'static>)> = Vec::new();
    let mut unions: Vec<(usize, &'static Union)> = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let Value::Object(members) = node else {
            continue;
        };
        found.push((address(node), Box::leak(Box::new(Facts::read(root, node)))));
        for keyword in ["oneOf", "anyOf"] {
            let Some(Value::Array(branches)) = members.get(keyword) else {
                continue;
            };
            // Every empty list has the same (dangling) address: none is kept.
            if !branches.is_empty() {
                let described = Box::leak(Box::new(Union::describe(root, branches)));
                unions.push((branches.as_ptr() as usize, described));
            }
        }
        for member in members.values() {
            match member {
                Value::Object(_) => stack.push(member),
                Value::Array(items) => stack.extend(items.iter().filter(|i| i.is_object())),
                _ => {}
            }
        }
    }
    let index = INDEX.get_or_init(Default::default);
    let mut index = index.write().unwrap_or_else(|e| e.into_inner());
    index.nodes.extend(found);
    index.unions.extend(unions);
}

fn address(node: &Value) -> usize {
    node as *const Value as usize
}

/// A hasher for keys that are already unique (addresses, and the `TypeId`s of
/// `crate::derived`'s cache): one multiplication spreads them (SipHash would cost more
/// than the lookups it replaces).
#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}
