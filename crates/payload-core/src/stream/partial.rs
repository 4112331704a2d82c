//! The partial value of a block still arriving, for a UI that fills a card as the
//! model writes it (`payload_progress`).
//!
//! The rules, chosen so that a partial value never shows something the model has not
//! finished saying:
//! - an object member appears once its key is complete and its value has begun to show;
//! - a string value shows the text received so far (an escape shows once complete);
//! - a number or `true` / `false` / `null` shows only once complete (a number once a
//!   delimiter follows it: `12` may still become `120`);
//! - an object or array shows as soon as it opens, with the members and items so far.
//!
//! Progress is a preview for strict JSON: at the first thing strict JSON does not allow
//! (a single-quoted string, a comment, a missing comma) the preview stops growing. The
//! `complete` event carries the real result, repaired and validated. One forward pass,
//! an explicit stack (at most 128 deep), no recursion.

use payload_schema::pointer;
use serde_json::{Map, Value};

use crate::limits::MAX_DEPTH;

enum Frame {
    Object(Map<String, Value>, Option<String>),
    Array(Vec<Value>),
}

#[derive(Clone, Copy)]
enum Expect {
    Value,
    KeyOrClose,
    Key,
    Colon,
    CommaOrClose,
    ItemOrClose,
}

/// What reading a string found.
enum Read {
    /// The string closed; the offset after its closing quote.
    Complete(String, usize),
    /// The text ended inside it (or at something strict JSON does not allow).
    Partial(String),
}

/// The partial value of `text`, a JSON value that may be cut anywhere; `None` when
/// nothing of it can be shown yet.
pub fn partial_value(text: &str) -> Option<Value> {
    partial_with_open(text).map(|(value, _)| value)
}

/// [`partial_value`] and where the value is still open: the JSON pointer of the
/// innermost container or string still arriving (`""` for the root), or `None` when
/// the value is complete. Everything not on the way to that point is complete: JSON
/// arrives in order, so only the last member of each open container can still grow.
pub fn partial_with_open(text: &str) -> Option<(Value, Option<String>)> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Value> = None;
    let mut expect = Expect::Value;
    let mut i = 0;
    // A string value cut by the end of the text, attached while unwinding.
    let mut tail: Option<Value> = None;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let Some(&byte) = bytes.get(i) else { break };
        match expect {
            Expect::KeyOrClose | Expect::ItemOrClose
                if byte == b'}' && matches!(expect, Expect::KeyOrClose)
                    || byte == b']' && matches!(expect, Expect::ItemOrClose) =>
            {
                i += 1;
                if close(&mut stack, &mut root) {
                    break;
                }
                expect = Expect::CommaOrClose;
            }
            Expect::KeyOrClose | Expect::Key => {
                if byte != b'"' {
                    break;
                }
                match read_string(text, i + 1) {
                    Read::Complete(key, next) => {
                        if let Some(Frame::Object(_, pending)) = stack.last_mut() {
                            *pending = Some(key);
                        }
                        i = next;
                        expect = Expect::Colon;
                    }
                    Read::Partial(_) => break,
                }
            }
            Expect::Colon => {
                if byte != b':' {
                    break;
                }
                i += 1;
                expect = Expect::Value;
            }
            Expect::CommaOrClose => {
                let in_object = matches!(stack.last(), Some(Frame::Object(..)));
                match byte {
                    b',' => {
                        i += 1;
                        expect = if in_object {
                            Expect::Key
                        } else {
                            Expect::Value
                        };
                    }
                    b'}' if in_object => {
                        i += 1;
                        if close(&mut stack, &mut root) {
                            break;
                        }
                    }
                    b']' if !in_object => {
                        i += 1;
                        if close(&mut stack, &mut root) {
                            break;
                        }
                    }
                    _ => break,
                }
            }
            Expect::Value | Expect::ItemOrClose => match byte {
                b'{' | b'[' => {
                    if stack.len() >= MAX_DEPTH {
                        break;
                    }
                    i += 1;
                    if byte == b'{' {
                        stack.push(Frame::Object(Map::new(), None));
                        expect = Expect::KeyOrClose;
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        expect = Expect::ItemOrClose;
                    }
                }
                b'"' => match read_string(text, i + 1) {
                    Read::Complete(s, next) => {
                        i = next;
                        if attach(&mut stack, &mut root, Value::String(s)) {
                            break;
                        }
                        expect = Expect::CommaOrClose;
                    }
                    Read::Partial(s) => {
                        tail = Some(Value::String(s));
                        break;
                    }
                },
                b'-' | b'0'..=b'9' => {
                    let end = i + bytes[i..]
                        .iter()
                        .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                        .count();
                    if end == bytes.len() {
                        break; // still being typed
                    }
                    let Ok(number) = text[i..end].parse::<serde_json::Number>() else {
                        break;
                    };
                    i = end;
                    if attach(&mut stack, &mut root, Value::Number(number)) {
                        break;
                    }
                    expect = Expect::CommaOrClose;
                }
                _ => {
                    let literal = [
                        ("true", Value::Bool(true)),
                        ("false", Value::Bool(false)),
                        ("null", Value::Null),
                    ]
                    .into_iter()
                    .find(|(word, _)| text[i..].starts_with(word));
                    let Some((word, value)) = literal else { break };
                    i += word.len();
                    if attach(&mut stack, &mut root, value) {
                        break;
                    }
                    expect = Expect::CommaOrClose;
                }
            },
        }
    }
    let open = (!stack.is_empty() || tail.is_some()).then(|| open_pointer(&stack, tail.is_some()));
    if let Some(value) = tail {
        attach(&mut stack, &mut root, value);
    }
    while !stack.is_empty() {
        close(&mut stack, &mut root);
    }
    root.map(|value| (value, open))
}

