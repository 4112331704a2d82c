//! What a message still being written may already show a client, as A2UI's SDKs stream
//! it (`agent_sdks/python/src/a2ui/parser/streaming.py`): the rules that decide, from
//! the framework's preview of the value (`payload_progress`: the value so far, and the
//! JSON pointer of what is still arriving), which components and which data of an
//! unfinished `updateComponents` or `updateDataModel` can be drawn.
//!
//! Everything off the path to the open point is complete in the preview (docs/spec.md
//! §5.5); on that path, containers are still open and the open point itself may be a
//! string cut short. So:
//!
//! - a component shows once its `id` and `component` are whole; a string cut short
//!   shows only where a cut string reads as text (A2UI's cuttable keys: `text`,
//!   `label`, `hint`, `caption`, `altText`, `literalString`, `valueString`) and is not
//!   the start of a URL or a path; a `children` list still arriving shows the ids it
//!   holds whole (an id cut short is left out); anything else still arriving (a nested
//!   object, a number, a reference) keeps the component back until it is whole, and so
//!   does an empty object, which A2UI's components never hold;
//! - data shows as the value at the message's `path` so far, with what is still
//!   arriving left out (a member with no value yet, a string cut short where it would
//!   not read as text), open objects and lists holding their complete members. It is
//!   sent whole each time, never as the changed keys alone: `updateDataModel` replaces
//!   the value at its path (A2UI v0.9, "updateDataModel"), so a partial update must
//!   carry everything written so far.

use crate::message::Component;
use crate::protocol::{Message, Protocol};
use crate::v08::V08Component;
use serde_json::{Map, Value};

/// The keys whose string values can be shown cut short: they are read as text.
const CUTTABLE: [&str; 7] = [
    "literalString",
    "valueString",
    "label",
    "hint",
    "caption",
    "altText",
    "text",
];

/// The keys whose lists hold child ids.
const ID_LISTS: [&str; 2] = ["children", "explicitList"];

/// What an unfinished message can show now.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unfinished {
    /// Components of a components update.
    Components {
        /// The surface they belong to.
        surface_id: String,
        /// The components that can be drawn, as written so far (version-neutral).
        components: Vec<Component>,
        /// Components whose list of children is still arriving.
        open_lists: Vec<String>,
    },
    /// The data so far, as the message to send.
    Data(Box<Message>),
}

/// What `message` (a preview of a `protocol` message) can show while `open` (a JSON
/// pointer inside it) is still arriving; `None` when nothing of it can be drawn yet.
pub(crate) fn unfinished(protocol: Protocol, message: &Value, open: &str) -> Option<Unfinished> {
    let open = segments(open);
    let open: Vec<&str> = open.iter().map(String::as_str).collect();
    let open = open.as_slice();
    let (components_key, data_key) = match protocol {
        Protocol::V09 => ("updateComponents", "updateDataModel"),
        Protocol::V08 => ("surfaceUpdate", "dataModelUpdate"),
    };
    if let Some(update) = message.get(components_key) {
        let open = within(open, components_key)?;
        let surface_id = settled_string(update, "surfaceId", open)?;
        let list = update.get("components")?.as_array()?;
        let open = within(open, "components").unwrap_or(&[]);
        let (open_at, rest) = match open.split_first() {
            Some((at, rest)) => (at.parse::<usize>().ok(), rest),
            None => (None, &[][..]),
        };
        let mut components = Vec::new();
        let mut open_lists = Vec::new();
        for (at, value) in list.iter().enumerate() {
            let settled = if Some(at) == open_at {
                let mut list_open = false;
                let settled = settle(value, None, false, rest, Reading::Component, &mut list_open);
                match settled {
                    Ok(Some(value)) => {
                        if list_open && let Some(Value::String(id)) = value.get("id") {
                            open_lists.push(id.clone());
                        }
                        Some(value)
                    }
                    _ => None,
                }
            } else {
                Some(value.clone())
            };
            components.extend(settled.as_ref().and_then(|v| component(protocol, v)));
        }
        return Some(Unfinished::Components {
            surface_id,
            components,
            open_lists,
        });
    }
    if let Some(update) = message.get(data_key) {
        let open = within(open, data_key)?;
        let surface_id = settled_string(update, "surfaceId", open)?;
        let path = match update.get("path") {
            None => None,
            Some(_) => Some(settled_string(update, "path", open)?),
        };
        let member = match protocol {
            Protocol::V09 => "value",
            Protocol::V08 => "contents",
        };
        let value = update.get(member)?;
        let mut data = match within(open, member) {
            Some(open) => settle(value, Some(member), false, open, Reading::Data, &mut false)
                .ok()
                .flatten()?,
            None => value.clone(),
        };
        if protocol == Protocol::V08 {
            data = Value::Array(entries(&data));
        }
        if is_empty_container(&data) {
            return None;
        }
        return Some(Unfinished::Data(Box::new(
            protocol.data_update(surface_id, path, data),
        )));
    }
    None
}

