//! Tool calls whose pieces arrive over a stream: providers send a call's id and name
//! first and its arguments' JSON text in fragments, calls told apart by an index. The
//! pieces are joined here and read once the answer ends.

use crate::model::ToolCall;
use serde_json::Value;

/// The tool calls of one answer, as their pieces arrive.
#[derive(Debug, Default)]
pub(crate) struct PendingCalls {
    calls: Vec<Pending>,
}

#[derive(Debug)]
struct Pending {
    index: Option<usize>,
    id: String,
    name: String,
    arguments: String,
    /// Set for calls that arrived whole.
    input: Option<Value>,
}

impl PendingCalls {
    /// Adds a piece of call `index`.
    pub(crate) fn piece(
        &mut self,
        index: usize,
        id: Option<String>,
        name: Option<String>,
        arguments: &str,
    ) {
        let at = match self.calls.iter().position(|c| c.index == Some(index)) {
            Some(at) => at,
            None => {
                self.calls.push(Pending {
                    index: Some(index),
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                    input: None,
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[at];
        if let Some(id) = id {
            call.id = id;
        }
        if let Some(name) = name {
            call.name.push_str(&name);
        }
        call.arguments.push_str(arguments);
    }

    /// Adds a call that arrived whole.
    pub(crate) fn whole(&mut self, id: String, name: String, input: Value) {
        self.calls.push(Pending {
            index: None,
            id,
            name,
            arguments: String::new(),
            input: Some(input),
        });
    }

    /// The calls, in the order they began. Arguments that are not JSON become a string
    /// input, which the tool's input check then refuses with a message the model can
    /// act on (nothing the model sent is dropped). A call without an id gets one, so its
    /// result can still be matched to it.
    pub(crate) fn finish(&mut self) -> Vec<ToolCall> {
        std::mem::take(&mut self.calls)
            .into_iter()
            .enumerate()
            .map(|(n, call)| {
                let input = call.input.unwrap_or_else(|| read_arguments(call.arguments));
                let id = if call.id.is_empty() {
                    format!("call_{n}")
                } else {
                    call.id
                };
                ToolCall {
                    id,
                    name: call.name,
                    input,
                }
            })
            .collect()
    }
}

/// A call's arguments: an empty text is no arguments (`{}`), as providers send for a
/// tool without parameters. Arguments are an object, so a JSON string holding one (the
/// object serialized twice, as models sometimes send it) is the object it holds, once
/// (docs/values.md, "A value sent inside a string"). Anything else that is not JSON is
/// kept as a string, which the tool's input check then refuses with its reason.
fn read_arguments(text: String) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Default::default());
    }
    match serde_json::from_str(&text) {
        Ok(Value::String(inner)) => match serde_json::from_str(&inner) {
            Ok(object @ Value::Object(_)) => object,
            _ => Value::String(inner),
        },
        Ok(value) => value,
        Err(_) => Value::String(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_sent_inside_a_string_are_the_object_they_hold() {
        let object = json!({"q": "trials", "n": 2});
        let twice = serde_json::to_string(&object.to_string()).unwrap();
        assert_eq!(read_arguments(twice), object);
        // Once only, and only an object: anything else stays the string it was.
        let thrice =
            serde_json::to_string(&serde_json::to_string(&object.to_string()).unwrap()).unwrap();
        assert!(read_arguments(thrice).is_string());
        assert_eq!(read_arguments("\"[1]\"".into()), json!("[1]"));
        assert_eq!(read_arguments("{\"q\": 1,".into()), json!("{\"q\": 1,"));
        assert_eq!(read_arguments(" ".into()), json!({}));
    }

    #[test]
    fn pieces_of_interleaved_calls_are_joined_by_index() {
        let mut calls = PendingCalls::default();
        calls.piece(0, Some("a".into()), Some("search".into()), "");
        calls.piece(1, Some("b".into()), Some("fetch".into()), "{\"id\":");
        calls.piece(0, None, None, "{\"q\":\"tri");
        calls.piece(1, None, None, " 7}");
        calls.piece(0, None, None, "als\"}");
        let done = calls.finish();
        assert_eq!(done.len(), 2);
        assert_eq!(
            (done[0].id.as_str(), done[0].name.as_str()),
            ("a", "search")
        );
        assert_eq!(done[0].input, json!({"q": "trials"}));
        assert_eq!(done[1].input, json!({"id": 7}));
        assert!(calls.finish().is_empty());
    }

    #[test]
    fn empty_arguments_are_an_empty_object_and_broken_ones_are_kept_as_text() {
        let mut calls = PendingCalls::default();
        calls.piece(0, None, Some("now".into()), "");
        calls.piece(1, Some("x".into()), Some("f".into()), "{\"a\": ");
        let done = calls.finish();
        assert_eq!(done[0].input, json!({}));
        assert_eq!(done[0].id, "call_0");
        assert_eq!(done[1].input, json!("{\"a\": "));
    }
}
