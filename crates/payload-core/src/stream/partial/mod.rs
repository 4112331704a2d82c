//! The partial value of a block still arriving, for a UI that fills a card as the
//! model writes it (`payload_progress`), and the elements of its top-level lists as
//! each arrives whole (`payload_element`).
//!
//! The rules, chosen so that a partial value never shows something the model has not
//! finished saying:
//! - an object member appears once its key is complete and its value has begun to show;
//! - a string value shows the text received so far (an escape shows once complete);
//! - a number or a bare word (`true`, `None`) shows only once something follows it (a
//!   number: `12` may still become `120`);
//! - an object or array shows as soon as it opens, with the members and items so far.
//!
//! **Previews read what the repairer reads.** The text is read by the lenient reader's
//! rules (docs/spec.md §3, `crate::json::repair`): comments, trailing and missing
//! commas, single and curly quotes, unquoted keys, Python's `True` / `False` / `None`,
//! raw control characters and invalid escapes in strings, double quotes inside a
//! string, a closer of the other kind, invisible characters between tokens and a code
//! fence around the value. So a preview keeps filling in through each of them, and the
//! last preview of a closed value is the value the block's own reading gives. Where a
//! rule needs to see what follows (does this `"` close its string? is `12` whole?) the
//! reader waits for that text, using the same decision functions as the whole read
//! ([`crate::scan::quotes`], `crate::json::repair::scalar_at`), so it never decides
//! otherwise. What the repairer refuses (a guessed value, `NaN`, an unquoted string)
//! stops the preview there: such a block is rejected, and `complete` says why.
//!
//! The value ends at the closer of its first bracket, where the block's value ends
//! (the scanner's rule, docs/spec.md §1.14): a member written after an object closed
//! too early is outside the block in a stream, so the reader never looks for one.
//!
//! [`PartialReader`] is a resumable tokenizer: it keeps the value built so far and where
//! it stopped (inside a string, a number, a word or a comment too), so the stream hands
//! it the block as it grows and every byte is read once, however many previews are
//! taken (`ARCHITECTURE.md`, streaming). A decision that must look past the text so far
//! (a quote followed by spaces and a word) is tried again on the next text while what
//! it looks over is short (`RETRY_SPAN` bytes), and after that only once that stretch
//! has doubled, so a hostile stretch costs linear work in all. An explicit stack (at
//! most `MAX_DEPTH` deep), no recursion.

#[cfg(any(test, feature = "__internals"))]
mod fits;
mod hold;
mod lexical;
#[cfg(test)]
mod tests;

pub(crate) use hold::held_back;

#[cfg(any(test, feature = "__internals"))]
pub(crate) use fits::preview_fits;

use payload_schema::pointer;
use serde_json::{Map, Value};

use crate::json::repair;
use crate::limits::MAX_DEPTH;
use crate::scan::quotes::{self, Quote};
use lexical::StringEnd;

#[derive(Debug, Clone)]
enum Frame {
    /// An open object: its members so far and the key of the member being read.
    Object(Map<String, Value>, Option<String>),
    /// An open array: its items so far.
    Array(Vec<Value>),
}

/// What the next token must be (the lenient reader's states, `json::repair::parser`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Before the value: whitespace, and a code fence around it.
    Start,
    /// A value.
    Value,
    /// Just after `[`: `]` or an item.
    ArrayStart,
    /// Just after `{`: `}` or a key.
    ObjectStart,
    /// A key.
    Key,
    /// The `:` after a key.
    Colon,
    /// After a member or an item: `,`, a closer, or (a missing comma) the next one.
    AfterValue,
    /// After a `,`: the next member or item, or (a trailing comma) a closer.
    AfterComma,
}

/// A token cut by the end of the text so far, resumed when more comes.
#[derive(Debug)]
enum Pending {
    /// Nothing is cut: reading resumes at a token's start.
    None,
    /// A string: the text decoded so far, whether it is a key, and its quote.
    String {
        text: String,
        key: bool,
        quote: Quote,
    },
    /// A number that started at this offset (it is complete once something follows).
    Number(usize),
    /// A bare word (a literal value, or an unquoted key) that started at `start`.
    Word { start: usize, key: bool },
    /// A `//` comment, until the end of its line.
    LineComment,
    /// A `/* */` comment, until its `*/`.
    BlockComment,
}

