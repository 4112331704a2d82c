//! Integer `format`s (`uint64`, `int32`, ...) as the `minimum`/`maximum` they stand for.
//!
//! schemars writes a Rust integer type as `{"type": "integer", "format": "uint8"}`;
//! strict mode knows no integer formats, but it does take bounds, which say the same
//! thing to any validator. The bounds a schema already states are kept when tighter.

use crate::formats::integer_format;
use serde_json::{Map, Number, Value};
use std::cmp::Ordering;

/// The bounds an integer format stands for, or `None` for a format that is not an
/// integer width. 128-bit formats have bounds no JSON number here can hold exactly:
/// `Some(None)`.
pub(super) fn bounds(format: &str) -> Option<Option<(Number, Number)>> {
    let format = integer_format(format)?;
    if format.bits > 64 {
        return Some(None);
    }
    // Within 64 bits, every bound is an `i64` or a `u64`.
    let low = i64::try_from(format.min).ok()?;
    let high = u64::try_from(format.max).ok()?;
    Some(Some((Number::from(low), Number::from(high))))
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
