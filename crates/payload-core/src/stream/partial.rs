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
//! `complete` event carries the real result, repaired and validated.
//!
//! [`PartialReader`] is a resumable tokenizer: it keeps the value built so far and where
//! it stopped (inside a string, a number or a literal too), so the stream hands it the
//! block as it grows and every byte is read once, however many previews are taken
//! (`ARCHITECTURE.md`, streaming). Strings are read by the one string reader
//! (`crate::json::string`). An explicit stack (at most `MAX_DEPTH` deep), no recursion.

use payload_schema::pointer;
use serde_json::{Map, Value};

use crate::json::string::{self, StringEnd};
use crate::limits::MAX_DEPTH;

#[derive(Debug, Clone)]
enum Frame {
    /// An open object: its members so far and the key of the member being read.
    Object(Map<String, Value>, Option<String>),
    /// An open array: its items so far.
    Array(Vec<Value>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    KeyOrClose,
    Key,
    Colon,
    CommaOrClose,
    ItemOrClose,
}

/// A token cut by the end of the text so far, resumed when more comes.
#[derive(Debug)]
enum Pending {
    /// Nothing is cut: reading resumes at a token's start.
    None,
    /// A string: the text decoded so far, and whether it is a key.
    String { text: String, key: bool },
    /// A number that started at this offset (it is complete once a delimiter follows).
    Number(usize),
}

/// The partial value of a JSON text that arrives in pieces: [`PartialReader::advance`]
/// with the text so far (each call's text extending the last one's), then
/// [`PartialReader::snapshot`] for the value and what is still open.
#[derive(Debug)]
pub(crate) struct PartialReader {
    stack: Vec<Frame>,
    root: Option<Value>,
    expect: Expect,
    pending: Pending,
    /// Offset of the next byte to read.
    at: usize,
    /// The root value closed, or the text met something strict JSON does not allow:
    /// nothing more is read.
    stopped: bool,
    /// Counts the changes a snapshot would show, so that an unchanged preview is known
    /// without building or comparing it (a key written twice with the same value counts
    /// as a change: one preview too many, never one too few).
    version: u64,
}

impl Default for PartialReader {
    fn default() -> Self {
        PartialReader {
            stack: Vec::new(),
            root: None,
            expect: Expect::Value,
            pending: Pending::None,
            at: 0,
            stopped: false,
            version: 0,
        }
    }
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
    let mut reader = PartialReader::default();
    reader.advance(text);
    reader.into_snapshot()
}

impl PartialReader {
    /// How many bytes of the text have been read: a text shorter than this is not an
    /// extension of the one read.
    pub(crate) fn read(&self) -> usize {
        self.at
    }

    /// Whether the root value has closed.
    pub(crate) fn complete(&self) -> bool {
        self.root.is_some()
    }

    /// A number that changes whenever the snapshot does.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// Reads what `text` adds to the text of the previous calls (`text` starts with
    /// it).
    pub(crate) fn advance(&mut self, text: &str) {
        let bytes = text.as_bytes();
        while !self.stopped {
            if !self.resume(text) {
                return;
            }
            while self.at < bytes.len() && bytes[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            let Some(&byte) = bytes.get(self.at) else {
                return;
            };
            if !self.token(text, byte) {
                return;
            }
        }
    }

    /// Finishes a token cut by the previous text, if `text` now completes it; false
    /// when it is still cut.
    fn resume(&mut self, text: &str) -> bool {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => true,
            Pending::String {
                text: mut so_far,
                key,
            } => {
                let before = so_far.len();
                match string::read_strict(text, self.at, &mut so_far) {
                    StringEnd::Closed(next) => {
                        self.at = next;
                        if key {
                            if let Some(Frame::Object(_, pending)) = self.stack.last_mut() {
                                *pending = Some(so_far);
                            }
                            self.expect = Expect::Colon;
                        } else {
                            // Closing changes what is open even when the text is
                            // unchanged.
                            self.version += 1;
                            self.attach(Value::String(so_far));
                        }
                        true
                    }
                    StringEnd::Cut(at) => {
                        self.at = at;
                        if !key && so_far.len() > before {
                            self.version += 1;
                        }
                        self.pending = Pending::String { text: so_far, key };
                        false
                    }
                    StringEnd::Invalid(at) => {
                        // The preview stops here; a value string shows what came before.
                        self.at = at;
                        if !key && so_far.len() > before {
                            self.version += 1;
                        }
                        self.pending = Pending::String { text: so_far, key };
                        self.stopped = true;
                        false
                    }
                }
            }
            Pending::Number(start) => {
                let bytes = text.as_bytes();
                let end = self.at
                    + bytes[self.at..]
                        .iter()
                        .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                        .count();
                if end == bytes.len() {
                    // Still being typed.
                    self.at = end;
                    self.pending = Pending::Number(start);
                    return false;
                }
                let Ok(number) = text[start..end].parse::<serde_json::Number>() else {
                    self.at = start;
                    self.stopped = true;
                    return false;
                };
                self.at = end;
                self.attach(Value::Number(number));
                true
            }
        }
    }

