//! Where a JSON Pointer's value starts in the JSON text it was parsed from, so that
//! validation errors carry a line and column in the model's text.
//!
//! One forward pass over the text locates every asked-for pointer at once, tracking the
//! current path with an explicit stack; it reads strict JSON exactly and the repairable
//! dialect (single quotes, unquoted keys, comments) well enough to find members.

use super::string;
use payload_schema::pointer;
use std::collections::HashMap;

enum Frame {
    Object {
        key: Option<String>,
    },
    /// An array: the index of the item being read, and where the reading is: inside
    /// a scalar item, or after an item (repair reads a value after it with no comma
    /// as the next item, `[1 2]`, and so must the pointers).
    Array {
        index: usize,
        item: Item,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    /// Before an item (after `[` or a comma).
    Before,
    /// Inside a scalar item.
    Scalar,
    /// After an item, with no comma yet.
    After,
}

/// When the top of `stack` is an array after an item and a value starts at `at` (byte
/// `b`) with no comma before it: the next item starts there.
fn item_without_comma(stack: &mut [Frame], path: &mut String, lengths: &[usize], b: u8) -> bool {
    let Some(Frame::Array { index, item }) = stack.last_mut() else {
        return false;
    };
    let starts = matches!(b, b'{' | b'[' | b'"' | b'\'' | b'-') || b.is_ascii_digit();
    if *item != Item::After || !starts {
        return false;
    }
    *index += 1;
    path.truncate(*lengths.last().unwrap_or(&0));
    path.push_str(&format!("/{index}"));
    *item = Item::Before;
    true
}

/// Marks the array at the top of `stack` (if it is one) as after an item.
fn item_ended(stack: &mut [Frame]) {
    if let Some(Frame::Array { item, .. }) = stack.last_mut() {
        *item = Item::After;
    }
}

/// Byte offsets (within `text`) of the values at each of `pointers` that occur.
pub fn locate(text: &str, pointers: &[&str]) -> HashMap<String, usize> {
    let mut wanted: Vec<&str> = pointers.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut found = HashMap::new();
    if wanted.is_empty() {
        return found;
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut path = String::new();
    let mut lengths: Vec<usize> = Vec::new();
    let mut expecting_key = false;
    let mut i = 0;

    let record = |path: &str, at: usize, found: &mut HashMap<String, usize>| {
        if wanted.binary_search(&path).is_ok() && !found.contains_key(path) {
            found.insert(path.to_string(), at);
        }
    };
    record("", root(text), &mut found);

    while i < bytes.len() {
        let b = bytes[i];
        if item_without_comma(&mut stack, &mut path, &lengths, b) {
            record(&path, i, &mut found);
        }
        if let Some(Frame::Array { item, .. }) = stack.last_mut() {
            // A scalar item ends at space or at what cannot be in it.
            let scalar = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.');
            match *item {
                Item::Scalar if !scalar => *item = Item::After,
                Item::Before if scalar => *item = Item::Scalar,
                _ => {}
            }
        }
        match b {
            b'{' | b'[' => {
                if b == b'{' {
                    stack.push(Frame::Object { key: None });
                    expecting_key = true;
                } else {
                    stack.push(Frame::Array {
                        index: 0,
                        item: Item::Before,
                    });
                    expecting_key = false;
                    lengths.push(path.len());
                    path.push_str("/0");
                    let at = skip_ws(bytes, i + 1);
                    if bytes.get(at) != Some(&b']') {
                        record(&path, at, &mut found);
                    }
                }
                if b == b'{' {
                    lengths.push(path.len());
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                if let Some(len) = lengths.pop() {
                    path.truncate(len);
                }
                item_ended(&mut stack);
                expecting_key = false;
                i += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Array { index, item }) => {
                        *index += 1;
                        *item = Item::Before;
                        let len = *lengths.last().unwrap_or(&0);
                        path.truncate(len);
                        path.push_str(&format!("/{index}"));
                        let at = skip_ws(bytes, i + 1);
                        record(&path, at, &mut found);
                    }
                    Some(Frame::Object { key }) => {
                        *key = None;
                        expecting_key = true;
                    }
                    None => {}
                }
                i += 1;
            }
            b'"' | b'\'' => {
                let end = string::closing_quote(bytes, i + 1, b);
                if expecting_key {
                    // Without the closing quote when there is one (an unclosed key runs
                    // to the end of the text).
                    let closed = end > i + 1 && bytes[end - 1] == b;
                    let raw = &text[i + 1..if closed { end - 1 } else { end }];
                    // The key as the repair lexer decodes it, so that it matches the
                    // pointers of the value that lexer read.
                    let key = string::unescape_lenient(raw, char::from(b)).into_owned();
                    set_key(&mut stack, &mut path, &lengths, key);
                    expecting_key = false;
                } else {
                    item_ended(&mut stack);
                }
                i = end;
            }
            b':' => {
                let at = skip_ws(bytes, i + 1);
                record(&path, at, &mut found);
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&bytes[i + 2..], b"*/").map_or(bytes.len(), |n| i + n + 4);
            }
            _ if expecting_key && (b.is_ascii_alphabetic() || b == b'_' || b == b'$') => {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'$' | b'-'))
                {
                    i += 1;
                }
                set_key(&mut stack, &mut path, &lengths, text[start..i].to_string());
                expecting_key = false;
            }
            _ => i += 1,
        }
        if found.len() == wanted.len() {
            break;
        }
    }
    found
}

