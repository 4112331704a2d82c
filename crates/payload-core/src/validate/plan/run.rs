//! Checking a value against a compiled plan: one walk over the value, beside the nodes
//! that apply at each place, asking no keyword by name and allocating nothing (the
//! nodes that apply to a value are gathered on the stack).
//!
//! At each value the nodes that apply are gathered the way the walks after validation
//! gather them (`crate::schema::applies`): the node, its `allOf` parts and `$ref`
//! targets, and the branch of each union that the value picks; then each node's own
//! keywords are checked, and the walk goes on into the members and items.

use super::compile::has_number;
use super::node::{Extra, Node, NodeId, Pick, Types, Union};
use super::verdict::Verdict;
use crate::limits::MAX_DEPTH;
use crate::validate::numbers;
use serde_json::{Map, Number, Value};
use std::cmp::Ordering;

// Deeper than `MAX_PART_DEPTH` nested `allOf` / union levels, the plan decides nothing.
use payload_schema::limits::MAX_PART_DEPTH;

/// How many nodes may apply to one value before the plan gives up on it.
const MAX_PARTS: usize = 16;

/// The nodes that apply to one value, on the stack.
struct Parts {
    ids: [NodeId; MAX_PARTS],
    len: usize,
}

/// Decides, the first thing that is not clean ending the walk.
macro_rules! decide {
    ($verdict:expr) => {
        match $verdict {
            Verdict::Clean => {}
            other => return other,
        }
    };
}

/// The verdict on `value` where node `at` governs it.
pub(super) fn check(nodes: &[Node], value: &Value, at: NodeId, depth: usize) -> Verdict {
    if depth >= MAX_DEPTH {
        // The walks after validation stop here; the plan says nothing past it.
        return Verdict::Unsure;
    }
    let mut parts = Parts {
        ids: [0; MAX_PARTS],
        len: 0,
    };
    decide!(gather(nodes, at, value, &mut parts, 0));
    let parts = &parts.ids[..parts.len];
    decide!(own_keywords(nodes, parts, value));
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                for &part in parts {
                    let node = &nodes[part as usize];
                    if let Some(&sub) = node.prefix_items.get(index).or(node.items.as_ref()) {
                        decide!(check(nodes, item, sub, depth + 1));
                    }
                }
            }
        }
        Value::Object(members) => {
            for (key, member) in members {
                let (mut declared, mut allowed, mut declaring) = (false, false, false);
                for &part in parts {
                    let node = &nodes[part as usize];
                    declaring |= node.properties.is_some();
                    if let Some(sub) = node.property(key) {
                        declared = true;
                        decide!(check(nodes, member, sub, depth + 1));
                        continue;
                    }
                    match node.extra() {
                        Extra::Closed => return Verdict::Invalid,
                        Extra::Allowed(schema) => {
                            allowed = true;
                            if let Some(sub) = schema {
                                decide!(check(nodes, member, sub, depth + 1));
                            }
                        }
                        Extra::Unstated => {}
                    }
                }
                // An undeclared member of an object that declares members: a warning
                // (or a near miss) for the walk to report (docs/spec.md §7.1).
                if !declared && !allowed && declaring {
                    return Verdict::Report;
                }
            }
        }
        _ => {}
    }
    Verdict::Clean
}

/// Collects the nodes that apply to `value` where `at` governs it.
fn gather(nodes: &[Node], at: NodeId, value: &Value, parts: &mut Parts, depth: usize) -> Verdict {
    if depth > MAX_PART_DEPTH || parts.len == MAX_PARTS {
        return Verdict::Unsure;
    }
    parts.ids[parts.len] = at;
    parts.len += 1;
    let node = &nodes[at as usize];
    for &part in &node.all_of {
        decide!(gather(nodes, part, value, parts, depth + 1));
    }
    for union in &node.unions {
        match choose(union, value) {
            Ok(branch) => decide!(gather(nodes, branch, value, parts, depth + 1)),
            Err(verdict) => return verdict,
        }
    }
    Verdict::Clean
}

/// The branch of `union` that governs `value`; since the branches a plan picks among
/// exclude one another, it alone decides the union.
fn choose(union: &Union, value: &Value) -> Result<NodeId, Verdict> {
    let index = match &union.pick {
        Pick::Tag {
            key,
            tags,
            objects_only,
        } => match value {
            // Every branch requires the tag and holds a string constant there.
            Value::Object(members) => match member(members, key) {
                Some(Value::String(tag)) => tags
                    .iter()
                    .position(|names| names.iter().any(|name| **name == **tag)),
                _ => None,
            },
            _ if *objects_only => None,
            _ => return Err(Verdict::Unsure),
        },
        Pick::Type(types) => {
            let kind = kind_of(value);
            types.iter().position(|t| t.0 & kind != 0)
        }
        Pick::Constant(constants) => match constants.iter().position(|c| c == value) {
            Some(index) => Some(index),
            None if has_number(value, 0) => return Err(Verdict::Unsure),
            None => None,
        },
        Pick::Undecided => return Err(Verdict::Unsure),
    };
    match index {
        Some(index) => Ok(union.branches[index]),
        None => Err(Verdict::Invalid),
    }
}

/// Member `name` of an object. serde_json's map hashes a key with SipHash to look it
/// up, which costs more than comparing it with the keys of a small object, so those are
/// compared in order (keys are unique: the member found is the same).
fn member<'v>(members: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    const COMPARED: usize = 8;
    if members.len() <= COMPARED {
        members
            .iter()
            .find_map(|(key, value)| (key == name).then_some(value))
    } else {
        members.get(name)
    }
}