/// The JSON pointer of the innermost open thing: each open container's next member or
/// item leads to the one inside it; the last container is itself the open thing, or,
/// with a string still arriving (`growing`), that string is.
fn open_pointer(stack: &[Frame], growing: bool) -> String {
    let mut pointer = String::new();
    for (depth, frame) in stack.iter().enumerate() {
        let last = depth + 1 == stack.len();
        if last && !growing {
            break;
        }
        pointer.push('/');
        match frame {
            Frame::Object(_, key) => {
                pointer.push_str(&pointer::escape_token(key.as_deref().unwrap_or_default()));
            }
            Frame::Array(items) => pointer.push_str(&items.len().to_string()),
        }
    }
    pointer
}

/// Adds a finished value to the innermost container (or makes it the root); true when
/// it was the root.
fn attach(stack: &mut [Frame], root: &mut Option<Value>, value: Value) -> bool {
    match stack.last_mut() {
        Some(Frame::Object(map, key)) => {
            if let Some(key) = key.take() {
                map.insert(key, value);
            }
            false
        }
        Some(Frame::Array(items)) => {
            items.push(value);
            false
        }
        None => {
            *root = Some(value);
            true
        }
    }
}

/// Closes the innermost container; true when it was the root.
fn close(stack: &mut Vec<Frame>, root: &mut Option<Value>) -> bool {
    let value = match stack.pop() {
        Some(Frame::Object(map, _)) => Value::Object(map),
        Some(Frame::Array(items)) => Value::Array(items),
        None => return true,
    };
    attach(stack, root, value)
}

