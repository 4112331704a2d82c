//! The strict path: serde_json's parser, building the value with a visitor of ours.
//!
//! serde_json's own `Value` would hide two things a caller must report: a key written
//! twice (its map keeps the last value without a word) and an integer too long for 64
//! bits (read as the nearest float, so `1` and 300 zeros becomes `1e300`). This visitor
//! builds the same value and stops at either, so the lenient reader, which notes both,
//! reads the text instead. It also holds the depth limit: serde_json's recursion limit
//! counts one level differently, and the limit is one setting ([`MAX_DEPTH`] levels
//! read, the next refused) on every path. serde_json's own limit stays on (this crate
//! never asks the host's serde_json for `unbounded_depth`): a value it refuses for
//! depth is read by the lenient reader, which holds the same limit.
//!
//! Floats are read as the nearest float to their literal whatever serde_json's
//! features are (`float_roundtrip` is the host app's to choose): the visitor keeps the
//! floats serde_json gave in text order, and each is checked against the literal it
//! came from (`super::precision::float_literals`).

use crate::limits::MAX_DEPTH;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// Reads `text` as strict JSON. An error means the lenient reader must read it: the
/// text is not strict JSON, nests too deep, repeats a key, holds an integer serde_json
/// cannot keep exactly, or holds a float literal whose digits a float cannot keep
/// (`1e-400`, `0.1000000000000000000001`: see [`super::precision`]).
pub(super) fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let Strict { value, floats } = de::Deserialize::deserialize(&mut deserializer)?;
    deserializer.end()?;
    exact(value, floats, text)
}

/// Reads the value that opens at the start of `text` (a `{` or `[`) and stops after it,
/// whatever follows: the value and the length of its text, or `None` wherever `parse` (the strict reader)
/// would refuse that text. What `parse` of the value's text alone returns, in one read
/// that also says where the value ends (the segmenter's strict read, `crate::scan::segmenter`).
pub fn read_prefix(text: &str) -> Option<(Value, usize)> {
    if !matches!(text.as_bytes().first(), Some(b'{' | b'[')) {
        return None;
    }
    let deserializer = serde_json::Deserializer::from_str(text);
    let mut values = deserializer.into_iter::<Strict>();
    // A bracketed value delimits itself: the stream stops right after its closer.
    let Strict { value, floats } = values.next()?.ok()?;
    let len = values.byte_offset();
    exact(value, floats, &text[..len])
        .ok()
        .map(|value| (value, len))
}

/// Reads the strict JSON string that opens at the start of `text` (a `"`) and stops
/// after its closing quote: its content and the length of its text, or `None` when
/// strict JSON refuses it (a raw line break, an unknown escape) or the text ends first.
pub(crate) fn read_string(text: &str) -> Option<(String, usize)> {
    if !text.starts_with('"') {
        return None;
    }
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<String>();
    let content = values.next()?.ok()?;
    Some((content, values.byte_offset()))
}

/// `value`, read from `text`, unless it held a float (`floats`, as serde_json read
/// them, in text order) whose digits were lost; each float is the nearest to its
/// literal.
fn exact(mut value: Value, floats: Vec<f64>, text: &str) -> Result<Value, serde_json::Error> {
    // The visitor sees a float, never its digits: only when there was a float is the
    // text scanned for the literals (a second pass, skipped by the common payload that
    // has no float at all).
    if floats.is_empty() {
        return Ok(value);
    }
    let refuse = |why: &str| Err(de::Error::custom(why));
    let mut read = floats.iter();
    // Each float as serde_json read it, beside the float nearest to its literal.
    let mut pairs: Vec<(u64, u64)> = Vec::with_capacity(floats.len());
    for (_, literal) in super::precision::float_literals(text) {
        let Some(&got) = read.next() else {
            return refuse("the floats read do not match the text");
        };
        if !super::precision::literal_held(literal) {
            return refuse("a number cannot be held to the digits written");
        }
        let Some(nearest) = super::precision::nearest(literal) else {
            return refuse("a number cannot be held to the digits written");
        };
        pairs.push((got.to_bits(), nearest.to_bits()));
    }
    if read.next().is_some() {
        return refuse("the floats read do not match the text");
    }
    if pairs.iter().all(|(got, nearest)| got == nearest) {
        return Ok(value);
    }
    // A float is put right by what serde_json read, so each reading must stand for
    // one float only; where it stands for two, which is which is for the lenient
    // reader to say.
    pairs.sort_unstable();
    pairs.dedup();
    if pairs.windows(2).any(|two| two[0].0 == two[1].0) {
        return refuse("two numbers were read as one");
    }
    pairs.retain(|(got, nearest)| got != nearest);
    correct(&mut value, &pairs);
    Ok(value)
}