/// The type bits a value has: an integer-valued float is an integer too (as the
/// validator counts it).
fn kind_of(value: &Value) -> u8 {
    match value {
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::Number(n) if n.is_f64() => {
            let integral = n.as_f64().is_some_and(|f| f.fract() == 0.0);
            Types::NUMBER | if integral { Types::INTEGER } else { 0 }
        }
        Value::Number(_) => Types::NUMBER | Types::INTEGER,
        Value::String(_) => Types::STRING,
        Value::Array(_) => Types::ARRAY,
        Value::Object(_) => Types::OBJECT,
    }
}

/// Each applying node's keywords about the value itself (not its members or items),
/// then the number rules of the walk after validation (`crate::validate::numbers`).
fn own_keywords(nodes: &[Node], parts: &[NodeId], value: &Value) -> Verdict {
    let kind = kind_of(value);
    let mut integer_only: Option<&Node> = None;
    let mut single_precision = false;
    for &part in parts {
        let node = &nodes[part as usize];
        if node.unsupported {
            return Verdict::Unsure;
        }
        if node.refuses_all {
            return Verdict::Invalid;
        }
        if let Some(types) = node.types {
            if types.0 & kind == 0 {
                return Verdict::Invalid;
            }
            if types.integer_only() && integer_only.is_none() {
                integer_only = Some(node);
            }
        }
        single_precision |= node.single_precision;
        if let Some(constant) = &node.constant {
            decide!(equals_one_of(std::slice::from_ref(constant), value));
        }
        if let Some(values) = &node.enumeration {
            decide!(equals_one_of(values, value));
        }
        decide!(match value {
            Value::Number(number) => bounds(node, number),
            Value::String(text) => string(node, text, value),
            Value::Array(items) => within(items.len(), node.min_items, node.max_items),
            Value::Object(members) => {
                if node
                    .required
                    .iter()
                    .all(|name| member(members, name).is_some())
                {
                    Verdict::Clean
                } else {
                    Verdict::Invalid
                }
            }
            _ => Verdict::Clean,
        });
    }
    let Value::Number(number) = value else {
        return Verdict::Clean;
    };
    if let Some(node) = integer_only {
        if number.is_f64() {
            // A fraction is no integer; an integer-valued float is rewritten (or, past
            // 2^53, refused) by the walk (docs/spec.md §7.2).
            return if kind & Types::INTEGER != 0 {
                Verdict::Report
            } else {
                Verdict::Invalid
            };
        }
        if let (Some((low, high)), false) = (node.integer_range, node.bounds.any()) {
            let integer = number
                .as_i64()
                .map(i128::from)
                .or_else(|| number.as_u64().map(i128::from));
            if integer.is_none_or(|n| n < low || n > high) {
                return Verdict::Report;
            }
        }
    } else if single_precision && !number.as_f64().is_some_and(numbers::fits_single) {
        return Verdict::Report;
    }
    Verdict::Clean
}

/// `enum` and `const`: serde_json's equality where it is the validator's (no number
/// inside); otherwise the plan cannot tell.
fn equals_one_of(values: &[Value], value: &Value) -> Verdict {
    if values.iter().any(|v| v == value) {
        Verdict::Clean
    } else if has_number(value, 0) {
        Verdict::Unsure
    } else {
        Verdict::Invalid
    }
}

fn within(count: usize, min: Option<u64>, max: Option<u64>) -> Verdict {
    let count = count as u64;
    if min.is_some_and(|min| count < min) || max.is_some_and(|max| count > max) {
        Verdict::Invalid
    } else {
        Verdict::Clean
    }
}

fn string(node: &Node, text: &str, value: &Value) -> Verdict {
    if node.min_length.is_some() || node.max_length.is_some() {
        // The validator counts characters (code points), as here.
        decide!(within(
            text.chars().count(),
            node.min_length,
            node.max_length
        ));
    }
    match &node.leaf {
        Some(leaf) if !leaf.is_valid(value) => Verdict::Invalid,
        _ => Verdict::Clean,
    }
}

fn bounds(node: &Node, number: &Number) -> Verdict {
    let b = &node.bounds;
    // Each bound, and the orders of value to bound it allows.
    let checks = [
        (&b.minimum, [Ordering::Equal, Ordering::Greater]),
        (&b.maximum, [Ordering::Equal, Ordering::Less]),
        (&b.exclusive_minimum, [Ordering::Greater; 2]),
        (&b.exclusive_maximum, [Ordering::Less; 2]),
    ];
    for (bound, allowed) in checks {
        let Some(bound) = bound else { continue };
        match compare(number, bound) {
            Some(order) if allowed.contains(&order) => {}
            Some(_) => return Verdict::Invalid,
            None => return Verdict::Unsure,
        }
    }
    Verdict::Clean
}

/// Compares two numbers exactly, or `None` when that would take more than an `f64`.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let integer = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    if let (Some(a), Some(b)) = (integer(a), integer(b)) {
        return Some(a.cmp(&b));
    }
    // Integers up to 2^53 are exact as floats; past that a float comparison may round.
    const EXACT: i128 = 1 << 53;
    if [a, b]
        .into_iter()
        .any(|n| integer(n).is_some_and(|i| i.abs() > EXACT))
    {
        return None;
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}
