//! The schemas that apply to one value, decided the way the validator and serde decide
//! them: through `$ref`, every `allOf` part, the non-null branch of an `Option`, and the
//! branch of a union the value's tag selects (or, for an untagged union, the one branch
//! its shape fits).
//!
//! The value walks that follow validation (unknown members, integer normalization) use
//! this one view, so they agree on which member a schema declares and which sub-schema
//! governs it. Where the value does not decide a union, the view says so
//! ([`Applies::undecided`]) instead of guessing: a walk then tolerates every member any
//! branch declares and does not descend into the branches.

use super::facts::{self, Known, Union};
use payload_schema::limits::MAX_PART_DEPTH;
use payload_schema::walk::{json_type, resolve, types_of};
use serde_json::{Map, Value};

/// The schemas that apply to one value.
#[derive(Debug, Clone)]
pub(crate) struct Applies<'a> {
    root: &'a Value,
    /// Every schema the value must satisfy, resolved, with what each says.
    parts: Vec<Known<'a>>,
    /// The branches of a union the value did not decide between, resolved.
    undecided: Vec<Known<'a>>,
    /// A tagged union here whose tag names no branch: the validator reports the tag.
    unknown_tag: bool,
    /// The `properties` of every part, then of every undecided branch (with its
    /// `allOf` parts), found once: each member a walk meets is looked up in them.
    declaring: Vec<&'a Map<String, Value>>,
    /// How many of `declaring` belong to `parts` (the rest are undecided branches').
    own: usize,
}

/// What an object's schema says about members it does not declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Members {
    /// `additionalProperties: false` or `unevaluatedProperties: false`: the validator
    /// reports every undeclared member.
    Closed,
    /// Declared members, and nothing said about others: serde ignores them.
    Open,
    /// A map, or members matched by pattern: every key is allowed.
    Map,
    /// The schema says nothing about objects here.
    Unknown,
}

impl<'a> Applies<'a> {
    /// The schemas that apply to `value` where `schema` governs it.
    pub(crate) fn of(root: &'a Value, schema: &'a Value, value: &Value) -> Self {
        let mut applies = Applies {
            root,
            parts: Vec::new(),
            undecided: Vec::new(),
            unknown_tag: false,
            declaring: Vec::new(),
            own: 0,
        };
        applies.collect(schema, value, 0);
        // `parts` holds every `allOf` part already (`collect` follows them); undecided
        // branches were not followed, so their `allOf` parts are added here.
        applies.declaring = applies.parts.iter().filter_map(|p| p.properties).collect();
        applies.own = applies.declaring.len();
        for branch in &applies.undecided {
            let parts = branch
                .all_of
                .iter()
                .map(|part| Known::of(root, part).properties);
            applies
                .declaring
                .extend(std::iter::once(branch.properties).chain(parts).flatten());
        }
        applies
    }

    fn collect(&mut self, schema: &'a Value, value: &Value, depth: usize) {
        let known = Known::of(self.root, schema);
        let target = known.target;
        if depth > MAX_PART_DEPTH || self.parts.iter().any(|p| std::ptr::eq(p.target, target)) {
            return;
        }
        let (all_of, unions) = (known.all_of, known.unions);
        self.parts.push(known);
        for part in all_of {
            self.collect(part, value, depth + 1);
        }
        for branches in unions.into_iter().flatten() {
            match choose(self.root, branches, value) {
                Choice::One(index) => self.collect(&branches[index], value, depth + 1),
                Choice::UnknownTag => self.unknown_tag = true,
                Choice::Undecided => self
                    .undecided
                    .extend(branches.iter().map(|b| Known::of(self.root, b))),
            }
        }
    }

    /// Whether a union here was left undecided by the value: its members are tolerated,
    /// but which of them is missing cannot be known.
    pub(crate) fn undecided(&self) -> bool {
        !self.undecided.is_empty()
    }

