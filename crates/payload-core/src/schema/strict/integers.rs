//! Integer `format`s (`uint64`, `int32`, ...) as the `minimum`/`maximum` they stand for.
//!
//! schemars writes a Rust integer type as `{"type": "integer", "format": "uint8"}`;
//! strict mode knows no integer formats, but it does take bounds, which say the same
//! thing to any validator. The bounds a schema already states are kept when tighter.

use serde_json::{Map, Number, Value};
use std::cmp::Ordering;

/// The bounds an integer format stands for, or `None` for a format that is not an
/// integer width. 128-bit formats have bounds no JSON number here can hold exactly:
/// `Some(None)`.
pub(super) fn bounds(format: &str) -> Option<Option<(Number, Number)>> {
    let signed = |low: i64, high: i64| Some(Some((Number::from(low), Number::from(high))));
    let unsigned = |high: u64| Some(Some((Number::from(0u64), Number::from(high))));
    match format {
        "int8" => signed(i8::MIN.into(), i8::MAX.into()),
        "int16" => signed(i16::MIN.into(), i16::MAX.into()),
        "int32" => signed(i32::MIN.into(), i32::MAX.into()),
        "int64" => signed(i64::MIN, i64::MAX),
        // `isize`/`usize`: the widths of this platform, which is the one that decodes.
        "int" => signed(isize::MIN as i64, isize::MAX as i64),
        "uint8" => unsigned(u8::MAX.into()),
        "uint16" => unsigned(u16::MAX.into()),
        "uint32" => unsigned(u32::MAX.into()),
        "uint64" => unsigned(u64::MAX),
        "uint" => unsigned(usize::MAX as u64),
        "int128" | "uint128" => Some(None),
        _ => None,
    }
}

/// Writes `low` and `high` as `minimum` and `maximum` of `map`, keeping a bound the
/// schema already states when it is tighter.
pub(super) fn apply(map: &mut Map<String, Value>, (low, high): (Number, Number)) {
    tighten(map, "minimum", low, Ordering::Greater);
    tighten(map, "maximum", high, Ordering::Less);
}

/// Sets `map[key]` to `bound` unless the schema states a number there that `bound` is
/// not `tighter` than (`Greater` for a lower bound, `Less` for an upper one).
fn tighten(map: &mut Map<String, Value>, key: &str, bound: Number, tighter: Ordering) {
    let replace = match map.get(key).and_then(Value::as_number) {
        None => true,
        Some(existing) => compare(&bound, existing) == Some(tighter),
    };
    if replace {
        map.insert(key.to_string(), Value::Number(bound));
    }
}

/// Orders two numbers: exactly when both are integers (`u64::MAX` is not exact as an
/// `f64`), as floats otherwise.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (exact(a), exact(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn exact(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rewritten(schema: Value, format: &str) -> Value {
        let Value::Object(mut map) = schema else {
            unreachable!()
        };
        apply(&mut map, bounds(format).unwrap().unwrap());
        Value::Object(map)
    }

    #[test]
    fn a_format_becomes_its_range() {
        assert_eq!(
            rewritten(json!({"type": "integer"}), "uint64"),
            json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})
        );
        assert_eq!(
            rewritten(json!({"type": "integer"}), "int8"),
            json!({"type": "integer", "minimum": -128, "maximum": 127})
        );
    }

    #[test]
    fn tighter_stated_bounds_are_kept() {
        assert_eq!(
            rewritten(json!({"minimum": 1, "maximum": 5}), "uint64"),
            json!({"minimum": 1, "maximum": 5})
        );
        assert_eq!(
            rewritten(json!({"minimum": -1000, "maximum": 0.5}), "uint8"),
            json!({"minimum": 0, "maximum": 0.5})
        );
    }

    #[test]
    fn wide_and_unknown_formats() {
        assert_eq!(bounds("uint128"), Some(None));
        assert_eq!(bounds("double"), None);
    }
}