    /// Reads the token that starts with `byte` at `self.at`; false when the text ends
    /// inside it.
    fn token(&mut self, text: &str, byte: u8) -> bool {
        match self.expect {
            Expect::KeyOrClose | Expect::ItemOrClose
                if byte == b'}' && self.expect == Expect::KeyOrClose
                    || byte == b']' && self.expect == Expect::ItemOrClose =>
            {
                self.at += 1;
                self.close();
            }
            Expect::KeyOrClose | Expect::Key => {
                if byte != b'"' {
                    self.stopped = true;
                    return true;
                }
                self.at += 1;
                self.pending = Pending::String {
                    text: String::new(),
                    key: true,
                };
            }
            Expect::Colon => {
                if byte != b':' {
                    self.stopped = true;
                    return true;
                }
                self.at += 1;
                self.expect = Expect::Value;
            }
            Expect::CommaOrClose => {
                let in_object = matches!(self.stack.last(), Some(Frame::Object(..)));
                match byte {
                    b',' => {
                        self.at += 1;
                        self.expect = if in_object {
                            Expect::Key
                        } else {
                            Expect::Value
                        };
                    }
                    b'}' if in_object => {
                        self.at += 1;
                        self.close();
                    }
                    b']' if !in_object => {
                        self.at += 1;
                        self.close();
                    }
                    _ => self.stopped = true,
                }
            }
            Expect::Value | Expect::ItemOrClose => return self.value(text, byte),
        }
        true
    }

    /// Reads the start of a value (all of it, for a literal); false when the text
    /// ends inside a literal.
    fn value(&mut self, text: &str, byte: u8) -> bool {
        match byte {
            b'{' | b'[' => {
                if self.stack.len() >= MAX_DEPTH {
                    self.stopped = true;
                    return true;
                }
                self.at += 1;
                self.version += 1;
                if byte == b'{' {
                    self.stack.push(Frame::Object(Map::new(), None));
                    self.expect = Expect::KeyOrClose;
                } else {
                    self.stack.push(Frame::Array(Vec::new()));
                    self.expect = Expect::ItemOrClose;
                }
            }
            b'"' => {
                // An empty string still arriving shows (as `""`).
                self.at += 1;
                self.version += 1;
                self.pending = Pending::String {
                    text: String::new(),
                    key: false,
                };
            }
            b'-' | b'0'..=b'9' => self.pending = Pending::Number(self.at),
            _ => {
                let rest = &text.as_bytes()[self.at..];
                let literal = [
                    (&b"true"[..], Value::Bool(true)),
                    (&b"false"[..], Value::Bool(false)),
                    (&b"null"[..], Value::Null),
                ]
                .into_iter()
                .find(|(word, _)| rest.starts_with(word) || word.starts_with(rest));
                match literal {
                    Some((word, value)) if rest.starts_with(word) => {
                        self.at += word.len();
                        self.attach(value);
                    }
                    // Cut inside the word: it is read again from its start next time.
                    Some(_) => return false,
                    None => self.stopped = true,
                }
            }
        }
        true
    }

    /// Adds a finished value to the innermost container (or makes it the root, which
    /// ends the reading).
    fn attach(&mut self, value: Value) {
        self.expect = Expect::CommaOrClose;
        self.version += 1;
        match self.stack.last_mut() {
            Some(Frame::Object(map, key)) => {
                if let Some(key) = key.take() {
                    map.insert(key, value);
                }
            }
            Some(Frame::Array(items)) => items.push(value),
            None => {
                self.root = Some(value);
                self.stopped = true;
            }
        }
    }