/// Which text may complete a list element when read ([`PartialReader::wake`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wake {
    /// None: the reader reports no elements, or has stopped.
    Never,
    /// Only text holding one of these two bytes.
    On(u8, u8),
    /// Only once the value is this long (a decision waits for it).
    At(usize),
    /// Any text.
    Always,
}

impl Wake {
    /// Whether `text`, read when the value is `len` bytes long, may complete an element.
    /// The text is mostly a chunk of a byte or a few: a loop, not a search's set-up.
    #[inline]
    pub(crate) fn wakes_on(self, text: &[u8], len: usize) -> bool {
        match self {
            Wake::Never => false,
            Wake::On(a, b) => text.iter().any(|&byte| byte == a || byte == b),
            Wake::At(at) => len >= at,
            Wake::Always => true,
        }
    }
}

/// An element of a top-level list that has arrived whole (see [`PartialReader::elements`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ListElement {
    /// The list's JSON pointer: `""` for the value itself, `/key` for a member of the
    /// top-level object.
    pub(crate) pointer: String,
    /// The element's position in the list.
    pub(crate) index: usize,
    /// The element.
    pub(crate) value: Value,
}

/// The partial value of a JSON text that arrives in pieces: [`PartialReader::advance`]
/// with the text so far (each call's text extending the last one's), then
/// [`PartialReader::snapshot`] for the value and what is still open;
/// [`PartialReader::finish`] once the text is known to be whole.
#[derive(Debug)]
pub(crate) struct PartialReader {
    stack: Vec<Frame>,
    root: Option<Value>,
    expect: Expect,
    pending: Pending,
    /// Offset of the next byte to read.
    at: usize,
    /// The root value closed, or the text met something the repairer refuses: nothing
    /// more is read.
    stopped: bool,
    /// The text is whole ([`PartialReader::finish`]): what ends at its end is complete.
    eof: bool,
    /// A decision waits for more text: a text shorter than this is not read.
    resume_at: usize,
    /// The last value read was a bare word (`true`, `None`): a `'` right after it does
    /// not open a string (the lenient reader's rule for a missing comma).
    after_word: bool,
    /// Counts the changes a snapshot would show, so that an unchanged preview is known
    /// without building or comparing it (a key written twice with the same value counts
    /// as a change: one preview too many, never one too few).
    version: u64,
    /// The top-level list elements completed and not yet taken, when asked for.
    elements: Option<Vec<ListElement>>,
}

impl Default for PartialReader {
    fn default() -> Self {
        PartialReader {
            stack: Vec::new(),
            root: None,
            expect: Expect::Start,
            pending: Pending::None,
            at: 0,
            stopped: false,
            eof: false,
            resume_at: 0,
            after_word: false,
            version: 0,
            elements: None,
        }
    }
}

/// The partial value of `text`, a JSON value (as models write it) that may be cut
/// anywhere; `None` when nothing of it can be shown yet.
pub fn partial_value(text: &str) -> Option<Value> {
    partial_with_open(text).map(|(value, _)| value)
}

/// [`partial_value`] and where the value is still open: the JSON pointer of the
/// innermost container or string still arriving (`""` for the root), or `None` when
/// the value is complete. Everything not on the way to that point is complete: JSON
/// arrives in order, so only the last member of each open container can still grow.
///
/// ```
/// use payload_core::stream::partial_with_open;
/// use serde_json::json;
///
/// // A comment, single quotes and a trailing comma do not stop the preview.
/// let text = "{'title': 'Soup', // the name\n 'steps': ['chop', 'boil',], 'note': 'salt";
/// assert_eq!(
///     partial_with_open(text),
///     Some((json!({"title": "Soup", "steps": ["chop", "boil"], "note": "salt"}), Some("/note".into())))
/// );
/// ```
pub fn partial_with_open(text: &str) -> Option<(Value, Option<String>)> {
    let mut reader = PartialReader::default();
    reader.advance(text);
    reader.into_snapshot()
}

/// How far a decision may look past its token before it is retried only once that
/// stretch has doubled (module docs).
const RETRY_SPAN: usize = 64;

impl PartialReader {
    /// A reader that also collects the elements of top-level lists as they complete
    /// ([`PartialReader::take_elements`]).
    pub(crate) fn with_elements() -> PartialReader {
        PartialReader {
            elements: Some(Vec::new()),
            ..PartialReader::default()
        }
    }

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

