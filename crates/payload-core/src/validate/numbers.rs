//! Integer-valued numbers (docs/spec.md §7.2).
//!
//! JSON Schema calls `12.0` and `1e2` integers, but serde decodes neither into a `u32`:
//! it sees a float. So before a value is decoded, every integer-valued float that sits
//! where the schema wants an integer is rewritten as that integer (the schemas that
//! apply are picked as the validator picks them, [`Applies`]). Whole-response mode
//! reports each rewrite as a `coerced` warning (docs/spec.md §7.4); marker mode keeps them
//! silent, since the value did not change.
//!
//! A number is never rounded on the way. Where an integer is wanted:
//!
//! - a float larger than 2^53 in magnitude is a `validation` error at its path: beyond
//!   that every float is integer-valued, and `9007199254740993.0` has already been
//!   read as `...992`, so its digits cannot be trusted (a 300-digit integer and `1e20`
//!   are such floats; the model is asked for plain digits within the field's range);
//! - an integer outside the range of the field's format (`uint32`, `int64`, ...) is a
//!   `validation` error at its path, where the schema does not state the bound itself
//!   (schemars states it for 8- and 16-bit types, and the validator reports those).
//!
//! Floats with a fraction are left alone: the validator reports them as not integers.
//!
//! Where a 32-bit float is wanted (`"format": "float"`, an `f32` field), a number the
//! field cannot hold to its digits is a `validation` error at its path: serde would
//! turn `16777217` into `16777216`, `0.123456789` into `0.12345679` and `1e39` into
//! infinity without a word. The rule is the reader's (`crate::json::precision`): the
//! 32-bit float must print back as the same decimal as the number read.

use crate::caps::Capped;
use crate::error::PayloadError;
use crate::warning::{Warning, WarningKind};
use payload_schema::formats::integer_format;
use serde_json::{Number, Value};

/// The largest magnitude up to which every integer is exactly a float (2^53).
const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// The integer rule, applied to each number the walk (`crate::validate::walk`) meets:
/// numbers no integer field can hold are pushed to `errors`; each rewrite is pushed to
/// `rewrites` as a `coerced` warning.
pub(crate) struct Integers<'w> {
    pub(crate) errors: &'w mut Capped<PayloadError>,
    pub(crate) rewrites: &'w mut Capped<Warning>,
}

impl Integers<'_> {
    /// A number at `path` where `schema` wants an integer.
    pub(crate) fn integer(&mut self, value: &mut Value, schema: &Value, path: &str) {
        let Value::Number(number) = value else { return };
        let range = format_range(schema);
        if number.is_f64() {
            let Some(float) = number.as_f64() else { return };
            if !float.is_finite() || float.fract() != 0.0 {
                return;
            }
            if float.abs() > EXACT_LIMIT {
                let outside = range.filter(|&(low, high)| {
                    float < low as f64 || float > high as f64 || !within(schema, float)
                });
                self.report(|| match outside {
                    Some((low, high)) => out_of_range(path, number, low, high),
                    None => inexact(path, number, range),
                });
                return;
            }
            // Exact: |float| <= 2^53 and it has no fraction.
            let integer = float as i64;
            if self.rewrites.is_full() {
                self.rewrites.count_omitted(1);
            } else {
                self.rewrites.push(Warning::new(
                    WarningKind::Coerced,
                    format!("{}: {number} is the integer {integer}", at(path)),
                ));
            }
            *number = Number::from(integer);
        }
        let Some((low, high)) = range else { return };
        let integer = number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from));
        let Some(integer) = integer else { return };
        // A bound the schema states is the validator's to report.
        let checks_low =
            schema.get("minimum").is_none() && schema.get("exclusiveMinimum").is_none();
        let checks_high =
            schema.get("maximum").is_none() && schema.get("exclusiveMaximum").is_none();
        if (checks_low && integer < low) || (checks_high && integer > high) {
            self.report(|| out_of_range(path, number, low, high));
        }
    }

    /// A number at `path` where the schema wants a 32-bit float.
    pub(crate) fn single_precision(&mut self, value: &Value, path: &str) {
        let Value::Number(number) = value else { return };
        let Some(wide) = number.as_f64() else { return };
        if fits_single(wide) {
            return;
        }
        let narrow = wide as f32;
        self.report(|| {
            PayloadError::validation(
                path.to_string(),
                format!(
                    "{number} cannot be held by this field, a 32-bit float: it would be read as {narrow}"
                ),
            )
            .with_received(value.clone())
            .with_expected("a number with at most 7 significant digits, at most about 3.4e38 in magnitude")
            .with_suggestion("write the number with at most 7 significant digits")
        });
    }

    /// Keeps the error `build` makes, or only counts it once the report is full.
    fn report(&mut self, build: impl FnOnce() -> PayloadError) {
        if self.errors.is_full() {
            self.errors.count_omitted(1);
        } else {
            self.errors.push(build());
        }
    }
}

/// Whether a 32-bit float holds `wide` to its digits: the 32-bit float, printed as its
/// shortest decimal and read back, is `wide` again. Printed on the stack: the
/// compiled plan (`crate::validate::plan`) asks this of every such number.
pub(crate) fn fits_single(wide: f64) -> bool {
    use std::io::Write;
    let narrow = wide as f32;
    if !narrow.is_finite() {
        return false;
    }
    // The longest shortest form of an `f32` is 15 bytes (`-1.1754942e-38`).
    let mut buffer = [0u8; 32];
    let mut free = &mut buffer[..];
    if write!(free, "{narrow:e}").is_err() {
        return false;
    }
    let written = 32 - free.len();
    std::str::from_utf8(&buffer[..written])
        .ok()
        .and_then(|printed| printed.parse::<f64>().ok())
        == Some(wide)
}

