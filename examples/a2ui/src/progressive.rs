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

/// What an unfinished message can show now.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unfinished {
    /// Components of an `updateComponents`.
    Components {
        /// The surface they belong to.
        surface_id: String,
        /// The components that can be drawn, as written so far.
        components: Vec<Component>,
        /// Components whose `children` list is still arriving.
        open_lists: Vec<String>,
    },
    /// The value of an `updateDataModel` so far.
    Data {
        /// The surface it belongs to.
        surface_id: String,
        /// Where in the data model, when the message says.
        path: Option<String>,
        /// The value so far.
        value: Value,
    },
}

/// What `message` (a preview) can show while `open` (a JSON pointer inside it) is
/// still arriving; `None` when nothing of it can be drawn yet.
pub(crate) fn unfinished(message: &Value, open: &str) -> Option<Unfinished> {
    let open = segments(open);
    let open: Vec<&str> = open.iter().map(String::as_str).collect();
    let open = open.as_slice();
    if let Some(update) = message.get("updateComponents") {
        let open = within(open, "updateComponents")?;
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
            let shown = if Some(at) == open_at {
                unfinished_component(value, rest, &mut open_lists)
            } else {
                whole_component(value)
            };
            components.extend(shown);
        }
        return Some(Unfinished::Components {
            surface_id,
            components,
            open_lists,
        });
    }
    if let Some(update) = message.get("updateDataModel") {
        let open = within(open, "updateDataModel")?;
        let surface_id = settled_string(update, "surfaceId", open)?;
        let path = match update.get("path") {
            None => None,
            Some(_) => Some(settled_string(update, "path", open)?),
        };
        let value = update.get("value")?;
        let value = match within(open, "value") {
            Some(open) => settled(value, Some("value"), open)?,
            None => value.clone(),
        };
        if is_empty_container(&value) {
            return None;
        }
        return Some(Unfinished::Data {
            surface_id,
            path,
            value,
        });
    }
    None
}

/// A component of an unfinished message that is itself whole.
fn whole_component(value: &Value) -> Option<Component> {
    if holds_empty_object(value) {
        return None;
    }
    serde_json::from_value(value.clone()).ok()
}

/// The component still arriving, `open` being the path inside it of what arrives.
fn unfinished_component(
    value: &Value,
    open: &[&str],
    open_lists: &mut Vec<String>,
) -> Option<Component> {
    let object = value.as_object()?;
    let mut shown = object.clone();
    match open {
        // Between members: every member shown is whole.
        [] => {}
        ["id" | "component", ..] => return None,
        [key] if object.get(*key).is_some_and(Value::is_string) => {
            let text = object[*key].as_str().unwrap_or_default();
            if !cuttable(Some(key), text) {
                return None;
            }
        }
        ["children", rest @ ..] if rest.len() <= 1 => {
            let Some(Value::Array(ids)) = object.get("children") else {
                return None;
            };
            // An id cut short is left out: ids are never shown in part.
            let whole = if rest.is_empty() {
                ids.len()
            } else {
                ids.len().saturating_sub(1)
            };
            let ids: Vec<Value> = ids[..whole].to_vec();
            if ids.iter().any(|id| !id.is_string()) {
                return None;
            }
            if let Some(Value::String(id)) = object.get("id") {
                open_lists.push(id.clone());
            }
            shown.insert("children".to_string(), Value::Array(ids));
        }
        _ => return None,
    }
    whole_component(&Value::Object(shown))
}

/// The string member `key` of `object`, unless it is still arriving.
fn settled_string(object: &Value, key: &str, open: &[&str]) -> Option<String> {
    if open.first() == Some(&key) {
        return None;
    }
    object.get(key)?.as_str().map(str::to_string)
}

/// `value` with what is still arriving at `open` left out, unless it is a string that
/// reads as text cut short (`key` is the member that holds it); `None` when nothing of
/// it can show.
fn settled(value: &Value, key: Option<&str>, open: &[&str]) -> Option<Value> {
    let Some((first, rest)) = open.split_first() else {
        return match value {
            Value::String(text) => cuttable(key, text).then(|| value.clone()),
            // An open object or list shows the members it holds: they are whole.
            Value::Object(_) | Value::Array(_) => Some(value.clone()),
            // A number or a literal still arriving is not shown.
            _ => None,
        };
    };
    match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (name, member) in map {
                if name == first {
                    if let Some(member) = settled(member, Some(name), rest) {
                        out.insert(name.clone(), member);
                    }
                } else {
                    out.insert(name.clone(), member.clone());
                }
            }
            Some(Value::Object(out))
        }
        Value::Array(items) => {
            let at: usize = first.parse().ok()?;
            let mut out = items.clone();
            match items.get(at).and_then(|item| settled(item, key, rest)) {
                Some(item) => out[at] = item,
                None => {
                    out.truncate(at);
                }
            }
            Some(Value::Array(out))
        }
        _ => None,
    }
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

/// Whether an empty object stands anywhere in `value`: a component property A2UI
/// never leaves empty, so it is still being written.
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
        match unfinished(&message, open)? {
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
        assert_eq!(unfinished(&message, "/updateComponents/surfaceId"), None);
    }

    #[test]
    fn a_children_list_still_arriving_shows_its_whole_ids() {
        let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Column", "children": ["a", "b"]}]}});
        match unfinished(&message, "/updateComponents/components/0/children/1") {
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
        assert_eq!(
            unfinished(&message, open),
            Some(Unfinished::Data {
                surface_id: "s".into(),
                path: None,
                value: json!({"title": "Top", "items": {"a": {"name": "Food"}}}),
            })
        );
        let message =
            json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {}}});
        assert_eq!(unfinished(&message, "/updateDataModel/value"), None);
    }
}