    /// The JSON types allowed here: those of the first applying schema that states
    /// any, or, when none does, those any undecided branch allows.
    // Coercion reads these from its compiled form; its reference walk reads them here.
    #[cfg(any(test, feature = "__internals"))]
    pub(crate) fn types(&self) -> Vec<&'a str> {
        if let Some(typed) = self.parts.iter().find(|p| !p.types.is_empty()) {
            return typed.types.clone();
        }
        let mut all: Vec<&'a str> = Vec::new();
        for branch in &self.undecided {
            for &kind in &branch.types {
                if !all.contains(&kind) {
                    all.push(kind);
                }
            }
        }
        all
    }

    /// The allowed values, when an applying schema is an enum (read once per schema
    /// node, `crate::schema::facts`).
    // Coercion reads these from its compiled form; its reference walk reads them here.
    #[cfg(any(test, feature = "__internals"))]
    pub(crate) fn enum_values(&self) -> Option<&[Value]> {
        self.parts
            .iter()
            .find_map(|part| part.enum_values.as_deref())
    }

    /// The schema that makes a number here an integer, if one does: a part (or, when
    /// no part says, every undecided branch that takes numbers) whose `type` says
    /// `integer` and not `number`.
    pub(crate) fn integer_schema(&self) -> Option<&'a Value> {
        let says = |known: &Known<'a>| {
            known.types.contains(&"integer") && !known.types.contains(&"number")
        };
        if self.parts.iter().any(|p| !p.types.is_empty()) {
            return self
                .parts
                .iter()
                .filter(|p| !p.types.is_empty())
                .find(|p| says(p))
                .map(|p| p.target);
        }
        let mut numeric = self
            .undecided
            .iter()
            .filter(|b| b.types.contains(&"integer") || b.types.contains(&"number"));
        let first = numeric.next()?;
        (says(first) && numeric.all(says)).then_some(first.target)
    }

    /// Whether a part says a number here is a 32-bit float (`"format": "float"`, as
    /// schemars writes an `f32`): such a field holds fewer digits than the value read.
    pub(crate) fn single_precision(&self) -> bool {
        self.parts
            .iter()
            .any(|p| p.target.get("format").and_then(Value::as_str) == Some("float"))
    }

    /// The sub-schema that governs member `key`: a declared property of a part, or a
    /// part's `additionalProperties` schema.
    pub(crate) fn member(&self, key: &str) -> Option<&'a Value> {
        self.declaring[..self.own]
            .iter()
            .find_map(|properties| properties.get(key))
            .or_else(|| self.parts.iter().find_map(|p| p.extra))
    }

    /// The sub-schema of member `key` when an applying schema declares it in its
    /// `properties` and none lists it in `required`.
    pub(crate) fn optional_member(&self, key: &str) -> Option<&'a Value> {
        let required = self.parts.iter().any(|part| {
            part.target
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|names| names.iter().any(|n| n == key))
        });
        if required {
            return None;
        }
        self.declaring[..self.own]
            .iter()
            .find_map(|properties| properties.get(key))
    }

    /// Whether some applying schema, or some undecided branch, declares `key`.
    pub(crate) fn declares(&self, key: &str) -> bool {
        self.declaring
            .iter()
            .any(|properties| properties.contains_key(key))
    }

    /// Every member name declared here, undecided branches' included, first
    /// declaration first.
    pub(crate) fn declared(&self) -> Vec<&'a str> {
        let mut names: Vec<&'a str> = Vec::new();
        for properties in &self.declaring {
            for name in properties.keys() {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// What the applying schemas say about undeclared members. An object whose tag
    /// names no variant is `Unknown`: the validator reports the tag, and which members
    /// the meant variant declares cannot be known.
    pub(crate) fn members(&self) -> Members {
        if self.unknown_tag {
            Members::Unknown
        } else if self.parts.iter().any(|p| p.closed) {
            Members::Closed
        } else if self
            .parts
            .iter()
            .chain(&self.undecided)
            .any(|p| p.open_ended)
        {
            Members::Map
        } else if !self.declaring.is_empty() {
            Members::Open
        } else {
            Members::Unknown
        }
    }

    /// The sub-schema that governs item `index` of an array.
    pub(crate) fn item(&self, index: usize) -> Option<&'a Value> {
        self.parts.iter().find_map(|part| {
            let p = part.target;
            if let Some(found) = p
                .get("prefixItems")
                .and_then(Value::as_array)
                .and_then(|prefix| prefix.get(index))
            {
                return Some(found);
            }
            match p.get("items") {
                Some(items @ Value::Object(_)) => Some(items),
                Some(Value::Array(tuple)) => tuple.get(index),
                _ => None,
            }
        })
    }
}

