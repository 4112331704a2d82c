//! Objects held back while they arrive, by the payload type's schema: a property whose
//! schema says `"x-stream": {"not_null": true}` holds back the object it belongs to
//! until it has a value (begun, and not `null`), as BAML's `@stream.not_null` does. A
//! runtime type (`PayloadType::from_schema`) says it in its schema. A derived type says
//! it with `#[payload(stream(not_null))]` on the field, which the derive writes into
//! the type's schema as that keyword (`partial::StreamMarks`), wherever the type sits
//! (the root or a definition under `$defs`), so this preview holds back exactly the
//! objects the typed partial form holds back. Of a union, only the branches the object
//! can still be count: one whose tag (a `const` member) the object contradicts holds
//! nothing back.
//!
//! Only objects still arriving are held back, and those lie on the way to the preview's
//! open point, each the last member or item of its parent: removing one leaves a
//! preview that is still an early view of the final value (docs/spec.md §5.5).

use payload_schema::keywords::{self, Property};
use payload_schema::{pointer, walk};
use serde_json::{Map, Value};

/// `preview` with its first object on the way to `open` that is held back removed (and
/// `open` moved to the container that held it); `None` when the value itself is held
/// back. `root` is the payload type's schema.
pub(crate) fn held_back(
    mut preview: Value,
    open: Option<String>,
    root: &Value,
) -> Option<(Value, Option<String>)> {
    let Some(open_at) = open.as_deref() else {
        return Some((preview, open));
    };
    let tokens: Vec<String> = match open_at.strip_prefix('/') {
        Some(rest) => rest.split('/').map(pointer::unescape_token).collect(),
        None => Vec::new(),
    };
    let held = {
        let mut node = &preview;
        let mut schema = Some(walk::resolve(root, root));
        let mut depth = 0;
        loop {
            if let (Value::Object(members), Some(schema)) = (node, schema) {
                // The member still being written here, when it is the open point.
                let open_member = (tokens.len() == depth + 1).then(|| tokens[depth].as_str());
                if waits(members, schema, root, open_member) {
                    break Some(depth);
                }
            }
            let Some(token) = tokens.get(depth) else {
                break None;
            };
            let child = match node {
                Value::Object(members) => members.get(token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            let Some(child) = child else {
                break None;
            };
            schema = schema.and_then(|schema| match node {
                Value::Object(_) => subschema(schema, root, &|s| s.get("properties")?.get(token)),
                _ => subschema(schema, root, &|s| s.get("items")),
            });
            node = child;
            depth += 1;
        }
    };
    match held {
        None => Some((preview, open)),
        Some(0) => None,
        Some(depth) => {
            let parent_at: String = tokens[..depth - 1]
                .iter()
                .map(|t| format!("/{}", pointer::escape_token(t)))
                .collect();
            let last = &tokens[depth - 1];
            match preview.pointer_mut(&parent_at) {
                Some(Value::Object(members)) => {
                    members.remove(last);
                }
                Some(Value::Array(items)) => {
                    if let Ok(index) = last.parse::<usize>() {
                        items.truncate(index);
                    }
                }
                _ => {}
            }
            Some((preview, Some(parent_at)))
        }
    }
}

/// Whether an object still arriving, of `schema`, waits for a property marked
/// `not_null` that has no value yet: one of `schema` itself or of a branch the object
/// can still be (`open_member` is the member still being written, if any).
fn waits(
    members: &Map<String, Value>,
    schema: &Value,
    root: &Value,
    open_member: Option<&str>,
) -> bool {
    let schema = walk::resolve(root, schema);
    if missing_mark(members, schema, root) {
        return true;
    }
    keywords::with(Property::Branches).any(|keyword| {
        schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|branch| {
                !excluded(members, branch, root, open_member) && missing_mark(members, branch, root)
            })
    })
}

/// `schema` as written and the schema it names: a branch or a member written as a
/// `$ref` with keywords beside it (a tag's `properties`, an `x-stream` mark) says
/// things of its own.
fn both<'s>(schema: &'s Value, root: &'s Value) -> [&'s Value; 2] {
    [schema, walk::resolve(root, schema)]
}

/// The `properties` of `schema` as written and of the schema it names.
fn properties<'s>(
    schema: &'s Value,
    root: &'s Value,
) -> impl Iterator<Item = (&'s String, &'s Value)> {
    both(schema, root)
        .into_iter()
        .filter_map(|schema| schema.get("properties").and_then(Value::as_object))
        .flatten()
}

/// Whether `schema` marks a property `not_null` that `members` has no value for.
fn missing_mark(members: &Map<String, Value>, schema: &Value, root: &Value) -> bool {
    properties(schema, root).any(|(name, property)| {
        let marked = both(property, root).iter().any(|schema| {
            schema
                .get("x-stream")
                .and_then(|x| x.get("not_null"))
                .and_then(Value::as_bool)
                == Some(true)
        });
        marked && members.get(name).is_none_or(Value::is_null)
    })
}

/// Whether the object cannot be of `branch`: a member the branch fixes to one value (a
/// tag: a `const`, or an `enum` of one value) holds another, which is not a string still
/// being written that may yet become it. A tagged union's other variants then hold
/// nothing back.
fn excluded(
    members: &Map<String, Value>,
    branch: &Value,
    root: &Value,
    open_member: Option<&str>,
) -> bool {
    properties(branch, root).any(|(name, property)| {
        let property = walk::resolve(root, property);
        let fixed = property.get("const").or_else(|| {
            match property.get("enum")?.as_array()?.as_slice() {
                [one] => Some(one),
                _ => None,
            }
        });
        let (Some(fixed), Some(value)) = (fixed, members.get(name)) else {
            return false;
        };
        let may_become = open_member == Some(name.as_str())
            && matches!((value, fixed), (Value::String(v), Value::String(f)) if f.starts_with(v.as_str()));
        value != fixed && !may_become
    })
}