/// A component as the surface rules read it: whole (an id, a type), holding no empty
/// object, which A2UI's components never hold, so one is still being written.
fn component(protocol: Protocol, value: &Value) -> Option<Component> {
    if holds_empty_object(value) {
        return None;
    }
    match protocol {
        Protocol::V09 => serde_json::from_value(value.clone()).ok(),
        Protocol::V08 => serde_json::from_value::<V08Component>(value.clone())
            .ok()?
            .to_component(),
    }
}

/// The string member `key` of `object`, unless it is still arriving.
fn settled_string(object: &Value, key: &str, open: &[&str]) -> Option<String> {
    if open.first() == Some(&key) {
        return None;
    }
    object.get(key)?.as_str().map(str::to_string)
}

/// How a value still arriving is read: as data, where a part that cannot show yet is
/// left out, or as a component, which a part that cannot show yet keeps back whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Data,
    Component,
}

/// What of `value` can show while `open` (the path inside it) still arrives, `key`
/// being the member that holds it and `in_ids` whether it is an item of a list of
/// child ids; `Err` when a component must wait. A string cut short shows where it
/// reads as text; an open object or list shows the members it holds, which are whole.
/// Anything else still arriving (a number, a word, an id, a type, a path, a reference)
/// is left out of data, and keeps a component back; but an id cut short in a list of
/// children is only left out (`list_open` says so, as it does for such a list still
/// arriving).
fn settle(
    value: &Value,
    key: Option<&str>,
    in_ids: bool,
    open: &[&str],
    reading: Reading,
    list_open: &mut bool,
) -> Result<Option<Value>, ()> {
    let cannot_show = || match reading {
        Reading::Data => Ok(None),
        Reading::Component => Err(()),
    };
    let lists_ids = |key: Option<&str>| {
        reading == Reading::Component && key.is_some_and(|k| ID_LISTS.contains(&k))
    };
    let Some((first, rest)) = open.split_first() else {
        return match value {
            Value::String(_) if in_ids => {
                *list_open = true;
                Ok(None)
            }
            Value::String(text) if cuttable(key, text) => Ok(Some(value.clone())),
            Value::Array(_) if lists_ids(key) => {
                *list_open = true;
                Ok(Some(value.clone()))
            }
            Value::Object(_) | Value::Array(_) => Ok(Some(value.clone())),
            _ => cannot_show(),
        };
    };
    match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (name, member) in map {
                if name == first {
                    let key = match reading {
                        Reading::Data => text_key(map, name),
                        Reading::Component => name,
                    };
                    if let Some(member) =
                        settle(member, Some(key), false, rest, reading, list_open)?
                    {
                        out.insert(name.clone(), member);
                    }
                } else {
                    out.insert(name.clone(), member.clone());
                }
            }
            Ok(Some(Value::Object(out)))
        }
        Value::Array(items) => {
            let Ok(at) = first.parse::<usize>() else {
                return cannot_show();
            };
            let mut out = items.clone();
            match items.get(at) {
                Some(item) => match settle(item, key, lists_ids(key), rest, reading, list_open)? {
                    Some(item) => out[at] = item,
                    None => out.truncate(at),
                },
                // The open point names an item the preview holds; were it not to, data
                // shows what it holds and a component waits.
                None if reading == Reading::Data => {}
                None => return Err(()),
            }
            Ok(Some(Value::Array(out)))
        }
        _ => cannot_show(),
    }
}

/// The key a member's text is read under: a v0.8 entry's `valueString` whose `key`
/// names a link or an image is a URL, never shown cut.
fn text_key<'a>(entry: &Map<String, Value>, name: &'a str) -> &'a str {
    let names_a_link = |key: &str| {
        let key = key.to_ascii_lowercase();
        ["url", "link", "src", "href", "image"]
            .iter()
            .any(|word| key.contains(word))
    };
    match entry.get("key") {
        Some(Value::String(key)) if name == "valueString" && names_a_link(key) => "url",
        _ => name,
    }
}

/// v0.8 data entries so far: each an object with a `key` and a value (`valueString`,
/// `valueNumber`, `valueBoolean`, or a `valueMap` of entries); an entry with no value
/// yet, and a map whose entries all still lack theirs, are left out.
fn entries(value: &Value) -> Vec<Value> {
    let Value::Array(items) = value else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Value::Object(entry) = item else {
            continue;
        };
        if !entry.get("key").is_some_and(Value::is_string) {
            continue;
        }
        let mut entry = entry.clone();
        let mut has_value = ["value", "valueString", "valueNumber", "valueBoolean"]
            .iter()
            .any(|member| entry.contains_key(*member));
        if let Some(map) = entry.get("valueMap") {
            let kept = entries(map);
            let written = map.as_array().map_or(0, Vec::len);
            if kept.is_empty() && written > 0 {
                entry.remove("valueMap");
            } else {
                entry.insert("valueMap".to_string(), Value::Array(kept));
                has_value = true;
            }
        }
        if has_value {
            out.push(Value::Object(entry));
        }
    }
    out
}