/// Which branch of a union governs a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    /// The branch at this index.
    One(usize),
    /// The union is a tagged enum and the value's tag names none of its variants.
    UnknownTag,
    /// The value's shape fits several branches, or none.
    Undecided,
}

/// The branch of a union that governs `value`: the only non-null one for a non-null
/// value, the one its tag names in a tagged enum, or the only one whose type (and, for
/// an object, required members) the value fits.
pub(crate) fn choose(root: &Value, branches: &[Value], value: &Value) -> Choice {
    let described;
    let union: &Union = match facts::union(branches) {
        Some(kept) => kept,
        None => {
            described = Union::describe(root, branches);
            &described
        }
    };
    if !value.is_null() {
        if let [only] = union.non_null.as_slice() {
            return Choice::One(*only);
        }
    } else if branches.len() == 1 {
        return Choice::One(0);
    }
    if let Some(tags) = &union.tags {
        return match tags.iter().position(|d| d.matches(value)) {
            Some(index) => Choice::One(index),
            None => Choice::UnknownTag,
        };
    }
    let candidates: Vec<usize> = if value.is_null() {
        (0..branches.len()).collect()
    } else {
        union.non_null.clone()
    };
    let mut fitting = candidates
        .into_iter()
        .filter(|&i| fits(resolve(root, &branches[i]), value));
    match (fitting.next(), fitting.next()) {
        (Some(one), None) => Choice::One(one),
        _ => Choice::Undecided,
    }
}