    /// Which text, read now, may complete a top-level list element ([`Wake`]), so a
    /// caller may leave other text unread until a preview is due. Inside an element's
    /// own container (below the root array's items, or below the items of the root
    /// object's arrays) only a `}` or `]` can bring the reading back to the list,
    /// whatever else comes. Inside a string with no decision waiting, text free of that
    /// string's closing quote and of `\` only lengthens it ([`lexical::string`] stops at
    /// nothing else).
    pub(crate) fn wake(&self) -> Wake {
        if self.elements.is_none() {
            return Wake::Never;
        }
        if self.stopped {
            return Wake::Always;
        }
        // A decision that waits for the text to reach a length is retried then, as a
        // reader called on every chunk would retry it: until then nothing is read.
        if self.resume_at != 0 {
            return Wake::At(self.resume_at);
        }
        let item_depth = match self.stack.first() {
            Some(Frame::Array(_)) => 2,
            _ => 3,
        };
        if self.stack.len() >= item_depth {
            return Wake::On(b'}', b']');
        }
        match &self.pending {
            Pending::String { quote, .. } => Wake::On(lexical::closer(*quote), b'\\'),
            _ => Wake::Always,
        }
    }

    /// The elements of top-level lists completed since the last call, in text order:
    /// the items of the value when it is an array, and of each array that is a member of
    /// the top-level object (only the first member of a name written twice). Each
    /// element is given once. Empty unless built [`PartialReader::with_elements`].
    pub(crate) fn take_elements(&mut self) -> Vec<ListElement> {
        self.elements
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Reads what `text` adds to the text of the previous calls (`text` starts with
    /// it).
    pub(crate) fn advance(&mut self, text: &str) {
        if text.len() < self.resume_at {
            return;
        }
        self.resume_at = 0;
        self.run(text);
    }

    /// Reads the rest of `text`, which is the whole value: a token that ends at its end
    /// is complete (a number, a word, a quote that closes a string).
    pub(crate) fn finish(&mut self, text: &str) {
        self.eof = true;
        self.resume_at = 0;
        self.run(text);
    }

    fn run(&mut self, text: &str) {
        while !self.stopped {
            if !self.resume(text) {
                return;
            }
            if self.expect != Expect::Start && !self.skip_trivia(text) {
                return;
            }
            let Some(&byte) = text.as_bytes().get(self.at) else {
                return;
            };
            if !self.token(text, byte) {
                return;
            }
        }
    }

    /// Waits for more text before deciding at `from` (the decision looks at everything
    /// from there to the end of `text`).
    fn wait(&mut self, text: &str, from: usize) {
        let span = text.len() - from;
        self.resume_at = if self.eof {
            0
        } else if span <= RETRY_SPAN {
            text.len() + 1
        } else {
            text.len() + span
        };
    }

    /// Finishes a token cut by the previous text, if `text` now completes it; false
    /// when it is still cut (or the reading stopped).
    fn resume(&mut self, text: &str) -> bool {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => true,
            Pending::String {
                text: mut so_far,
                key,
                quote,
            } => {
                let before = so_far.len();
                let end = lexical::string(text, &mut self.at, quote, self.eof, &mut so_far);
                if !key && so_far.len() > before {
                    self.version += 1;
                }
                match end {
                    StringEnd::Closed => {
                        if key {
                            if let Some(Frame::Object(_, pending)) = self.stack.last_mut() {
                                *pending = Some(so_far);
                            }
                            self.expect = Expect::Colon;
                        } else {
                            self.after_word = false;
                            self.attach(Value::String(so_far));
                        }
                        true
                    }
                    StringEnd::Cut => {
                        self.pending = Pending::String {
                            text: so_far,
                            key,
                            quote,
                        };
                        false
                    }
                    StringEnd::Undecided => {
                        self.wait(text, self.at);
                        self.pending = Pending::String {
                            text: so_far,
                            key,
                            quote,
                        };
                        false
                    }
                    StringEnd::Refused => {
                        // The preview stops here; a value string shows what came before.
                        self.pending = Pending::String {
                            text: so_far,
                            key,
                            quote,
                        };
                        self.stopped = true;
                        false
                    }
                }
            }
            Pending::Number(start) => {
                if !lexical::number_end(text, &mut self.at, self.eof) {
                    self.pending = Pending::Number(start);
                    return false;
                }
                self.scalar(text, start, false)
            }
            Pending::Word { start, key } => {
                if !lexical::word_end(text, &mut self.at, self.eof) {
                    self.pending = Pending::Word { start, key };
                    return false;
                }
                if key {
                    if let Some(Frame::Object(_, pending)) = self.stack.last_mut() {
                        *pending = Some(text[start..self.at].to_string());
                    }
                    self.expect = Expect::Colon;
                    return true;
                }
                self.scalar(text, start, true)
            }
            Pending::LineComment => {
                if lexical::line_comment_end(text, &mut self.at) || self.eof {
                    return true;
                }
                self.pending = Pending::LineComment;
                false
            }
            Pending::BlockComment => {
                if lexical::block_comment_end(text, &mut self.at) {
                    return true;
                }
                // An unclosed `/*` at the end of the value is a value cut off.
                self.stopped = self.eof;
                self.pending = Pending::BlockComment;
                false
            }
        }
    }

    /// Reads the number or word literal that starts at `start` and ends at `self.at`,
    /// as the whole read does, and attaches it.
    fn scalar(&mut self, text: &str, start: usize, word: bool) -> bool {
        match repair::scalar_at(text, start) {
            Ok((value, end)) => {
                self.at = end;
                self.after_word = word;
                self.attach(value);
                true
            }
            Err(_) => {
                self.at = start;
                self.stopped = true;
                false
            }
        }
    }

    /// Skips whitespace, invisible characters and comments; false when the text ends
    /// inside a comment, or on a `/` that may open one.
    fn skip_trivia(&mut self, text: &str) -> bool {
        let bytes = text.as_bytes();
        loop {
            match bytes.get(self.at) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(0xE2 | 0xEF) => match crate::space::invisible_len(&bytes[self.at..]) {
                    Some(len) => self.at += len,
                    None => return true,
                },
                Some(b'/') => {
                    self.pending = match bytes.get(self.at + 1) {
                        Some(b'/') => Pending::LineComment,
                        Some(b'*') => Pending::BlockComment,
                        Some(_) => return true,
                        // At the end of the whole value it is a stray `/`.
                        None => return self.eof,
                    };
                    self.at += 2;
                    if !self.resume(text) {
                        return false;
                    }
                }
                _ => return true,
            }
        }
    }

