//! The structure: objects and arrays read with an explicit stack (never recursion, so a
//! deep input cannot overflow the call stack), missing and trailing commas decided from
//! the next token alone.

use super::kinds::Repair;
use super::lexer::{Lexer, error};
use super::{ErrorKind, Lenient, RepairError};
use crate::json::MAX_DEPTH;
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
    if lexer.at("```") {
        lexer.repairs.add(Repair::CodeFence);
        lexer.pos += 3;
        lexer.skip_fence_tag();
    }
    let value = parse_value(&mut lexer)?;
    lexer.skip_trivia()?;
    if lexer.at("```") {
        lexer.repairs.add(Repair::CodeFence);
        lexer.pos += 3;
        lexer.skip_whitespace();
    }
    if !lexer.at_end() {
        return Err(error(
            ErrorKind::Parsing,
            "unexpected text after the value",
            lexer.pos,
        ));
    }
    Ok(Lenient {
        value,
        repairs: lexer.repairs.phrases(),
    })
}

/// Reads one value, however deeply nested, with an explicit stack.
fn parse_value(lexer: &mut Lexer<'_>) -> Result<Value, RepairError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut state = State::Value;
    loop {
        lexer.skip_trivia()?;
        let at = lexer.pos;
        // A finished value (scalar or closed container), to be put in its parent.
        let done = match state {
            State::Value => match lexer.peek() {
                Some(open @ (b'[' | b'{')) => {
                    // The same limit as serde_json on the strict path, which counts
                    // the container being opened: at most `MAX_DEPTH - 1` levels.
                    if stack.len() + 1 >= MAX_DEPTH {
                        return Err(error(
                            ErrorKind::Parsing,
                            &format!("the value nests deeper than {MAX_DEPTH} levels"),
                            at,
                        ));
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
                _ => lexer.scalar()?,
            },
            State::ArrayStart => {
                if lexer.peek() == Some(b']') {
                    lexer.pos += 1;
                    close(&mut stack)
                } else {
                    state = State::Value;
                    continue;
                }
            }
            State::ObjectStart => {
                if lexer.peek() == Some(b'}') {
                    lexer.pos += 1;
                    close(&mut stack)
                } else {
                    state = State::Key;
                    continue;
                }
            }
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
                        ));
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
                let closer = if in_array { b']' } else { b'}' };
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
                        if lexer.peek() == Some(closer) {
                            lexer.repairs.add(Repair::TrailingCommas);
                            lexer.pos += 1;
                            close(&mut stack)
                        } else {
                            state = if in_array { State::Value } else { State::Key };
                            continue;
                        }
                    }
                    Some(b) if b == closer => {
                        lexer.pos += 1;
                        close(&mut stack)
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
                        ));
                    }
                }
            }
        };
        match stack.last_mut() {
            None => return Ok(done),
            Some(Frame::Array(items)) => items.push(done),
            Some(Frame::Object { map, key }) => {
                if let Some(key) = key.take() {
                    map.insert(key, done);
                }
            }
        }
        state = State::AfterValue;
    }
}

/// Pops the innermost container (the caller has just read its closer).
fn close(stack: &mut Vec<Frame>) -> Value {
    stack.pop().map_or(Value::Null, Frame::into_value)
}
