//! Coercing a value with a compiled [`Coercion`]: one walk, beside the nodes that apply
//! at each place, gathered as the walks after validation gather them
//! (`crate::schema::applies`: the node, its `allOf` parts, the branch of each union the
//! value picks) on the stack. Nothing is allocated and no warning text is built unless
//! a value is changed; a member's place is a chain of frames on the stack, written as a
//! pointer only for a warning.

use super::coercion::{Coercion, Fit, Items, Target, Union};
use super::node::{NodeId, Types};
use crate::formats::folds_to;
use crate::limits::MAX_DEPTH;
use crate::validate::coerce::{
    Fixes, Place, fix_enum_case, fix_type, matches_type, rename_members, wrap_bare_array,
};
use payload_schema::pointer;
use serde_json::{Map, Value};

use payload_schema::limits::MAX_PART_DEPTH;

/// How many parts are held on the stack; more go to the heap.
const INLINE_PARTS: usize = 16;

impl Coercion {
    /// Coerces `value` (`crate::validate::coerce`).
    pub(crate) fn coerce(&self, value: &mut Value, fixes: &mut Fixes<'_>) {
        if value.is_array() {
            if let Some(name) = &self.wrap {
                wrap_bare_array(value, name, fixes);
            }
        }
        self.walk(value, self.root, &Frame::Root, 0, fixes);
    }

    fn node(&self, id: NodeId) -> &Target {
        &self.nodes[id as usize]
    }

    fn walk(
        &self,
        value: &mut Value,
        at: NodeId,
        place: &Frame<'_>,
        depth: usize,
        fixes: &mut Fixes<'_>,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut parts = self.parts(at, value);
        if let Some(types) = parts.types(self) {
            if !matches_type(value, types) && fix_type(value, types, place, fixes) {
                // A union may be decided differently now that the value is an array.
                parts = self.parts(at, value);
            }
        }
        if value.is_string() {
            if let Some(allowed) = parts.enum_values(self) {
                fix_enum_case(value, allowed, place, fixes);
            }
        }
        match value {
            Value::Object(map) => {
                self.fix_key_styles(map, &parts, place, fixes);
                for (key, member) in map.iter_mut() {
                    if let Some(sub) = parts.member(self, key) {
                        let inner = Frame::Key(place, key);
                        self.walk(member, sub, &inner, depth + 1, fixes);
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    if let Some(sub) = parts.item(self, index) {
                        let inner = Frame::Index(place, index);
                        self.walk(item, sub, &inner, depth + 1, fixes);
                    }
                }
            }
            _ => {}
        }
    }

    /// The nodes that apply to `value` where node `at` governs it.
    fn parts(&self, at: NodeId, value: &Value) -> Parts {
        let mut parts = Parts {
            inline: [0; INLINE_PARTS],
            len: 0,
            spilled: Vec::new(),
            undecided: false,
            undecided_types: None,
            unknown_tag: false,
        };
        self.collect(at, value, &mut parts, 0);
        parts
    }

    fn collect(&self, at: NodeId, value: &Value, parts: &mut Parts, depth: usize) {
        if depth > MAX_PART_DEPTH || parts.ids().any(|id| id == at) {
            return;
        }
        parts.push(at);
        let node = self.node(at);
        for &part in &node.all_of {
            self.collect(part, value, parts, depth + 1);
        }
        for union in &node.unions {
            match choose(union, value) {
                Choice::One(index) => self.collect(union.branches[index], value, parts, depth + 1),
                Choice::UnknownTag => parts.unknown_tag = true,
                Choice::Undecided => {
                    for &branch in &union.branches {
                        parts.undecided = true;
                        if let Some(types) = self.node(branch).types {
                            let all = parts.undecided_types.map_or(0, |t| t.0);
                            parts.undecided_types = Some(Types(all | types.0));
                        }
                    }
                }
            }
        }
    }

    /// Renames members written in another case or separator style than the one
    /// declared member they fold to (`crate::validate::coerce`).
    fn fix_key_styles(
        &self,
        map: &mut Map<String, Value>,
        parts: &Parts,
        place: &Frame<'_>,
        fixes: &mut Fixes<'_>,
    ) {
        // A map's keys are data, and an undecided union's members cannot be told apart.
        if parts.unknown_tag || parts.undecided {
            return;
        }
        let nodes = || parts.ids().map(|id| self.node(id));
        let closed = nodes().any(|n| n.closed);
        let declaring = nodes().any(|n| n.properties.is_some());
        if !closed && (nodes().any(|n| n.open_ended) || !declaring) {
            return;
        }
        let mut renames: Vec<(String, &str)> = Vec::new();
        for key in map.keys() {
            if nodes().any(|n| declared(n, key).is_some()) {
                continue;
            }
            // The declared names it folds to, each counted once.
            let mut only: Option<&str> = None;
            let mut several = false;
            for node in nodes() {
                for member in node.properties.iter().flat_map(|p| p.iter()) {
                    if folds_to(key, &member.folded) {
                        match only {
                            Some(name) if name != &*member.name => several = true,
                            _ => only = Some(&member.name),
                        }
                    }
                }
            }
            if let (Some(only), false) = (only, several) {
                if !map.contains_key(only) {
                    renames.push((key.clone(), only));
                }
            }
        }
        rename_members(map, renames, place, fixes);
    }
}

/// The schema of member `key`, when `node` declares it.
fn declared(node: &Target, key: &str) -> Option<NodeId> {
    let properties = node.properties.as_deref()?;
    properties
        .binary_search_by(|member| (*member.name).cmp(key))
        .ok()
        .map(|at| properties[at].schema)
}

/// The nodes that apply to one value, and what the unions among them left open.
struct Parts {
    inline: [NodeId; INLINE_PARTS],
    len: usize,
    /// The parts past [`INLINE_PARTS`].
    spilled: Vec<NodeId>,
    /// A union the value did not decide.
    undecided: bool,
    /// The types any undecided branch states.
    undecided_types: Option<Types>,
    /// A tagged union whose tag names no branch.
    unknown_tag: bool,
}

impl Parts {
    fn push(&mut self, id: NodeId) {
        if self.len < INLINE_PARTS {
            self.inline[self.len] = id;
            self.len += 1;
        } else {
            self.spilled.push(id);
        }
    }

    fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.inline[..self.len].iter().chain(&self.spilled).copied()
    }

    /// The types allowed here: those of the first part that states any, else those any
    /// undecided branch states.
    fn types(&self, coercion: &Coercion) -> Option<Types> {
        self.ids()
            .find_map(|id| coercion.node(id).types)
            .or(self.undecided_types)
    }

    /// The allowed values, when a part is an enum.
    fn enum_values<'c>(&self, coercion: &'c Coercion) -> Option<&'c [Value]> {
        self.ids()
            .find_map(|id| coercion.node(id).enum_values.as_deref())
    }

    /// The node of member `key`: a part's declared member, else a part's
    /// `additionalProperties` schema.
    fn member(&self, coercion: &Coercion, key: &str) -> Option<NodeId> {
        self.ids()
            .find_map(|id| declared(coercion.node(id), key))
            .or_else(|| self.ids().find_map(|id| coercion.node(id).extra))
    }

    /// The node of item `index`.
    fn item(&self, coercion: &Coercion, index: usize) -> Option<NodeId> {
        self.ids().find_map(|id| {
            let node = coercion.node(id);
            if let Some(&found) = node.prefix_items.as_deref().and_then(|p| p.get(index)) {
                return Some(found);
            }
            match &node.items {
                Items::Each(each) => Some(*each),
                Items::Tuple(tuple) => tuple.get(index).copied(),
                Items::Unstated => None,
            }
        })
    }
}

/// Which branch of a union governs a value (`crate::schema::applies::Choice`).
enum Choice {
    One(usize),
    UnknownTag,
    Undecided,
}

/// The branch of `union` that governs `value`, decided as
/// `crate::schema::applies::choose` decides it.
fn choose(union: &Union, value: &Value) -> Choice {
    let facts = &union.facts;
    if !value.is_null() {
        if let [only] = facts.non_null.as_slice() {
            return Choice::One(*only);
        }
    } else if union.branches.len() == 1 {
        return Choice::One(0);
    }
    if let Some(tags) = &facts.tags {
        return match tags.iter().position(|d| d.matches(value)) {
            Some(index) => Choice::One(index),
            None => Choice::UnknownTag,
        };
    }
    let fitting = |index: &usize| fits(&union.fits[*index], value);
    if value.is_null() {
        only((0..union.branches.len()).filter(fitting))
    } else {
        only(facts.non_null.iter().copied().filter(fitting))
    }
}

/// The branch when exactly one fits.
fn only(mut fitting: impl Iterator<Item = usize>) -> Choice {
    match (fitting.next(), fitting.next()) {
        (Some(one), None) => Choice::One(one),
        _ => Choice::Undecided,
    }
}

/// Whether `value` has a type the branch allows and, for an object, every member it
/// requires (`crate::schema::applies`).
fn fits(fit: &Fit, value: &Value) -> bool {
    let kind = match value {
        Value::Number(_) => Types::INTEGER | Types::NUMBER,
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::String(_) => Types::STRING,
        Value::Array(_) => Types::ARRAY,
        Value::Object(_) => Types::OBJECT,
    };
    if fit.types.is_some_and(|types| types.0 & kind == 0) {
        return false;
    }
    match (value, &fit.required) {
        (Value::Object(map), Some(required)) => required.iter().all(|name| has(map, name)),
        _ => true,
    }
}

/// Whether an object has member `name`: a small object's keys are compared instead of
/// hashed (as `super::run` does).
fn has(map: &Map<String, Value>, name: &str) -> bool {
    const COMPARED: usize = 8;
    if map.len() <= COMPARED {
        map.keys().any(|key| key == name)
    } else {
        map.contains_key(name)
    }
}

/// Where a value sits: the whole value, or a member or item of the value one frame up.
enum Frame<'a> {
    Root,
    Key(&'a Frame<'a>, &'a str),
    Index(&'a Frame<'a>, usize),
}

impl Place for Frame<'_> {
    fn write_to(&self, out: &mut String) {
        match self {
            Frame::Root => {}
            Frame::Key(up, key) => {
                up.write_to(out);
                pointer::push_token(out, key);
            }
            Frame::Index(up, index) => {
                up.write_to(out);
                pointer::push_index(out, *index);
            }
        }
    }
}
