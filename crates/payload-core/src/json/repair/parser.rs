//! The structure: objects and arrays read with an explicit stack (never recursion, so a
//! deep input cannot overflow the call stack), missing and trailing commas decided from
//! the next token alone.

use super::kinds::Repair;
use super::lexer::{Lexer, error};
use super::notes::{DuplicateKey, Imprecise, Notes};
use super::{ErrorKind, Hint, Lenient, RepairError};
use crate::limits::MAX_DEPTH;
use payload_schema::pointer;
use serde_json::{Map, Value};

/// An object or array being read.
enum Frame {
    Array(Vec<Value>),
    Object {
        map: Map<String, Value>,
        /// The key whose value is being read.
        key: Option<String>,
    },
}

impl Frame {
    fn into_value(self) -> Value {
        match self {
            Frame::Array(items) => Value::Array(items),
            Frame::Object { map, .. } => Value::Object(map),
        }
    }
}

/// What the next token must be.
#[derive(Clone, Copy)]
enum State {
    /// A value.
    Value,
    /// Just after `[`: `]` or a value.
    ArrayStart,
    /// Just after `{`: `}` or a key.
    ObjectStart,
    /// A key, then `:`.
    Key,
    /// After a value inside an object or array: `,`, the closer, or (repaired) the
    /// next member with its comma missing.
    AfterValue,
}

/// Reads the whole text as one value.
pub(super) fn parse(text: &str) -> Result<Lenient, RepairError> {
    let mut lexer = Lexer::new(text);
    lexer.skip_whitespace();
    // A code fence around the value, by the one fence rule (docs/spec.md §9.2): its closer is a
    // run of the same character at least as long.
    let fence = crate::fence::inline_opener(&text[lexer.pos..]).map(|(fence, len)| {
        lexer.repairs.add(Repair::CodeFence);
        lexer.pos += len;
        lexer.skip_whitespace();
        fence
    });
    let mut notes = Notes::default();
    let value = parse_value(&mut lexer, &mut notes)?;
    lexer.skip_trivia()?;
    let rest = &text[lexer.pos..];
    let closer = match fence {
        Some(fence) => crate::fence::inline_closer(rest, fence),
        // A closing fence whose opener was cut off before the value.
        None => crate::fence::run_at(rest).map(|run| run.len()),
    };
    if let Some(len) = closer {
        lexer.repairs.add(Repair::CodeFence);
        lexer.pos += len;
        lexer.skip_whitespace();
    }
    if !lexer.at_end() {
        return Err(error(
            ErrorKind::Parsing,
            "unexpected text after the value",
            lexer.pos,
        )
        .with_hint(Hint::OneValue));
    }
    Ok(Lenient {
        value,
        repairs: lexer.repairs.phrases(),
        notes,
    })
}

/// Reads the value at the start of `text` and stops after it, whatever follows; the
/// offset just past the value is returned with it.
pub(super) fn parse_prefix(text: &str) -> Result<(Lenient, usize), RepairError> {
    let mut lexer = Lexer::new(text);
    let mut notes = Notes::default();
    let value = parse_value(&mut lexer, &mut notes)?;
    let end = lexer.pos;
    let lenient = Lenient {
        value,
        repairs: lexer.repairs.phrases(),
        notes,
    };
    Ok((lenient, end))
}

/// What a closing bracket does to the containers open.
enum Closer {
    /// It closes the innermost container: consume it.
    Matches,
    /// It closes an outer container: the innermost ones were left open, and close here
    /// without consuming it (the balanced scanner's rule, so both agree on the end).
    Outer,
    /// It matches nothing open.
    Stray,
}

fn closer_kind(stack: &[Frame], byte: u8) -> Closer {
    let matches = |frame: &Frame| match frame {
        Frame::Array(_) => byte == b']',
        Frame::Object { .. } => byte == b'}',
    };
    match stack.split_last() {
        Some((top, _)) if matches(top) => Closer::Matches,
        Some((_, outer)) if outer.iter().any(matches) => Closer::Outer,
        _ => Closer::Stray,
    }
}