/// Puts the nearest float in place of each float serde_json read off by a unit
/// (`off`: its reading and the nearest float, as bits, sorted by reading).
fn correct(value: &mut Value, off: &[(u64, u64)]) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(number) if number.is_f64() => {
                let Some(read) = number.as_f64() else {
                    continue;
                };
                if let Ok(at) = off.binary_search_by_key(&read.to_bits(), |(got, _)| *got) {
                    if let Some(fixed) = serde_json::Number::from_f64(f64::from_bits(off[at].1)) {
                        *number = fixed;
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(members) => stack.extend(members.values_mut()),
            _ => {}
        }
    }
}

/// A value read by [`Level`] from the top, and the floats serde_json read in it, in
/// text order.
struct Strict {
    value: Value,
    floats: Vec<f64>,
}

impl<'de> de::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        let floats = RefCell::new(Vec::new());
        let value = Level {
            depth: 0,
            floats: &floats,
        }
        .deserialize(deserializer)?;
        Ok(Strict {
            value,
            floats: floats.into_inner(),
        })
    }
}

/// A value at this many containers deep; `floats` gathers each float as read.
#[derive(Clone, Copy)]
struct Level<'f> {
    depth: usize,
    floats: &'f RefCell<Vec<f64>>,
}

impl<'de> DeserializeSeed<'de> for Level<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'f> Level<'f> {
    /// The level of the values inside a container opened here, or the depth error.
    fn inner<E: de::Error>(self) -> Result<Level<'f>, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(format_args!(
                "the value nests deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(Level {
            depth: self.depth + 1,
            floats: self.floats,
        })
    }
}

/// The magnitude from which a float with no fraction may be an integer literal that
/// did not fit in 64 bits (`u64::MAX` is just below 2^64; `i64::MIN` is -2^63).
const INTEGER_RANGE: f64 = 9_223_372_036_854_775_808.0;