/// Reads a JSON string whose body starts at `from`. The plain runs between quotes and
/// escapes are copied whole (found with `memchr`), not character by character: a
/// preview re-reads the block so far, and most of a block is string text.
fn read_string(text: &str, from: usize) -> Read {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut at = from;
    loop {
        let Some(offset) = memchr::memchr2(b'"', b'\\', &bytes[at..]) else {
            out.push_str(&text[at..]);
            return Read::Partial(out);
        };
        let stop = at + offset;
        out.push_str(&text[at..stop]);
        if bytes[stop] == b'"' {
            return Read::Complete(out, stop + 1);
        }
        let Some(&escape) = bytes.get(stop + 1) else {
            return Read::Partial(out);
        };
        let (decoded, length) = match escape {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            // `length` counts from the backslash: 6 for `\u00e9`, 12 for a pair.
            b'u' => match unicode_escape(text, stop + 2) {
                Some(found) => found,
                None => return Read::Partial(out),
            },
            _ => return Read::Partial(out),
        };
        out.push(decoded);
        at = stop + length;
    }
}

/// The char of a `\uXXXX` escape (or surrogate pair) whose hex digits start at
/// `start`, and the escape's length in bytes counted from its backslash.
fn unicode_escape(text: &str, start: usize) -> Option<(char, usize)> {
    let hex = |at: usize| {
        text.get(at..at + 4)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let high = hex(start)?;
    if (0xD800..0xDC00).contains(&high) {
        if text.get(start + 4..start + 6)? != "\\u" {
            return None;
        }
        let low = hex(start + 6)?;
        if !(0xDC00..0xE000).contains(&low) {
            return None;
        }
        let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?;
        return Some((c, 12));
    }
    Some((char::from_u32(high)?, 6))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shows_finished_members_and_the_string_being_typed() {
        let text = r#"{"query": "statins and myopathy", "articles": [{"pmid": "123", "title": "Muscle sympt"#;
        assert_eq!(
            partial_value(text),
            Some(json!({"query": "statins and myopathy",
                        "articles": [{"pmid": "123", "title": "Muscle sympt"}]}))
        );
    }

    #[test]
    fn numbers_and_keys_show_only_once_complete() {
        assert_eq!(partial_value(r#"{"year": 20"#), Some(json!({})));
        assert_eq!(
            partial_value(r#"{"year": 2024, "cou"#),
            Some(json!({"year": 2024}))
        );
        assert_eq!(partial_value(r#"{"ok": tru"#), Some(json!({})));
        assert_eq!(partial_value(r#"[1, 2, 3"#), Some(json!([1, 2])));
        assert_eq!(partial_value(r#"{"a": "x\u00"#), Some(json!({"a": "x"})));
        assert_eq!(partial_value(""), None);
    }

    #[test]
    fn a_complete_value_is_itself() {
        let value = json!({"a": [1, {"b": null, "c": "\u{e9}\n"}], "d": false});
        assert_eq!(partial_value(&value.to_string()), Some(value));
        assert_eq!(partial_value(r#"["\ud83d\ude00"]"#), Some(json!(["😀"])));
    }

    #[test]
    fn the_open_pointer_leads_to_what_is_still_arriving() {
        let open = |text: &str| partial_with_open(text).and_then(|(_, open)| open);
        assert_eq!(open(r#"{"a": [1, {"b": "gro"#), Some("/a/1/b".into()));
        assert_eq!(open(r#"{"a": [1, {"b": "done", "#), Some("/a/1".into()));
        assert_eq!(open(r#"{"a": [1, 2"#), Some("/a".into()));
        assert_eq!(open(r#"{"a/b~": "x"#), Some("/a~1b~0".into()));
        assert_eq!(open(r#""root str"#), Some("".into()));
        assert_eq!(open(r#"{"a": 1"#), Some("".into()));
        assert_eq!(
            partial_with_open(r#"{"a": [1]}"#),
            Some((json!({"a": [1]}), None))
        );
        assert_eq!(partial_with_open(""), None);
    }

    #[test]
    fn stops_growing_at_what_strict_json_does_not_allow() {
        assert_eq!(partial_value("{\"a\": 1, 'b': 2}"), Some(json!({"a": 1})));
        let deep = "[".repeat(10_000);
        assert!(partial_value(&deep).is_some());
    }
}