/// Reads one value, however deeply nested, with an explicit stack.
fn parse_value(lexer: &mut Lexer<'_>, notes: &mut Notes) -> Result<Value, RepairError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut state = State::Value;
    loop {
        lexer.skip_trivia()?;
        let at = lexer.pos;
        // A finished value (scalar or closed container), to be put in its parent.
        let done = match state {
            State::Value => match lexer.peek() {
                Some(open @ (b'[' | b'{')) => {
                    // `MAX_DEPTH` levels are read; the one past them is refused, on
                    // the strict path and here alike.
                    if stack.len() >= MAX_DEPTH {
                        return Err(error(
                            ErrorKind::Parsing,
                            &format!("the value nests deeper than {MAX_DEPTH} levels"),
                            at,
                        )
                        .with_hint(Hint::LessNesting));
                    }
                    lexer.pos += 1;
                    if open == b'[' {
                        stack.push(Frame::Array(Vec::new()));
                        state = State::ArrayStart;
                    } else {
                        stack.push(Frame::Object {
                            map: Map::new(),
                            key: None,
                        });
                        state = State::ObjectStart;
                    }
                    continue;
                }
                _ => {
                    let value = lexer.scalar()?;
                    if std::mem::take(&mut lexer.inexact) {
                        notes.inexact.push(pointer(&stack));
                    }
                    if let Some(literal) = lexer.imprecise.take() {
                        notes.imprecise.push(Imprecise {
                            path: pointer(&stack),
                            literal,
                        });
                    }
                    if let Value::String(first) = value {
                        lexer.skip_trivia()?;
                        if lexer.at_alternative() {
                            return Err(alternatives(lexer, at, first, &stack)?);
                        }
                        Value::String(first)
                    } else {
                        value
                    }
                }
            },
            State::ArrayStart | State::ObjectStart => match lexer.peek() {
                Some(byte @ (b']' | b'}'))
                    if !matches!(closer_kind(&stack, byte), Closer::Stray) =>
                {
                    match close_at(lexer, &mut stack, byte) {
                        Some(value) => value,
                        None => {
                            state = State::AfterValue;
                            continue;
                        }
                    }
                }
                _ => {
                    state = match state {
                        State::ArrayStart => State::Value,
                        _ => State::Key,
                    };
                    continue;
                }
            },
            State::Key => {
                let key = lexer.key()?;
                lexer.skip_trivia()?;
                match lexer.peek() {
                    Some(b':') => lexer.pos += 1,
                    Some(_) => {
                        return Err(error(
                            ErrorKind::Parsing,
                            "expected `:` after the key",
                            lexer.pos,
                        )
                        .with_hint(Hint::ColonAfterKey));
                    }
                    None => {
                        return Err(error(
                            ErrorKind::Truncated,
                            "the text ends after a key",
                            lexer.pos,
                        ));
                    }
                }
                if let Some(Frame::Object { key: slot, .. }) = stack.last_mut() {
                    *slot = Some(key);
                }
                state = State::Value;
                continue;
            }
            State::AfterValue => {
                let in_array = matches!(stack.last(), Some(Frame::Array(_)));
                match lexer.peek() {
                    None => {
                        return Err(error(
                            ErrorKind::Truncated,
                            if in_array {
                                "the text ends inside an array: `]` is missing"
                            } else {
                                "the text ends inside an object: `}` is missing"
                            },
                            at,
                        ));
                    }
                    Some(b',') => {
                        lexer.pos += 1;
                        lexer.skip_trivia()?;
                        match lexer.peek() {
                            Some(byte @ (b']' | b'}'))
                                if !matches!(closer_kind(&stack, byte), Closer::Stray) =>
                            {
                                lexer.repairs.add(Repair::TrailingCommas);
                                match close_at(lexer, &mut stack, byte) {
                                    Some(value) => value,
                                    None => continue,
                                }
                            }
                            _ => {
                                state = if in_array { State::Value } else { State::Key };
                                continue;
                            }
                        }
                    }
                    Some(byte @ (b']' | b'}'))
                        if !matches!(closer_kind(&stack, byte), Closer::Stray) =>
                    {
                        match close_at(lexer, &mut stack, byte) {
                            Some(value) => value,
                            None => continue,
                        }
                    }
                    Some(_) if in_array && lexer.starts_value() => {
                        lexer.repairs.add(Repair::MissingCommas);
                        state = State::Value;
                        continue;
                    }
                    Some(_) if !in_array && lexer.starts_key() => {
                        lexer.repairs.add(Repair::MissingCommas);
                        state = State::Key;
                        continue;
                    }
                    Some(_) => {
                        return Err(error(
                            ErrorKind::Parsing,
                            if in_array {
                                "expected `,` or `]`"
                            } else {
                                "expected `,` or `}`"
                            },
                            at,
                        )
                        .with_hint(Hint::CommaBetween));
                    }
                }
            }
        };
        let mut duplicate = None;
        match stack.last_mut() {
            None => return Ok(done),
            Some(Frame::Array(items)) => items.push(done),
            Some(Frame::Object { map, key }) => {
                if let Some(key) = key.take() {
                    if map.contains_key(&key) {
                        duplicate = Some(key.clone());
                    }
                    // The last value wins (docs/spec.md §7.3), in the first one's place.
                    map.insert(key, done);
                }
            }
        }
        if let Some(key) = duplicate {
            let object = pointer(&stack[..stack.len() - 1]);
            notes.duplicates.push(DuplicateKey { object, key });
        }
        state = State::AfterValue;
    }
}