    /// Closes the innermost container.
    fn close(&mut self) {
        self.version += 1;
        let value = match self.stack.pop() {
            Some(Frame::Object(map, _)) => Value::Object(map),
            Some(Frame::Array(items)) => Value::Array(items),
            None => return,
        };
        self.attach(value);
    }

    /// The partial value so far and what is still open (see [`partial_with_open`]),
    /// built from a copy of what has been read.
    pub(crate) fn snapshot(&self) -> Option<(Value, Option<String>)> {
        if let Some(root) = &self.root {
            return Some((root.clone(), None));
        }
        let tail = self.tail();
        let open = self.open_pointer(tail.is_some());
        let mut value = tail;
        for frame in self.stack.iter().rev() {
            value = Some(match frame {
                Frame::Object(map, key) => {
                    let mut map = map.clone();
                    if let (Some(key), Some(inner)) = (key, value) {
                        map.insert(key.clone(), inner);
                    }
                    Value::Object(map)
                }
                Frame::Array(items) => {
                    let mut items = items.clone();
                    items.extend(value);
                    Value::Array(items)
                }
            });
        }
        value.map(|value| (value, open))
    }

    /// [`PartialReader::snapshot`] without the copy.
    pub(crate) fn into_snapshot(mut self) -> Option<(Value, Option<String>)> {
        if let Some(root) = self.root.take() {
            return Some((root, None));
        }
        let tail = self.tail();
        let open = self.open_pointer(tail.is_some());
        let mut value = tail;
        while let Some(frame) = self.stack.pop() {
            value = Some(match frame {
                Frame::Object(mut map, key) => {
                    if let (Some(key), Some(inner)) = (key, value) {
                        map.insert(key, inner);
                    }
                    Value::Object(map)
                }
                Frame::Array(mut items) => {
                    items.extend(value);
                    Value::Array(items)
                }
            });
        }
        value.map(|value| (value, open))
    }

    /// A string value still arriving (it shows as far as it has come).
    fn tail(&self) -> Option<Value> {
        match &self.pending {
            Pending::String { text, key: false } => Some(Value::String(text.clone())),
            _ => None,
        }
    }

    /// The JSON pointer of the innermost open thing: each open container's next member
    /// or item leads to the one inside it; the last container is itself the open
    /// thing, or, with a string still arriving (`growing`), that string is. `None` once
    /// the root has closed.
    fn open_pointer(&self, growing: bool) -> Option<String> {
        if self.stack.is_empty() && !growing {
            return None;
        }
        let mut pointer = String::new();
        for (depth, frame) in self.stack.iter().enumerate() {
            let last = depth + 1 == self.stack.len();
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
        Some(pointer)
    }
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

    use crate::json::repair::proptests::{json_value, token_soup};
    use proptest::prelude::*;

    /// Feeds `text` in chunks of the given sizes (cycled) to one reader; after each
    /// chunk its snapshot is that of a fresh reader given the whole text so far.
    fn check_resumable(text: &str, sizes: &[usize]) -> Result<(), TestCaseError> {
        let mut reader = PartialReader::default();
        let mut end = 0;
        let mut sizes = sizes.iter().cycle();
        while end < text.len() {
            end = (end + sizes.next().copied().unwrap_or(1)).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let before = reader.version();
            let shown = reader.snapshot();
            reader.advance(&text[..end]);
            let now = reader.snapshot();
            prop_assert_eq!(&now, &partial_with_open(&text[..end]), "at {}", end);
            if reader.version() == before {
                prop_assert_eq!(now, shown, "unchanged version, changed value at {}", end);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn reading_in_chunks_is_reading_at_once(
            value in json_value(),
            pretty in any::<bool>(),
            sizes in prop::collection::vec(1usize..9, 1..5),
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                value.to_string()
            };
            check_resumable(&text, &sizes)?;
            check_resumable(&text, &[1])?;
            // A complete value is itself, with nothing open (a root number only
            // once a delimiter follows it).
            if !value.is_number() {
                prop_assert_eq!(partial_with_open(&text), Some((value, None)));
            }
        }

        #[test]
        fn broken_text_in_chunks_is_broken_text_at_once(
            text in prop_oneof![any::<String>(), token_soup()],
            sizes in prop::collection::vec(1usize..9, 1..5),
        ) {
            check_resumable(&text, &sizes)?;
        }
    }
}
