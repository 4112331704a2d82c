//! Coercion reading the schema itself at every node (`crate::schema::applies`): what
//! coercion did before it was compiled, kept as the reference the tests and the
//! `schema` fuzz target hold the compiled walk to (`payload_core::__internals::coerce`).

use super::{Fixes, fix_enum_case, fix_type, matches_type, rename_members, wrap_bare_array};
use crate::caps::Capped;
use crate::limits::MAX_DEPTH;
use crate::schema::applies::{Applies, Members};
use crate::validate::plan::Types;
use crate::validate::schema_errors::fold;
use crate::warning::Warning;
use payload_schema::pointer;
use payload_schema::walk::{self as schema_walk, types_of};
use serde_json::{Map, Value};

/// Coerces `value` toward `root` (a schema) as the compiled walk does
/// ([`super::coerce_into`]).
pub(crate) fn coerce_into(value: &mut Value, root: &Value, warnings: &mut Capped<Warning>) {
    let mut fixes = Fixes { warnings };
    if value.is_array() {
        if let Some(name) = wrap_member(root) {
            wrap_bare_array(value, &name, &mut fixes);
        }
    }
    walk(value, root, root, &mut String::new(), 0, &mut fixes);
}

fn wrap_member(root: &Value) -> Option<String> {
    let schema = schema_walk::resolve(root, root);
    if !types_of(schema).contains(&"object") {
        return None;
    }
    let properties = schema.get("properties").and_then(Value::as_object)?;
    if properties.len() != 1 {
        return None;
    }
    let (name, property) = properties.iter().next()?;
    types_of(schema_walk::resolve(root, property))
        .contains(&"array")
        .then(|| name.clone())
}

/// The bits of a `type` list (a name that is no JSON type allows every value).
fn bits(types: &[&str]) -> Types {
    Types(types.iter().fold(0, |all, name| {
        all | Types::bit(name).unwrap_or(Types::OTHER)
    }))
}

/// Coerces `value` where `schema` governs it. `path` is its pointer: one buffer for the
/// whole walk, a segment pushed and popped per level, so that no member costs a string.
fn walk(
    value: &mut Value,
    root: &Value,
    schema: &Value,
    path: &mut String,
    depth: usize,
    fixes: &mut Fixes<'_>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut applies = Applies::of(root, schema, value);
    let types = applies.types();
    if !types.is_empty()
        && !matches_type(value, bits(&types))
        && fix_type(value, bits(&types), path.as_str(), fixes)
    {
        // A union may be decided differently now that the value is an array.
        applies = Applies::of(root, schema, value);
    }
    if value.is_string() {
        if let Some(allowed) = applies.enum_values() {
            fix_enum_case(value, allowed, path.as_str(), fixes);
        }
    }
    match value {
        Value::Object(map) => {
            fix_key_styles(map, &applies, path, fixes);
            for (key, member) in map.iter_mut() {
                if let Some(sub) = applies.member(key) {
                    let len = path.len();
                    pointer::push_token(path, key);
                    walk(member, root, sub, path, depth + 1, fixes);
                    path.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(sub) = applies.item(index) {
                    let len = path.len();
                    pointer::push_index(path, index);
                    walk(item, root, sub, path, depth + 1, fixes);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

fn fix_key_styles(
    map: &mut Map<String, Value>,
    applies: &Applies<'_>,
    path: &str,
    fixes: &mut Fixes<'_>,
) {
    // A map's keys are data, and an undecided union's members cannot be told apart.
    if !matches!(applies.members(), Members::Open | Members::Closed) || applies.undecided() {
        return;
    }
    let undeclared: Vec<&String> = map.keys().filter(|key| !applies.declares(key)).collect();
    if undeclared.is_empty() {
        return;
    }
    let declared = applies.declared();
    let folded: Vec<String> = declared.iter().map(|name| fold(name)).collect();
    let renames: Vec<(String, &str)> = undeclared
        .into_iter()
        .filter_map(|key| {
            let key_folded = fold(key);
            let mut candidates = declared
                .iter()
                .zip(&folded)
                .filter(|(_, f)| **f == key_folded)
                .map(|(name, _)| *name);
            match (candidates.next(), candidates.next()) {
                (Some(only), None) if !map.contains_key(only) => Some((key.clone(), only)),
                _ => None,
            }
        })
        .collect();
    rename_members(map, renames, path, fixes);
}