/// How many alternatives an error quotes; the rest of the list is not read.
const MAX_CHOICES: usize = 8;

/// The error for the choices `"a" | "b" | ...` written where one value belongs (docs/spec.md
/// §3.4), `first` already read from the opening quote at `at` and the lexer at the
/// first `|`. A value cut off inside the list is that error instead (`truncated`).
fn alternatives(
    lexer: &mut Lexer<'_>,
    at: usize,
    first: String,
    stack: &[Frame],
) -> Result<RepairError, RepairError> {
    let mut choices = vec![first];
    while choices.len() < MAX_CHOICES && lexer.at_alternative() {
        lexer.pos += 1;
        lexer.skip_trivia()?;
        choices.push(lexer.string()?);
        lexer.skip_trivia()?;
    }
    let written: Vec<String> = choices
        .iter()
        .map(|c| {
            // A message quotes at most 40 characters of each choice.
            let shown = c
                .char_indices()
                .nth(40)
                .map_or(c.as_str(), |(i, _)| &c[..i]);
            Value::String(shown.to_string()).to_string()
        })
        .collect();
    let mut err = error(
        ErrorKind::Validation,
        &format!("`{}` lists the choices, not one value", written.join(" | ")),
        at,
    )
    .with_hint(Hint::OneOfTheValues);
    err.path = pointer(stack);
    err.choices = choices;
    Ok(err)
}

/// Handles the closer `byte` (which closes something open) with the innermost
/// container's members read. Returns the closed container's value, or `None` when the
/// reading goes on in an open container: an outer one (the closer is not consumed and
/// is seen again there) or the top-level object that closed too early.
fn close_at(lexer: &mut Lexer<'_>, stack: &mut Vec<Frame>, byte: u8) -> Option<Value> {
    // What comes next follows a closer, not the bare word that may have ended inside.
    lexer.after_word = false;
    match closer_kind(stack, byte) {
        Closer::Matches => {
            lexer.pos += 1;
            if stack.len() == 1
                && matches!(stack[0], Frame::Object { .. })
                && members_follow(lexer.text(), lexer.pos)
            {
                // `{"a": 1}, "b": 2}`: what follows is more of this object. Closing it
                // here would drop those members without a word.
                lexer.repairs.add(Repair::EarlyClose);
                return None;
            }
            stack.pop().map(Frame::into_value)
        }
        Closer::Outer | Closer::Stray => {
            // (The callers never pass a stray closer: it is an error there.) The
            // innermost container closes unconsumed; the caller puts it in its parent.
            lexer.repairs.add(Repair::MismatchedClosers);
            stack.pop().map(Frame::into_value)
        }
    }
}

/// Whether the text at `at` continues an object: a comma, then a key and a colon (or,
/// after a quoted key, the start of a value with the colon missing). Looks ahead over
/// at most one key, so a reading stays linear.
pub(crate) fn members_follow(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    let skip = |mut i: usize| {
        while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            i += 1;
        }
        i
    };
    let mut i = skip(at);
    if bytes.get(i) != Some(&b',') {
        return false;
    }
    i = skip(i + 1);
    match bytes.get(i) {
        Some(b'"') => {
            let mut j = i + 1;
            loop {
                match bytes.get(j) {
                    Some(b'\\') => j += 2,
                    Some(b'"') => break,
                    Some(b'\n') | None => return false,
                    Some(_) => j += 1,
                }
            }
            // A colon, or (a missing colon) the member's value: either way more of
            // the object follows, and the reader keeps it or says why it cannot.
            matches!(
                bytes.get(skip(j + 1)),
                Some(b':' | b'"' | b'{' | b'[' | b'0'..=b'9' | b'-')
            )
        }
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
            let mut j = i;
            while bytes
                .get(j)
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            {
                j += 1;
            }
            bytes.get(skip(j)) == Some(&b':')
        }
        _ => false,
    }
}

/// JSON Pointer of the value being read in the innermost of `frames`.
fn pointer(frames: &[Frame]) -> String {
    let mut path = String::new();
    for frame in frames {
        match frame {
            Frame::Array(items) => path = format!("{path}/{}", items.len()),
            Frame::Object { key, .. } => {
                path = pointer::join(&path, key.as_deref().unwrap_or_default());
            }
        }
    }
    path
}