    /// Reads the token that starts with `byte` at `self.at`; false when the text ends
    /// inside it (or the reading stopped).
    fn token(&mut self, text: &str, byte: u8) -> bool {
        match self.expect {
            Expect::Start => return self.start(text),
            Expect::Value => return self.value(text, byte),
            Expect::ArrayStart | Expect::ObjectStart | Expect::AfterComma
                if self.closes_something(byte) =>
            {
                self.close_at(byte);
            }
            Expect::ArrayStart => self.expect = Expect::Value,
            Expect::ObjectStart => self.expect = Expect::Key,
            Expect::AfterComma => {
                self.expect = if self.in_array() {
                    Expect::Value
                } else {
                    Expect::Key
                };
            }
            Expect::Key => {
                if let Some((quote, len)) = quotes::opening(text, self.at) {
                    self.at += len;
                    self.pending = Pending::String {
                        text: String::new(),
                        key: true,
                        quote,
                    };
                } else if lexical::char_at(text, self.at)
                    .is_some_and(|c| repair::is_word_start(c) || c.is_ascii_digit())
                {
                    // `{name: 1}`, and `{5: "x"}` (a bare number in a key's place).
                    self.pending = Pending::Word {
                        start: self.at,
                        key: true,
                    };
                } else {
                    self.stopped = true;
                }
            }
            Expect::Colon => {
                if byte != b':' {
                    self.stopped = true;
                    return false;
                }
                self.at += 1;
                self.expect = Expect::Value;
            }
            Expect::AfterValue => {
                let in_array = self.in_array();
                if byte == b',' {
                    self.at += 1;
                    self.expect = Expect::AfterComma;
                } else if self.closes_something(byte) {
                    self.close_at(byte);
                } else if in_array && self.starts_value(text, byte) {
                    self.expect = Expect::Value;
                } else if !in_array && self.starts_key(text) {
                    self.expect = Expect::Key;
                } else {
                    self.stopped = true;
                }
            }
        }
        true
    }