/// The first schema `pick` finds in `schema` or one of its branches, resolved.
fn subschema<'s>(
    schema: &'s Value,
    root: &'s Value,
    pick: &dyn Fn(&'s Value) -> Option<&'s Value>,
) -> Option<&'s Value> {
    let mut found = None;
    each_branch(schema, root, &mut |branch| {
        if found.is_none() {
            found = pick(branch).map(|s| walk::resolve(root, s));
        }
    });
    found
}

/// Calls `visit` with `schema` and the branches of its `allOf` / `anyOf` / `oneOf`
/// (one level: the shapes schema generators write for nullable and merged types), each
/// resolved.
fn each_branch<'s>(schema: &'s Value, root: &'s Value, visit: &mut dyn FnMut(&'s Value)) {
    let schema = walk::resolve(root, schema);
    visit(schema);
    for keyword in keywords::with(Property::Branches) {
        for branch in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            visit(walk::resolve(root, branch));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                "title": {"type": "string"}
            },
            "$defs": {
                "Step": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "x-stream": {"not_null": true}},
                        "detail": {"type": "string"}
                    }
                }
            }
        })
    }

    #[test]
    fn an_object_waits_for_its_not_null_member() {
        let root = schema();
        // The second step has no title yet: it is not shown, and what is open is the list.
        let preview = json!({"steps": [{"title": "Boil", "detail": "x"}, {"detail": "the"}]});
        assert_eq!(
            held_back(preview, Some("/steps/1/detail".into()), &root),
            Some((
                json!({"steps": [{"title": "Boil", "detail": "x"}]}),
                Some("/steps".into())
            ))
        );
        // A title begun is a value; a `null` is not.
        let begun = json!({"steps": [{"title": "Bo"}]});
        assert_eq!(
            held_back(begun.clone(), Some("/steps/0/title".into()), &root),
            Some((begun, Some("/steps/0/title".into())))
        );
        let null = json!({"steps": [{"title": null}]});
        assert_eq!(
            held_back(null, Some("/steps/0".into()), &root),
            Some((json!({"steps": []}), Some("/steps".into())))
        );
        // A complete object is shown whatever it holds.
        let done = json!({"steps": [{"detail": "x"}]});
        assert_eq!(
            held_back(done.clone(), Some("/steps".into()), &root),
            Some((done.clone(), Some("/steps".into())))
        );
        assert_eq!(held_back(done.clone(), None, &root), Some((done, None)));
    }

    #[test]
    fn a_mark_beside_a_reference_is_read() {
        // A member whose type is a definition of its own: the mark sits beside the
        // `$ref` (and beside a draft-07 style `allOf` wrapper), not in the definition.
        for owner in [
            json!({"$ref": "#/$defs/Person", "x-stream": {"not_null": true}}),
            json!({"allOf": [{"$ref": "#/$defs/Person"}], "x-stream": {"not_null": true}}),
        ] {
            let root = json!({
                "type": "object",
                "properties": {"owner": owner, "note": {"type": "string"}},
                "$defs": {"Person": {"type": "object", "properties": {"name": {"type": "string"}}}}
            });
            assert_eq!(
                held_back(json!({"note": "x"}), Some("/note".into()), &root),
                None
            );
            let begun = json!({"note": "x", "owner": {}});
            assert!(held_back(begun, Some("/owner".into()), &root).is_some());
        }
    }

    #[test]
    fn only_the_variants_an_object_can_still_be_hold_it_back() {
        // An internally tagged union: a step (its schema a `$ref` beside the tag) waits
        // for its title, a text block for nothing.
        let root = json!({
            "type": "array",
            "items": {"oneOf": [
                {"$ref": "#/$defs/Step", "properties": {"kind": {"const": "step"}}},
                {"properties": {"kind": {"enum": ["text"]}, "text": {"type": "string"}}}
            ]},
            "$defs": {"Step": {"properties": {"title": {"x-stream": {"not_null": true}}}}}
        });
        let text = json!([{"kind": "text", "text": "In"}]);
        assert_eq!(
            held_back(text.clone(), Some("/0/text".into()), &root),
            Some((text, Some("/0/text".into())))
        );
        let step = json!([{"kind": "step", "detail": "x"}]);
        assert_eq!(
            held_back(step, Some("/0/detail".into()), &root),
            Some((json!([]), Some("".into())))
        );
        // A tag still being written that may yet name the step waits as a step would.
        for (tag, held) in [("st", true), ("te", false)] {
            let begun = json!([{"kind": tag}]);
            let shown = held_back(begun.clone(), Some("/0/kind".into()), &root);
            assert_eq!(shown.unwrap().0 == begun, !held, "{tag}");
        }
    }

    #[test]
    fn a_value_waiting_itself_shows_nothing() {
        let root =
            json!({"type": "object", "properties": {"id": {"x-stream": {"not_null": true}}}});
        assert_eq!(held_back(json!({"other": 1}), Some("".into()), &root), None);
        assert!(held_back(json!({"id": 1}), Some("".into()), &root).is_some());
    }
}