fn set_key(stack: &mut [Frame], path: &mut String, lengths: &[usize], key: String) {
    if let Some(Frame::Object { key: slot }) = stack.last_mut() {
        path.truncate(*lengths.last().unwrap_or(&0));
        path.push('/');
        path.push_str(&pointer::escape_token(&key));
        *slot = Some(key);
    }
}

/// Where the value starts: after leading whitespace and a code fence opener around it,
/// by the rule repair reads it with (`crate::fence::inline_opener`), so that a fenced
/// scalar (```` ```json\n1\n``` ````) is located at its literal, not at the fence.
fn root(text: &str) -> usize {
    let at = skip_ws(text.as_bytes(), 0);
    match crate::fence::inline_opener(&text[at..]) {
        Some((_, len)) => skip_ws(text.as_bytes(), at + len),
        None => at,
    }
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i.min(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_members_items_and_the_root() {
        let text = "{\n  \"mode\": \"x\",\n  \"ops\": [ {\"a\": 1}, {\"a\": [true, 2]} ]\n}";
        let found = locate(text, &["", "/mode", "/ops/1/a/1", "/ops/0", "/missing"]);
        assert_eq!(found[""], 0);
        assert_eq!(&text[found["/mode"]..found["/mode"] + 3], "\"x\"");
        assert_eq!(&text[found["/ops/1/a/1"]..found["/ops/1/a/1"] + 1], "2");
        assert_eq!(&text[found["/ops/0"]..found["/ops/0"] + 6], "{\"a\": ");
        assert!(!found.contains_key("/missing"));
    }

    #[test]
    fn a_fenced_value_is_located_past_its_opener() {
        for (text, at) in [
            ("```json\n1\n```", 8),
            ("  ~~~\n [2]\n~~~", 7),
            ("```json {}```", 8),
        ] {
            assert_eq!(locate(text, &[""])[""], at, "{text:?}");
        }
    }

    #[test]
    fn an_item_after_a_missing_comma_is_the_next_item() {
        let text = "[1 2, \"a\" [3] {\"b\": 4}\n-5,]";
        let found = locate(text, &["/1", "/2", "/3", "/4", "/5", "/3/0"]);
        let at = |p: &str| &text[found[p]..found[p] + 1];
        assert_eq!((at("/1"), at("/2"), at("/3")), ("2", "\"", "["));
        assert_eq!((at("/4"), at("/5"), at("/3/0")), ("{", "-", "3"));
    }

    #[test]
    fn keys_may_be_unquoted_or_single_quoted() {
        let text = "{mode: 'x', 'b': {c: 3}}";
        let found = locate(text, &["/b/c"]);
        assert_eq!(&text[found["/b/c"]..found["/b/c"] + 1], "3");
    }

    #[test]
    fn brackets_in_strings_and_comments_are_ignored() {
        let text = "{\"a\": \"[}{\", // ] comment\n \"b\": 1}";
        let found = locate(text, &["/b"]);
        assert_eq!(&text[found["/b"]..found["/b"] + 1], "1");
    }
}