impl<'de> Visitor<'de> for Level<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        if v.fract() == 0.0 && v.abs() >= INTEGER_RANGE {
            // Perhaps `1e19`, perhaps a 20-digit integer: only the text can tell, and
            // the lenient reader sees the text.
            return Err(E::custom("an integer may be too long to hold exactly"));
        }
        self.floats.borrow_mut().push(v);
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        // The size hint is what was read, never what the text claims: no early
        // allocation a hostile text could inflate.
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(inner)?;
            if members.insert(key, value).is_some() {
                return Err(de::Error::custom("a key appears twice"));
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nest(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, -2, 3.5, true, null, "x"], "b": {}}"#,
            "18446744073709551615",
            "-9223372036854775808",
            "1.5e3",
            "-0",
        ] {
            let expected: Value = serde_json::from_str(text).unwrap();
            assert_eq!(parse(text).unwrap(), expected, "{text}");
        }
    }

    #[test]
    fn the_depth_limit_is_exact() {
        // serde_json's own limit (on whatever the host's features) stops the strict
        // read a level early; the lenient reader reads that level, with no repair.
        let deepest =
            super::super::decode(&nest(MAX_DEPTH), crate::error::Location::of_offset("", 0));
        assert!(deepest.is_ok_and(|decoded| decoded.repairs.is_empty()));
        assert!(
            super::super::decode(
                &nest(MAX_DEPTH + 1),
                crate::error::Location::of_offset("", 0)
            )
            .is_err()
        );
        assert!(parse(&nest(MAX_DEPTH + 1)).is_err());
    }

    /// Literals serde_json reads a unit off without its `float_roundtrip` feature, which
    /// the host app, not this crate, decides: each is read as the nearest float.
    #[test]
    fn floats_are_the_nearest_whatever_serde_jsons_features() {
        for literal in [
            "0.1",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "9007199254740993.0",
            "1.7976931348623157e308",
            "4.4501477170144023e-308",
            "0.3",
            "123456.789012345",
            "5e-324",
            // serde_json without `float_roundtrip` reads these a unit off (and they
            // are not held to their digits, so no reader takes them silently).
            "4411678715303708e296",
            "3704906767012002e293",
            "-0",
            "-0.0",
        ] {
            let nearest: f64 = literal.parse().unwrap();
            let floats_of = |value: &Value| {
                let mut floats = Vec::new();
                let mut stack = vec![value];
                while let Some(v) = stack.pop() {
                    match v {
                        Value::Number(n) => floats.push(n.as_f64().unwrap().to_bits()),
                        Value::Array(items) => stack.extend(items),
                        Value::Object(members) => stack.extend(members.values()),
                        _ => {}
                    }
                }
                floats
            };
            for text in [
                literal.to_string(),
                format!("[{literal}, {literal}]"),
                format!(r#"{{"a": "1.5", "b": {literal}}}"#),
            ] {
                // The strict reader, where it reads the text, and the reader every
                // path uses (strict, else lenient) give the nearest float.
                let read = [
                    parse(&text).ok(),
                    super::super::decode(&text, crate::error::Location::of_offset("", 0))
                        .ok()
                        .map(|d| d.value),
                ];
                for value in read.iter().flatten() {
                    let floats = floats_of(value);
                    assert!(!floats.is_empty(), "{text}");
                    assert!(
                        floats.iter().all(|f| *f == nearest.to_bits()),
                        "{text}: {value}"
                    );
                }
                // A literal a float holds is always read (its imprecise neighbours are
                // the precision rule's to note or refuse).
                assert!(
                    read[1].is_some() || !super::super::precision::literal_held(literal),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn duplicate_keys_and_long_integers_go_to_the_lenient_reader() {
        assert!(parse(r#"{"a": 1, "a": 2}"#).is_err());
        assert!(parse(&format!("[1{}]", "0".repeat(25))).is_err());
        assert!(parse("[1e19]").is_err(), "only the text can tell");
        assert!(parse("[1e18]").is_ok());
    }

    /// An object of `count` members `k0`, `k1`, …, holding small values (an object
    /// inside every third, so that nested objects share the held members' order).
    fn object(count: usize) -> String {
        let members: Vec<String> = (0..count)
            .map(|i| match i % 3 {
                0 => format!(r#""k{i}":{{"in":{i},"k{i}":[{i}]}}"#),
                1 => format!(r#""k{i}":"v{i}""#),
                _ => format!(r#""k{i}":{i}"#),
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }

    #[test]
    fn members_keep_their_order_at_every_size() {
        for count in 0..20 {
            let text = object(count);
            let value = parse(&text).unwrap();
            assert_eq!(serde_json::to_string(&value).unwrap(), text);
            assert_eq!(value, serde_json::from_str::<Value>(&text).unwrap());
        }
    }

    #[test]
    fn a_duplicate_key_is_refused_where_its_value_ends_at_every_place() {
        for count in 1..20 {
            for twice in 0..count {
                let mut text = object(count);
                text.pop();
                let duplicate = format!(r#","k{twice}":true"#);
                text.push_str(&duplicate);
                // Cut right after the duplicate: the error is the duplicate, not the
                // end of the text (the repair's hint tells the two apart).
                let error = parse(&text).unwrap_err();
                assert!(!error.is_eof(), "{count} {twice}: {error}");
                assert!(
                    error.to_string().starts_with("a key appears twice"),
                    "{error}"
                );
                assert_eq!(error.column(), text.len(), "{count} {twice}: {error}");
            }
        }
    }

    #[test]
    fn floats_whose_digits_are_lost_go_to_the_lenient_reader() {
        assert!(parse("[0.1, 2.5e-3, -0.0]").is_ok());
        assert!(parse("[1e-400]").is_err());
        assert!(parse(r#"{"a": "1e-400", "b": 123456789012345678901234567890.5}"#).is_err());
        assert!(
            parse(r#"{"a": "1e-400"}"#).is_ok(),
            "a string is not a number"
        );
    }
}
