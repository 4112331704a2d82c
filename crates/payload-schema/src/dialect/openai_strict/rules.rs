//! The check of a rewritten schema against strict mode's documented subset: the
//! keywords it takes, closed objects with every member required, an object at the top,
//! and its size limits.
//!
//! The rewrite ([`super::rewrite`]) produces only what this accepts, save for the
//! limits, which depend on the whole schema; running it on every result keeps a schema
//! strict mode would reject from ever being returned as strict.

use super::STRING_FORMATS;
use super::refusal::{StrictRefusal, StrictRefusalKind as Kind};
use crate::pointer::push_token;
use crate::walk::types_of;
use serde_json::Value;

/// Levels of object nesting strict mode allows.
pub(crate) const MAX_OBJECT_NESTING: usize = 10;
/// Object properties strict mode allows in one schema, all objects together.
pub(crate) const MAX_PROPERTIES: usize = 5000;
/// Enum values strict mode allows in one schema, all enums together.
pub(crate) const MAX_ENUM_VALUES: usize = 1000;
/// Characters of property names, definition names and enum and const values strict
/// mode allows in one schema.
pub(crate) const MAX_TEXT: usize = 120_000;

/// How many schema nodes the nesting measure visits before giving up: references are
/// followed, so a schema that shares definitions a lot is visited once per path.
const MAX_VISITS: usize = 1_000_000;

/// Every way `schema` breaks strict mode's rules; empty when it is strict.
pub(crate) fn check(schema: &Value) -> Vec<StrictRefusal> {
    let mut refusals = Vec::new();
    if types_of(schema) != ["object"] || schema.get("anyOf").is_some() {
        refusals.push(StrictRefusal::new(
            Kind::NotAnObjectRoot,
            "",
            "strict mode takes an object schema at the top level",
        ));
    }
    let mut totals = Totals::default();
    let mut stack: Vec<(&Value, String)> = vec![(schema, String::new())];
    while let Some((node, path)) = stack.pop() {
        let Value::Object(map) = node else {
            refusals.push(StrictRefusal::new(
                Kind::AnyValue,
                &path,
                "a boolean schema cannot be strict",
            ));
            continue;
        };
        for (key, value) in map {
            let mut here = path.clone();
            push_token(&mut here, key);
            if !crate::keywords::has(key, crate::keywords::Property::OpenAiStrict)
                || (key == "$defs" && !path.is_empty())
            {
                refusals.push(StrictRefusal::new(
                    Kind::UnsupportedKeyword,
                    &here,
                    format!("`{key}` is not a keyword strict mode takes"),
                ));
            }
            match key.as_str() {
                "$ref" if map.len() > 1 => refusals.push(StrictRefusal::new(
                    Kind::RefWithSiblings,
                    &path,
                    "strict mode takes nothing beside a `$ref`",
                )),
                "format" if !value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f)) => {
                    refusals.push(StrictRefusal::new(
                        Kind::UnsupportedFormat,
                        &here,
                        format!("the format {value} is not one strict mode knows"),
                    ))
                }
                "enum" => totals.enum_values(value),
                "const" => totals.text += text_length(value),
                "items" => stack.push((value, here)),
                "anyOf" => {
                    for (i, branch) in value.as_array().into_iter().flatten().enumerate() {
                        stack.push((branch, format!("{here}/{i}")));
                    }
                }
                "properties" | "$defs" => {
                    for (name, member) in value.as_object().into_iter().flatten() {
                        totals.text += name.chars().count();
                        let mut at = here.clone();
                        push_token(&mut at, name);
                        stack.push((member, at));
                    }
                    if key == "properties" {
                        totals.properties += value.as_object().map_or(0, |p| p.len());
                    }
                }
                _ => {}
            }
        }
        if let Some(problem) = object_problem(node) {
            refusals.push(StrictRefusal::new(Kind::FreeFormMap, &path, problem));
        }
    }
    refusals.extend(totals.refusals());
    if let Some(refusal) = nesting(schema) {
        refusals.push(refusal);
    }
    refusals
}

/// What is wrong with an object schema: open to other members, or a member optional.
fn object_problem(node: &Value) -> Option<&'static str> {
    let is_object = types_of(node).contains(&"object") || node.get("properties").is_some();
    if !is_object {
        return None;
    }
    if node.get("additionalProperties") != Some(&Value::Bool(false)) {
        return Some("strict mode needs `additionalProperties: false` on every object");
    }
    let properties = node.get("properties").and_then(Value::as_object)?;
    let required: Vec<&str> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let all = properties.len() == required.len()
        && properties.keys().all(|k| required.contains(&k.as_str()));
    (!all).then_some("strict mode needs every member listed in `required`")
}

/// The sizes strict mode limits, summed over the schema.
#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
    text: usize,
}

impl Totals {
    fn enum_values(&mut self, values: &Value) {
        for value in values.as_array().into_iter().flatten() {
            self.enum_values += 1;
            self.text += text_length(value);
        }
    }

    fn refusals(&self) -> Vec<StrictRefusal> {
        let over = [
            (self.properties, MAX_PROPERTIES, "object properties"),
            (self.enum_values, MAX_ENUM_VALUES, "enum values"),
            (self.text, MAX_TEXT, "characters of names and values"),
        ];
        over.into_iter()
            .filter(|(count, max, _)| count > max)
            .map(|(count, max, what)| {
                StrictRefusal::new(
                    Kind::Limit,
                    "",
                    format!("the schema has {count} {what}; strict mode allows {max}"),
                )
            })
            .collect()
    }
}

/// How a value counts toward the text limit: a string by its characters, anything else
/// by its JSON text.
fn text_length(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

/// The refusal for objects nested more than [`MAX_OBJECT_NESTING`] levels deep,
/// following `$ref`s (a reference back into a definition being visited is recursion,
/// which strict mode allows, and is not followed).
fn nesting(schema: &Value) -> Option<StrictRefusal> {
    // (node, objects on the way including this one's parents, definitions entered).
    let mut stack: Vec<(&Value, usize, Vec<&str>)> = vec![(schema, 0, Vec::new())];
    let mut visits = 0;
    while let Some((node, level, entered)) = stack.pop() {
        visits += 1;
        if visits > MAX_VISITS {
            return Some(StrictRefusal::new(
                Kind::Limit,
                "",
                "the schema has too many paths through its definitions to measure its nesting",
            ));
        }
        let level = if node.get("properties").is_some() {
            level + 1
        } else {
            level
        };
        if level > MAX_OBJECT_NESTING {
            return Some(StrictRefusal::new(
                Kind::Limit,
                "",
                format!("objects nest more than {MAX_OBJECT_NESTING} levels deep"),
            ));
        }
        if let Some(name) = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        {
            if let Some(target) = schema.get("$defs").and_then(|d| d.get(name)) {
                if !entered.contains(&name) {
                    let mut entered = entered.clone();
                    entered.push(name);
                    stack.push((target, level, entered));
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
            stack.push((child, level, entered.clone()));
        }
    }
    None
}