fn at(path: &str) -> &str {
    if path.is_empty() { "the value" } else { path }
}

fn out_of_range(path: &str, number: &Number, low: i128, high: i128) -> PayloadError {
    PayloadError::validation(
        path.to_string(),
        format!("{number} is out of range for this field"),
    )
    .with_received(Value::Number(number.clone()))
    .with_expected(format!("an integer between {low} and {high}"))
    .with_suggestion(format!("write a whole number between {low} and {high}"))
}

fn inexact(path: &str, number: &Number, range: Option<(i128, i128)>) -> PayloadError {
    let expected = match range {
        Some((low, high)) => format!("an integer between {low} and {high}, in digits"),
        None => "an integer in digits".to_string(),
    };
    PayloadError::validation(
            path.to_string(),
            format!("{number} cannot be held exactly: past 2^53 a number with a decimal point or exponent may already be rounded"),
        )
        .with_received(Value::Number(number.clone()))
        .with_expected(expected)
        .with_suggestion("write the whole number in digits, without a decimal point or exponent")
}

/// Whether `float` satisfies the bounds the schema states (`minimum` / `maximum`).
fn within(schema: &Value, float: f64) -> bool {
    let low = schema.get("minimum").and_then(Value::as_f64);
    let high = schema.get("maximum").and_then(Value::as_f64);
    low.is_none_or(|low| float >= low) && high.is_none_or(|high| float <= high)
}

/// The range of the integer type a schemars `format` names, up to 64 bits (a wider
/// type's range is not stated: no JSON number here reaches its ends).
fn format_range(schema: &Value) -> Option<(i128, i128)> {
    let format = integer_format(schema.get("format")?.as_str()?)?;
    if format.bits > 64 {
        return None;
    }
    format.range_i128()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "row_id": {"type": "integer", "format": "uint32", "minimum": 0},
                "big": {"type": "integer", "format": "uint64", "minimum": 0},
                "small": {"type": "integer", "format": "int8", "minimum": -128, "maximum": 127},
                "score": {"type": "number"},
                "level": {"type": ["number", "null"], "format": "float"},
                "any": true,
                "ids": {"type": "array", "items": {"type": "integer", "format": "int64"}}
            }
        })
    }

    fn run(mut value: Value) -> (Value, Vec<PayloadError>, Vec<Warning>) {
        let mut errors = Capped::errors();
        let mut rewrites = Capped::warnings();
        let mut warnings = Capped::warnings();
        crate::validate::walk::walk(
            &mut value,
            &schema(),
            &mut errors,
            &mut rewrites,
            &mut warnings,
            100,
        );
        (value, errors.finish(), rewrites.finish())
    }

    #[test]
    fn integer_valued_floats_become_integers_where_integers_are_wanted() {
        let (value, errors, rewrites) = run(json!({"row_id": 12.0, "big": 1e2, "score": 3.0,
                                                   "any": 4.0, "ids": [1.0, -2.0, 3]}));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            value,
            json!({"row_id": 12, "big": 100, "score": 3.0, "any": 4.0, "ids": [1, -2, 3]})
        );
        assert!(value["row_id"].is_u64() && value["score"].is_f64() && value["any"].is_f64());
        assert_eq!(rewrites.len(), 4);
        assert_eq!(rewrites[0].message, "/row_id: 12.0 is the integer 12");
        assert_eq!(rewrites[3].message, "/ids/1: -2.0 is the integer -2");
    }

    #[test]
    fn fractions_are_left_to_the_validator() {
        let (value, errors, rewrites) = run(json!({"row_id": 12.5}));
        assert!(errors.is_empty() && rewrites.is_empty());
        assert_eq!(value["row_id"], 12.5);
    }

    #[test]
    fn numbers_a_field_cannot_hold_exactly_are_errors_at_their_path() {
        let (_, errors, _) = run(json!({"big": 1e20, "row_id": 5_000_000_000u64,
                                        "ids": [1e17, 1e300]}));
        let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
        assert_eq!(
            paths,
            ["/big", "/row_id", "/ids/0", "/ids/1"],
            "{errors:#?}"
        );
        assert!(
            errors[0].message().contains("out of range"),
            "{}",
            errors[0].message()
        );
        assert_eq!(
            errors[1].expected(),
            Some("an integer between 0 and 4294967295")
        );
        assert!(errors[2].message().contains("cannot be held exactly"));
        assert!(errors[3].message().contains("out of range"));
    }

    #[test]
    fn a_number_a_32_bit_float_field_cannot_hold_is_an_error_at_its_path() {
        for held in [
            json!(0.1),
            json!(-2.5e-3),
            json!(16777216),
            json!(3.4e38),
            json!(0),
        ] {
            let (_, errors, _) = run(json!({"level": held.clone()}));
            assert!(errors.is_empty(), "{held}: {errors:?}");
        }
        for lost in [
            json!(16777217),
            json!(0.123456789),
            json!(1e39),
            json!(1e-50),
        ] {
            let (value, errors, _) = run(json!({"level": lost.clone(), "score": 0.123456789}));
            assert_eq!(errors.len(), 1, "{lost}: {errors:?}");
            assert_eq!(errors[0].path(), "/level");
            assert!(errors[0].suggestion().is_some());
            assert_eq!(value["level"], lost, "the value is left as read");
        }
    }

    #[test]
    fn stated_bounds_are_the_validators() {
        let (value, errors, _) = run(json!({"small": 300.0}));
        assert!(errors.is_empty(), "the schema's maximum reports it");
        assert_eq!(value["small"], 300);
    }
}