/// Whether a string cut short may be shown: under a key read as text, and not the
/// start of a URL or a path, which would point somewhere else while cut.
fn cuttable(key: Option<&str>, text: &str) -> bool {
    let reads_as_text = key.is_some_and(|key| CUTTABLE.contains(&key));
    let points = ["http://", "https://", "data:", "/"]
        .iter()
        .any(|start| text.starts_with(start));
    reads_as_text && !points
}

fn is_empty_container(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Whether an empty object stands anywhere in `value`.
fn holds_empty_object(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty() || map.values().any(holds_empty_object),
        Value::Array(items) => items.iter().any(holds_empty_object),
        _ => false,
    }
}

/// The rest of `open` below member `key`, when the open point is inside it; `Some(&[])`
/// for a pointer that ends at the containing value itself (its members are whole).
fn within<'a, 'b>(open: &'a [&'b str], key: &str) -> Option<&'a [&'b str]> {
    match open.split_first() {
        Some((first, rest)) if *first == key => Some(rest),
        Some(_) => None,
        None => Some(&[]),
    }
}

/// A JSON pointer's reference tokens, unescaped (RFC 6901).
fn segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn components(message: Value, open: &str) -> Option<Vec<Value>> {
        match unfinished(Protocol::V09, &message, open)? {
            Unfinished::Components { components, .. } => Some(
                components
                    .into_iter()
                    .map(|c| serde_json::to_value(c).unwrap())
                    .collect(),
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_cut_short_shows_and_a_reference_cut_short_does_not() {
        let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Text", "text": "Em"}]}});
        let open = "/updateComponents/components/0/text";
        assert_eq!(
            components(message, open),
            Some(vec![
                json!({"id": "root", "component": "Text", "text": "Em"})
            ])
        );
        let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "a", "component": "Text", "text": "whole"},
            {"id": "root", "component": "Card", "child": "he"}]}});
        let open = "/updateComponents/components/1/child";
        assert_eq!(
            components(message, open),
            Some(vec![
                json!({"id": "a", "component": "Text", "text": "whole"})
            ])
        );
    }

    #[test]
    fn an_id_or_a_surface_cut_short_shows_nothing_of_it() {
        let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "ro", "component": "Text"}]}});
        assert_eq!(
            components(message, "/updateComponents/components/0/id"),
            Some(vec![])
        );
        let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s1"}});
        assert_eq!(
            unfinished(Protocol::V09, &message, "/updateComponents/surfaceId"),
            None
        );
    }

    #[test]
    fn a_children_list_still_arriving_shows_its_whole_ids() {
        let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Column", "children": ["a", "b"]}]}});
        match unfinished(
            Protocol::V09,
            &message,
            "/updateComponents/components/0/children/1",
        ) {
            Some(Unfinished::Components {
                components,
                open_lists,
                ..
            }) => {
                assert_eq!(components[0].children(), ["a"]);
                assert_eq!(open_lists, ["root"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn data_so_far_leaves_out_what_still_arrives() {
        let message = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {
            "title": "Top", "items": {"a": {"name": "Food", "url": "http://x/y"}}}}});
        let open = "/updateDataModel/value/items/a/url";
        let expected = Protocol::V09.data_update(
            "s".into(),
            None,
            json!({"title": "Top", "items": {"a": {"name": "Food"}}}),
        );
        assert_eq!(
            unfinished(Protocol::V09, &message, open),
            Some(Unfinished::Data(Box::new(expected)))
        );
        let message =
            json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {}}});
        assert_eq!(
            unfinished(Protocol::V09, &message, "/updateDataModel/value"),
            None
        );
    }

    #[test]
    fn v08_entries_so_far_keep_a_key_and_a_value() {
        let message = json!({"dataModelUpdate": {"surfaceId": "s", "contents": [
            {"key": "title", "valueString": "Top"},
            {"key": "items", "valueMap": [{"key": "a", "valueMap": [{"key": "name", "valueString": "Food"}, {}]}]},
            {"valueString": "no key"},
            {"key": "imageUrl", "valueString": "pic"}]}});
        let open = "/dataModelUpdate/contents/3/valueString";
        let expected = Protocol::V08.data_update(
            "s".into(),
            None,
            json!([{"key": "title", "valueString": "Top"},
                {"key": "items", "valueMap": [{"key": "a", "valueMap": [{"key": "name", "valueString": "Food"}]}]}]),
        );
        assert_eq!(
            unfinished(Protocol::V08, &message, open),
            Some(Unfinished::Data(Box::new(expected)))
        );
    }
}
