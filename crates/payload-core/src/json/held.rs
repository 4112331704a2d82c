//! A value sent inside a JSON string (docs/values.md, "A value sent inside a string"):
//! the one rule for every place a value may stand — a whole response, a value in a
//! fence or among prose, a marker's value.
//!
//! A model sometimes serializes its answer twice and sends one JSON string that holds
//! the JSON (`"{\"answer\": \"yes\"}"`). A strict JSON string whose content, trimmed, is
//! one whole object or array (its opening bracket closed by the last one) holds that
//! value; it is read as the value, once, with a `repaired` warning ([`UNWRAPPED`]). A
//! string holding a string that holds a value is an error ([`Held::Twice`]); a string
//! holding anything else is a string.

use super::Decoded;
use super::strict::read_string;
use crate::error::{ErrorKind, Location, PayloadError};
use crate::scan::value::value_end;
use serde_json::Value;

/// What the `repaired` warning says when a value was read out of a string.
pub(crate) const UNWRAPPED: &str = "read the JSON value sent inside a JSON string";

/// What the suggestion says to a model that sent a value inside a string.
pub(crate) const SEND_THE_VALUE: &str = "send the JSON value itself, not a string holding it";

/// What a JSON string holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Held {
    /// One whole JSON object or array: its text.
    Value(String),
    /// A JSON string that holds one: a value serialized more than twice.
    Twice,
}

/// What the string `content` (a JSON string's decoded text) holds, if it holds a value.
pub(crate) fn held(content: &str) -> Option<Held> {
    let trimmed = content.trim();
    if trimmed.starts_with(['{', '[']) {
        return (value_end(trimmed, 0) == Some(trimmed.len())).then(|| Held::Value(content.into()));
    }
    if trimmed.starts_with('"') {
        let (inner, len) = read_string(trimmed)?;
        if len == trimmed.len() && held(&inner).is_some() {
            return Some(Held::Twice);
        }
    }
    None
}

/// The strict JSON string that opens at byte `quote` of `text` and holds a value
/// ([`held`]): what it holds and the offset just past its closing quote.
pub(crate) fn string_at(text: &str, quote: usize) -> Option<(Held, usize)> {
    let (content, len) = read_string(&text[quote..])?;
    Some((held(&content)?, quote + len))
}

/// A value read where a value stands: a string there is read as the value it holds
/// ([`held`]), with [`UNWRAPPED`] first among its repairs; a string that holds a string
/// holding one, or holds no value, is a `parsing` error at `origin` (lines and columns
/// inside a string are not the text's, so errors inside it point at the string).
pub(crate) fn unwrap(decoded: Decoded, origin: Location) -> Result<Decoded, PayloadError> {
    let Value::String(content) = &decoded.value else {
        return Ok(decoded);
    };
    let message = match held(content) {
        Some(Held::Value(inner)) => {
            let mut read = super::decode(&inner, origin).map_err(|mut error| {
                error.details_mut().location = Some(origin);
                error
            })?;
            read.repairs.insert(0, UNWRAPPED.to_string());
            return Ok(read);
        }
        Some(Held::Twice) => "the value was sent as a JSON string inside a JSON string",
        None => "the value is a JSON string that holds no whole JSON object or array",
    };
    Err(PayloadError::new(ErrorKind::Parsing, "", message)
        .with_suggestion(SEND_THE_VALUE)
        .with_location(origin))
}

/// Where the string that may hold the value whose bracket is at `bracket` opens: the
/// unescaped `"` before it, whitespace between (`"{\"a\": 1}"`), looking back over at
/// most a few escaped quotes (`"\"{` for a value serialized more than twice). `None`
/// when no quote stands there, or it stands before `from`.
pub(crate) fn quote_before(bytes: &[u8], bracket: usize, from: usize) -> Option<usize> {
    let mut at = bracket;
    while at > from && bytes[at - 1].is_ascii_whitespace() {
        at -= 1;
    }
    for _ in 0..8 {
        if at <= from || bytes[at - 1] != b'"' {
            return None;
        }
        let quote = at - 1;
        let slashes = bytes[from..quote]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if slashes % 2 == 0 {
            return Some(quote);
        }
        at = quote - slashes;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_holds_one_whole_value_or_nothing() {
        assert_eq!(held("{\"a\": 1}"), Some(Held::Value("{\"a\": 1}".into())));
        assert_eq!(held(" [1, 2]\n"), Some(Held::Value(" [1, 2]\n".into())));
        for text in ["{\"a\": 1", "{a} and {b}", "see {name}s", "plain", ""] {
            assert_eq!(held(text), None, "{text:?}");
        }
        assert_eq!(held("\"{\\\"a\\\": 1}\""), Some(Held::Twice));
    }

    #[test]
    fn the_quote_before_a_bracket_is_unescaped() {
        let text = br#"x "{\"a\":1}""#;
        assert_eq!(quote_before(text, 3, 0), Some(2));
        assert_eq!(quote_before(text, 3, 3), None);
        let twice = br#""\"{"#;
        assert_eq!(quote_before(twice, 3, 0), Some(0));
        assert_eq!(quote_before(b"a {", 2, 0), None);
    }
}