    /// Before the value: whitespace, then a code fence opener if one is written there.
    fn start(&mut self, text: &str) -> bool {
        lexical::skip_whitespace(text, &mut self.at);
        let rest = &text[self.at..];
        if rest.is_empty() {
            return false;
        }
        if rest.starts_with(['`', '~']) {
            if !self.eof && !lexical::fence_decided(rest) {
                self.wait(text, self.at);
                return false;
            }
            if let Some((_, len)) = crate::fence::inline_opener(rest) {
                self.at += len;
            }
        }
        self.expect = Expect::Value;
        true
    }

    /// Reads the start of a value; false when the reading stopped.
    fn value(&mut self, text: &str, byte: u8) -> bool {
        match byte {
            b'{' | b'[' => {
                if self.stack.len() >= MAX_DEPTH {
                    self.stopped = true;
                    return false;
                }
                self.at += 1;
                self.version += 1;
                if byte == b'{' {
                    self.stack.push(Frame::Object(Map::new(), None));
                    self.expect = Expect::ObjectStart;
                } else {
                    self.stack.push(Frame::Array(Vec::new()));
                    self.expect = Expect::ArrayStart;
                }
            }
            b'-' | b'0'..=b'9' => self.pending = Pending::Number(self.at),
            _ => {
                if let Some((quote, len)) = quotes::opening(text, self.at) {
                    // An empty string still arriving shows (as `""`).
                    self.at += len;
                    self.version += 1;
                    self.pending = Pending::String {
                        text: String::new(),
                        key: false,
                        quote,
                    };
                } else if lexical::char_at(text, self.at).is_some_and(repair::is_word_start) {
                    self.pending = Pending::Word {
                        start: self.at,
                        key: false,
                    };
                } else {
                    self.stopped = true;
                    return false;
                }
            }
        }
        true
    }

    fn in_array(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Array(_)))
    }

    /// Whether a value can start here (a missing comma in an array).
    fn starts_value(&self, text: &str, byte: u8) -> bool {
        matches!(byte, b'{' | b'[' | b'-' | b'0'..=b'9') || self.starts_key(text)
    }

    /// Whether a key can start here (a missing comma in an object): a `'` or curly
    /// quote right after a bare word is an apostrophe, as the lenient reader has it.
    fn starts_key(&self, text: &str) -> bool {
        match quotes::opening(text, self.at) {
            Some((Quote::Double, _)) => true,
            Some(_) => !self.after_word,
            None => lexical::char_at(text, self.at).is_some_and(repair::is_word_start),
        }
    }

    /// Whether the closer `byte` closes the innermost container or an outer one (a
    /// closer of the other kind closes the containers down to the one it matches).
    fn closes_something(&self, byte: u8) -> bool {
        matches!(byte, b']' | b'}') && self.stack.iter().any(|frame| matches_closer(frame, byte))
    }

    /// Handles a closer that closes something open: the innermost container closes,
    /// consuming the closer only when it is that container's own.
    fn close_at(&mut self, byte: u8) {
        if self
            .stack
            .last()
            .is_some_and(|frame| matches_closer(frame, byte))
        {
            self.at += 1;
        }
        self.after_word = false;
        self.close();
    }

    /// Adds a finished value to the innermost container (or makes it the root, which
    /// ends the reading).
    fn attach(&mut self, value: Value) {
        self.expect = Expect::AfterValue;
        self.version += 1;
        self.note_element(&value);
        match self.stack.last_mut() {
            Some(Frame::Object(map, key)) => {
                if let Some(key) = key.take() {
                    // The last value wins, in the first one's place (as in the whole read).
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

    /// Keeps `value`, about to be attached, when it is an element of a top-level list.
    fn note_element(&mut self, value: &Value) {
        let Some(elements) = &mut self.elements else {
            return;
        };
        let (pointer, index) = match self.stack.as_slice() {
            [Frame::Array(items)] => (String::new(), items.len()),
            // A name written twice: its first list was streamed, the final value has
            // the last one (a `duplicate_key` warning says so).
            [Frame::Object(map, Some(key)), Frame::Array(items)] if !map.contains_key(key) => {
                (format!("/{}", pointer::escape_token(key)), items.len())
            }
            _ => return,
        };
        elements.push(ListElement {
            pointer,
            index,
            value: value.clone(),
        });
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
            Pending::String {
                text, key: false, ..
            } => Some(Value::String(text.clone())),
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

/// Whether the closer `byte` is the container's own.
fn matches_closer(frame: &Frame, byte: u8) -> bool {
    match frame {
        Frame::Array(_) => byte == b']',
        Frame::Object(..) => byte == b'}',
    }
}