/// Whether `value` has a type `schema` allows and, for an object, every member it
/// requires: how an untagged union's branch is recognised without validating it.
fn fits(schema: &Value, value: &Value) -> bool {
    let types = types_of(schema);
    let kind = json_type(value);
    let typed = types.is_empty()
        || types.contains(&kind)
        || (kind == "integer" && types.contains(&"number"))
        || (kind == "number" && types.contains(&"integer"));
    if !typed {
        return false;
    }
    match (value, schema.get("required").and_then(Value::as_array)) {
        (Value::Object(map), Some(required)) => required
            .iter()
            .filter_map(Value::as_str)
            .all(|name| map.contains_key(name)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn root() -> Value {
        json!({
            "type": "object",
            "properties": {"confidence": {"type": ["number", "null"]}},
            "oneOf": [
                {"type": "object", "properties": {"intent": {"const": "search"},
                  "parameters": {"$ref": "#/$defs/Search"}}, "required": ["intent", "parameters"]},
                {"type": "object", "properties": {"intent": {"const": "export"},
                  "count": {"type": "integer"}}, "required": ["intent"]}
            ],
            "$defs": {"Search": {"type": "object", "properties": {"query": {"type": "string"}}}}
        })
    }

    #[test]
    fn the_tag_selects_the_branch_beside_the_own_members() {
        let root = root();
        let value = json!({"intent": "export", "count": 3.0});
        let applies = Applies::of(&root, &root, &value);
        assert!(!applies.undecided());
        assert_eq!(applies.declared(), ["confidence", "intent", "count"]);
        assert!(applies.declares("count") && !applies.declares("parameters"));
        assert_eq!(applies.members(), Members::Open);
        let count = applies.member("count").unwrap();
        assert!(
            Applies::of(&root, count, &json!(3.0))
                .integer_schema()
                .is_some()
        );
    }

    #[test]
    fn an_unknown_tag_or_an_untagged_union_is_not_guessed() {
        let root = root();
        let value = json!({"intent": "exprot"});
        let applies = Applies::of(&root, &root, &value);
        assert_eq!(
            applies.members(),
            Members::Unknown,
            "the validator reports the tag"
        );
        assert!(applies.member("count").is_none(), "no descent into a guess");

        let untagged = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "object", "properties": {"b": {"type": "integer"}}}
        ]});
        let applies = Applies::of(&untagged, &untagged, &json!({"a": 1}));
        assert!(applies.undecided());
        assert!(applies.declares("a") && applies.declares("b") && !applies.declares("c"));
        assert_eq!(applies.members(), Members::Open);
    }

    #[test]
    fn maps_and_closed_objects_are_told_apart() {
        let root = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        let applies = Applies::of(&root, &root, &json!({}));
        assert_eq!(applies.members(), Members::Map);
        assert_eq!(applies.member("any").unwrap(), &json!({"type": "integer"}));
        let closed =
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false});
        assert_eq!(
            Applies::of(&closed, &closed, &json!({})).members(),
            Members::Closed
        );
        let anything = json!({});
        assert_eq!(
            Applies::of(&anything, &anything, &json!({})).members(),
            Members::Unknown
        );
    }

    #[test]
    fn an_untagged_union_is_decided_by_shape_only_when_one_branch_fits() {
        let root = json!({"anyOf": [{"type": "integer"}, {"type": "string"}]});
        assert!(
            Applies::of(&root, &root, &json!(2.0))
                .integer_schema()
                .is_some()
        );
        let mixed = json!({"anyOf": [{"type": "integer"}, {"type": "number"}]});
        assert!(
            Applies::of(&mixed, &mixed, &json!(2.0))
                .integer_schema()
                .is_none()
        );
        let option = json!({"anyOf": [{"type": "integer", "format": "uint8"}, {"type": "null"}]});
        let applies = Applies::of(&option, &option, &json!(2.0));
        assert_eq!(applies.integer_schema().unwrap()["format"], "uint8");
    }

    /// A payload type whose schema has a tagged union, an `Option`, a map, integers
    /// and a nested object: every kind of node the facts describe.
    #[derive(
        serde::Serialize, serde::Deserialize, schemars::JsonSchema, payload_derive::LlmPayload,
    )]
    #[payload(crate = "crate")]
    struct Sheet {
        title: String,
        rows: Vec<Row>,
        labels: std::collections::BTreeMap<String, String>,
        owner: Option<Owner>,
    }

    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Row {
        Add { id: u32, cells: Vec<String> },
        Drop { id: u32 },
    }

    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    struct Owner {
        name: String,
        age: Option<u8>,
    }

    /// What `Applies` says of every node of `value` under `schema`, walked in step.
    fn describe_all(root: &Value, schema: &Value, value: &Value, out: &mut Vec<String>) {
        let applies = Applies::of(root, schema, value);
        out.push(format!(
            "{:?} {:?} {:?} {:?} {:?}",
            applies.members(),
            applies.declared(),
            applies.types(),
            applies.undecided(),
            applies.integer_schema(),
        ));
        match value {
            Value::Object(map) => {
                for (key, member) in map {
                    if let Some(sub) = applies.member(key) {
                        describe_all(root, sub, member, out);
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    if let Some(sub) = applies.item(index) {
                        describe_all(root, sub, item, out);
                    }
                }
            }
            _ => {}
        }
    }

    #[test]
    fn kept_facts_say_what_reading_the_schema_says() {
        use crate::payload::LlmPayload;
        let kept = Sheet::TYPE.compiled().schema();
        let fresh = kept.clone();
        assert!(
            facts::of(kept).is_some(),
            "a payload type's schema has facts"
        );
        assert!(facts::of(&fresh).is_none(), "a copy is read directly");
        let values = [
            json!({"title": "t", "rows": [{"kind": "add", "id": 1.0, "cells": ["a"]},
                                          {"kind": "drop", "id": 2, "extra": true},
                                          {"kind": "nope"}],
                   "labels": {"a": "b"}, "owner": {"name": "n", "age": 3}}),
            json!({"title": 1, "rows": {}, "owner": null, "typo": 1}),
            json!([1, 2]),
        ];
        for value in values {
            let (mut with, mut without) = (Vec::new(), Vec::new());
            describe_all(kept, kept, &value, &mut with);
            describe_all(&fresh, &fresh, &value, &mut without);
            assert_eq!(with, without, "{value}");
        }
    }
}
