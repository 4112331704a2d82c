//! `#[payload(stream(not_null))]` in a derived type's schema. The derive marks a member
//! in two places that must agree: the typed partial form, which it writes itself, and
//! the type's JSON Schema, which schemars writes and the stream's JSON preview reads
//! (`"x-stream": {"not_null": true}`, `stream::partial::hold`). A derive cannot change
//! the `JsonSchema` impl beside it, so the marks are gathered here, through the partial
//! forms of the payload type and of every type it holds, and written into the schema
//! once it is generated: each marked type's own schema (the root, or its definition
//! under `$defs`) gains the keyword on each marked member.

use payload_schema::pointer;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};
use std::any::TypeId;
use std::collections::HashSet;

/// The members marked `#[payload(stream(not_null))]` in a payload type and in the types
/// it holds: what [`LlmPayload::stream_marks`](crate::LlmPayload::stream_marks) and
/// [`PartialType::stream_marks`](crate::partial::PartialType::stream_marks) gather, so
/// that the type's schema says `"x-stream": {"not_null": true}` on each of those
/// members and the stream's JSON preview holds back exactly the objects the typed
/// partial form holds back.
#[derive(Default)]
pub struct StreamMarks {
    /// The types already visited: a type that holds itself is visited once.
    seen: HashSet<TypeId>,
    marked: Vec<Marked>,
}

/// The marked members of one type.
struct Marked {
    id: TypeId,
    /// `SchemaGenerator::subschema_for` of the type: the `$ref` to its definition.
    subschema: fn(&mut SchemaGenerator) -> Schema,
    /// serde's deserialize names of the members, as the schema's `properties` key them.
    members: &'static [&'static str],
}

impl StreamMarks {
    /// [`StreamMarks::visit`] of the type `id`, whose marks `gather` gathers: each type
    /// once. (`visit` itself is beside
    /// [`PartialType`](crate::partial::PartialType), which it names.)
    pub(crate) fn visit_by(&mut self, id: TypeId, gather: fn(&mut StreamMarks)) {
        if self.seen.insert(id) {
            gather(self);
        }
    }

    /// Records that an object of `T` still arriving waits for each of `members` (the
    /// names the model writes) to have a value.
    pub fn mark<T: JsonSchema + 'static>(&mut self, members: &'static [&'static str]) {
        if members.is_empty() {
            return;
        }
        self.marked.push(Marked {
            id: TypeId::of::<T>(),
            subschema: SchemaGenerator::subschema_for::<T>,
            members,
        });
    }

    /// Writes the marks into `schema`, the root schema `generator` made for the type
    /// `root`: the root's own members for `root`, each other type's in the definition its
    /// `$ref` names. A type schemars inlines (`#[schemars(inline)]`) has no definition
    /// of its own to mark and is left as written.
    pub(crate) fn write(&self, root: TypeId, generator: &mut SchemaGenerator, schema: &mut Value) {
        for marked in &self.marked {
            let at = if marked.id == root {
                Some(String::new())
            } else {
                // The type is in `schema` already, so this names its definition and
                // generates nothing.
                let reference = (marked.subschema)(generator);
                reference
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|reference| reference.strip_prefix('#'))
                    .map(pointer::decode_fragment)
            };
            if let Some(Value::Object(object)) = at.and_then(|at| schema.pointer_mut(&at)) {
                mark_members(object, marked.members);
            }
        }
    }
}

/// `"x-stream": {"not_null": true}` on each of `members` of the object schema `object`,
/// merged into an `x-stream` object already written there.
fn mark_members(object: &mut Map<String, Value>, members: &[&str]) {
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        return;
    };
    for member in members {
        let Some(property) = properties.get_mut(*member) else {
            continue;
        };
        // `true` (any value) is the empty schema, which can hold a keyword.
        if *property == Value::Bool(true) {
            *property = Value::Object(Map::new());
        }
        let Value::Object(property) = property else {
            continue;
        };
        let stream = property
            .entry("x-stream")
            .or_insert_with(|| Value::Object(Map::new()));
        if !stream.is_object() {
            // Not an `x-stream` object: the declared mark replaces it.
            *stream = Value::Object(Map::new());
        }
        if let Value::Object(stream) = stream {
            stream.insert("not_null".into(), Value::Bool(true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_mark_is_merged_into_what_is_written() {
        let mut object = json!({"properties": {
            "a": {"type": "string"},
            "b": {"x-stream": {"done": true}},
            "c": true,
            "d": {"x-stream": 1},
            "e": {"type": "string"}
        }});
        mark_members(
            object.as_object_mut().unwrap(),
            &["a", "b", "c", "d", "missing"],
        );
        assert_eq!(
            object,
            json!({"properties": {
                "a": {"type": "string", "x-stream": {"not_null": true}},
                "b": {"x-stream": {"done": true, "not_null": true}},
                "c": {"x-stream": {"not_null": true}},
                "d": {"x-stream": {"not_null": true}},
                "e": {"type": "string"}
            }})
        );
    }
}
