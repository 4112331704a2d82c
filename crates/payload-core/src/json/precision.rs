//! Whether a number literal survives being read as a 64-bit float (docs/spec.md §7.2, issue
//! "values change without a word").
//!
//! serde_json (and every reader here) holds a number with a fraction or an exponent as
//! an `f64`. Most literals are held exactly *as written*: `0.1` is not exactly one
//! tenth in binary, but the float read from it prints back as `0.1`, so nothing the
//! model wrote is lost. Some literals are not: `1e-400` is read as `0`, and
//! `123456789012345678901234567890.5` as `1.2345678901234568e29`.
//!
//! **The rule.** A literal is held when the shortest decimal that reads back as the
//! same float (what the float prints as) has the same value as the literal, both
//! normalized: sign, significant digits without leading or trailing zeros, and the
//! position of the decimal point. So `0.10`, `1.0e-1` and `0.1` are all held, and so
//! is `-0.0`; `0.1000000000000000000001` (digits past what a float keeps), `1e-400`
//! (underflow to zero) and `4.9e-324` (a subnormal that prints as `5e-324`) are not.
//!
//! The check is linear in the literal's length: the digits are scanned once, a
//! literal with more than 17 significant digits is refused without converting it (no
//! float prints with more), and the exponent is read with saturation, so a
//! million-digit mantissa or exponent costs one pass.

/// The most significant digits the shortest form of any `f64` has.
const MAX_SHORTEST_DIGITS: usize = 17;
/// Up to this many significant digits, a decimal in the normal range is always held
/// (`f64` keeps 15 decimal digits exactly: `f64::DIGITS`).
const SAFE_DIGITS: usize = f64::DIGITS as usize;
/// Exponents saturate here: far past any float's range, far inside `i64`.
const EXPONENT_CAP: i64 = 1 << 40;

/// Whether `text` is made only of the characters a number literal may have (digits,
/// sign, point, exponent), and is not empty: the cheap test every reader of a number
/// written as text (whole-response formats, coercion) runs before a parser sees it, so
/// that `inf`, `NaN`, `0x1F` or space around the digits are never read as numbers.
pub(crate) fn number_characters_only(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
}

/// A decimal literal, normalized: `0.d1 d2 ... dn × 10^point`, with `digits` holding
/// `d1 ... dn` (no leading or trailing zeros; empty for zero).
struct Decimal<'a> {
    negative: bool,
    /// The significant digits, in runs as written (the integer part's and the
    /// fraction's); only their concatenation matters.
    runs: [&'a [u8]; 2],
    /// How many significant digits there are.
    len: usize,
    /// Where the decimal point sits relative to the first significant digit.
    point: i64,
}

impl<'a> Decimal<'a> {
    /// Reads `text` as `[+-]? digits [. digits] [(e|E) [+-]? digits]` (either digit
    /// run may be empty, not both): the spellings JSON and people use. `None` for
    /// anything else.
    fn read(text: &'a str) -> Option<Self> {
        let bytes = text.as_bytes();
        let mut i = 0;
        let negative = match bytes.first() {
            Some(b'-') => {
                i = 1;
                true
            }
            Some(b'+') => {
                i = 1;
                false
            }
            _ => false,
        };
        let int_start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let int = &bytes[int_start..i];
        let mut frac: &[u8] = &[];
        if bytes.get(i) == Some(&b'.') {
            let start = i + 1;
            i = start;
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            frac = &bytes[start..i];
        }
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let mut exponent: i64 = 0;
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            let sign = match bytes.get(i) {
                Some(b'-') => {
                    i += 1;
                    -1
                }
                Some(b'+') => {
                    i += 1;
                    1
                }
                _ => 1,
            };
            let start = i;
            while let Some(digit) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
                exponent = (exponent * 10 + i64::from(digit - b'0')).min(EXPONENT_CAP);
                i += 1;
            }
            if i == start {
                return None;
            }
            exponent *= sign;
        }
        if i != bytes.len() {
            return None;
        }
        // Leading zeros of the integer part, then (when it is all zeros) of the
        // fraction, are not significant; trailing zeros of the last run are not either.
        let int_lead = int.iter().take_while(|&&b| b == b'0').count();
        let int = &int[int_lead..];
        let (runs, point_shift) = if int.is_empty() {
            let frac_lead = frac.iter().take_while(|&&b| b == b'0').count();
            ([&frac[frac_lead..], &[][..]], -(frac_lead as i64))
        } else {
            ([int, frac], int.len() as i64)
        };
        let runs = trim_trailing_zeros(runs);
        let len = runs[0].len() + runs[1].len();
        let point = exponent.saturating_add(point_shift.clamp(-EXPONENT_CAP, EXPONENT_CAP));
        Some(Decimal {
            negative,
            runs,
            len,
            point,
        })
    }

    fn is_zero(&self) -> bool {
        self.len == 0
    }

    fn digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.runs[0].iter().chain(self.runs[1]).copied()
    }
}

/// The runs without the zeros that end the last non-empty one (and, when that run is
/// all zeros, the ones before it).
fn trim_trailing_zeros(runs: [&[u8]; 2]) -> [&[u8]; 2] {
    let trim =
        |run: &[u8]| -> usize { run.len() - run.iter().rev().take_while(|&&b| b == b'0').count() };
    let second = trim(runs[1]);
    if second > 0 {
        return [runs[0], &runs[1][..second]];
    }
    [&runs[0][..trim(runs[0])], &[][..]]
}

/// Whether `value`, the float read from `literal`, holds the number `literal` spells
/// to the digits written (the module's rule). A literal that is not a decimal number at
/// all is not judged here (`true`): whoever read it reports that.
pub(crate) fn holds(literal: &str, value: f64) -> bool {
    match Decimal::read(literal) {
        Some(written) => held(&written, || value),
        None => true,
    }
}

/// Whether `literal` is held by the float read from it, reading it only when its
/// digits alone do not decide (the scan's question).
pub(crate) fn literal_held(literal: &str) -> bool {
    match Decimal::read(literal) {
        Some(written) => held(&written, || literal.parse::<f64>().unwrap_or(f64::NAN)),
        None => true,
    }
}

/// The rule, on a literal already read; `read` gives the float read from it, asked
/// only when the digits do not decide.
fn held(written: &Decimal<'_>, read: impl FnOnce() -> f64) -> bool {
    if written.len > MAX_SHORTEST_DIGITS {
        return false;
    }
    // Few digits in the normal range: the nearest float always prints back as them
    // (`f64::DIGITS`), so nothing needs converting.
    if !written.is_zero() && written.len <= SAFE_DIGITS && (-306..=308).contains(&written.point) {
        return true;
    }
    let value = read();
    if !value.is_finite() {
        return false;
    }
    if written.is_zero() || value == 0.0 {
        return written.is_zero() && value == 0.0;
    }
    if written.negative != value.is_sign_negative() {
        return false;
    }
    // The shortest form that reads back as `value` (`{:e}` prints exactly that).
    let shortest = format!("{:e}", value.abs());
    let Some(printed) = Decimal::read(&shortest) else {
        return false;
    };
    printed.point == written.point
        && printed.len == written.len
        && printed.digits().eq(written.digits())
}

/// Whether the number `literal` was read as is held to its digits: integers serde_json
/// keeps in 64 bits are exact; a float is judged by [`holds`].
pub(crate) fn number_holds(literal: &str, number: &serde_json::Number) -> bool {
    if number.is_i64() || number.is_u64() {
        return true;
    }
    number.as_f64().is_some_and(|float| holds(literal, float))
}

/// The byte offset of the first number literal in `json` (a text serde_json read as
/// strict JSON) that its float does not hold, if any: one pass that skips strings.
#[cfg(test)]
pub(crate) fn first_imprecise(json: &str) -> Option<usize> {
    float_literals(json)
        .find(|(_, literal)| !literal_held(literal))
        .map(|(start, _)| start)
}

/// The float literals of `json` (a text serde_json read as strict JSON: outside its
/// strings, only numbers hold a digit or a minus), in text order with their offsets:
/// the literals serde_json hands a visitor as `f64`s, one for one (those with a
/// fraction or an exponent, and `-0`; an integer too long for 64 bits is a float to
/// serde_json too, but the strict reader refuses it before this is asked).
pub(crate) fn float_literals(json: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = json.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            match bytes[i] {
                // A string holds no literal: skipped by the one rule of where it ends.
                b'"' => i = super::string::closing_quote(bytes, i + 1, b'"'),
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while bytes.get(i).is_some_and(|b| {
                        b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')
                    }) {
                        i += 1;
                    }
                    let literal = &json[start..i];
                    if is_float_literal(literal) || literal == "-0" {
                        return Some((start, literal));
                    }
                }
                _ => i += 1,
            }
        }
        None
    })
}

/// Reads a JSON number literal (`token`, nothing around it) as every reader here must:
/// an integer that fits 64 bits exactly, any other literal as the float nearest to it.
/// serde_json decides what is a number and reads integers; the float is Rust's own
/// correctly rounded reading, so a literal's value never depends on whether the build
/// turned on serde_json's `float_roundtrip` (which the host app, not this crate,
/// decides: without it serde_json may read a float one unit off).
pub(crate) fn read_number(token: &str) -> Result<serde_json::Number, serde_json::Error> {
    let number: serde_json::Number = serde_json::from_str(token)?;
    if number.is_i64() || number.is_u64() {
        return Ok(number);
    }
    Ok(nearest(token)
        .and_then(serde_json::Number::from_f64)
        .unwrap_or(number))
}

/// The float nearest to a number literal, as Rust reads it (correctly rounded).
pub(crate) fn nearest(literal: &str) -> Option<f64> {
    literal
        .parse::<f64>()
        .ok()
        .filter(|float| float.is_finite())
}

/// Whether a JSON number literal has a fraction or an exponent (an integer literal's
/// exactness is judged by its own rule: it fits 64 bits or it does not).
fn is_float_literal(literal: &str) -> bool {
    literal.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

/// `literal`, cut to a length an error message can quote.
pub(crate) fn preview(literal: &str) -> String {
    const MAX: usize = 40;
    if literal.len() <= MAX {
        return literal.to_string();
    }
    let mut cut = MAX;
    while !literal.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}… ({} characters)",
        &literal[..cut],
        literal.chars().count()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn only_a_number_literal_s_characters_pass_the_pre_check() {
        for text in ["0", "-1.5e+3", "42", "1E9", "+5", ".5"] {
            assert!(number_characters_only(text), "{text:?}");
        }
        for text in [
            "", " 1", "1 ", "inf", "NaN", "0x1F", "1_000", "1,5", "5%", "٣",
        ] {
            assert!(!number_characters_only(text), "{text:?}");
        }
    }

    fn read_holds(literal: &str) -> bool {
        holds(literal, literal.parse::<f64>().unwrap())
    }

    /// An independent normalization for the reference: `(negative, digits, point)`
    /// with `value = 0.digits × 10^point`, by plain string handling.
    fn normalize(literal: &str) -> (bool, String, i64) {
        let (negative, rest) = match literal.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, literal.trim_start_matches('+')),
        };
        let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i64>().unwrap()),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all = format!("{int}{frac}");
        let lead = all.len() - all.trim_start_matches('0').len();
        let digits = all.trim_matches('0').to_string();
        (negative, digits, int.len() as i64 - lead as i64 + exponent)
    }

    #[test]
    fn literals_a_float_prints_back_are_held() {
        for literal in [
            "0.1",
            "0.10",
            "1.0e-1",
            "-0.0",
            "0.0",
            "0e10",
            "3.5",
            "1e2",
            "1E+2",
            "100.000",
            "2.2250738585072014e-308",
            "1.7976931348623157e308",
            "5e-324",
            "0.3",
            "123456789012345.6",
            "0.000001",
            "1.5e300",
            "+.5",
        ] {
            assert!(read_holds(literal), "{literal}");
        }
    }

    #[test]
    fn literals_whose_digits_a_float_loses_are_not_held() {
        let million = format!("0.{}1", "0".repeat(1_000_000));
        let long = format!("1.{}", "3".repeat(1_000_000));
        for literal in [
            "1e-400",
            "-1e-400",
            "123456789012345678901234567890.5",
            "0.1000000000000000000001",
            "4.9e-324",
            "9007199254740993.0",
            million.as_str(),
            long.as_str(),
        ] {
            assert!(!read_holds(literal), "{}", preview(literal));
        }
        assert!(!holds("1e400", f64::INFINITY));
        assert!(holds("not a number", 1.0), "not judged here");
    }

    #[test]
    fn huge_exponents_saturate() {
        let exponent = "9".repeat(100_000);
        assert!(!holds(&format!("1e-{exponent}"), 0.0));
        assert!(!holds(&format!("1e{exponent}"), f64::INFINITY));
        assert!(holds(&format!("0e{exponent}"), 0.0));
    }

    #[test]
    fn the_scan_finds_the_first_literal_not_held_outside_strings() {
        assert_eq!(first_imprecise(r#"{"a": 0.1, "b": [1e-400]}"#), Some(17));
        assert_eq!(
            first_imprecise(r#"{"a": "1e-400 \" 1e-400", "b": 2.5}"#),
            None
        );
        assert_eq!(
            first_imprecise(r#"[12345678901234567890123, 1.5]"#),
            None,
            "integers have their own rule"
        );
        let long = format!("[\"{}\", 0.{}1]", "x".repeat(100_000), "0".repeat(100_000));
        assert_eq!(first_imprecise(&long), Some(100_005));
    }

    #[test]
    fn previews_are_short() {
        let long = "1".repeat(1_000_000);
        let shown = preview(&long);
        assert!(shown.len() < 80 && shown.ends_with("(1000000 characters)"));
        assert_eq!(preview("1e-400"), "1e-400");
    }

    proptest! {
        /// Any float's shortest form, in any spelling (zeros padded on both sides, the
        /// point moved by the exponent), is held.
        #[test]
        fn printed_floats_are_held_in_any_spelling(
            bits in any::<u64>(),
            pad in 0usize..5,
            lead in 0usize..4,
        ) {
            let value = f64::from_bits(bits);
            prop_assume!(value.is_finite());
            let shortest = format!("{value:e}");
            prop_assert!(holds(&shortest, value), "{}", shortest);
            let (mantissa, exponent) = shortest.split_once('e').unwrap();
            let exponent: i64 = exponent.parse().unwrap();
            let (sign, mantissa) = match mantissa.strip_prefix('-') {
                Some(rest) => ("-", rest),
                None => ("", mantissa),
            };
            let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
            // Moving the point one place left and raising the exponent by one.
            let respelled = format!(
                "{sign}{}0.{int}{frac}{}e{}",
                "0".repeat(lead),
                "0".repeat(pad),
                exponent + 1
            );
            prop_assert!(holds(&respelled, value), "{}", respelled);
        }

        /// serde_json reads a float literal as the correctly rounded float (this
        /// crate turns on its `float_roundtrip`): otherwise a literal a float holds
        /// could be read one unit off, a change no rule here would see.
        #[test]
        fn serde_json_reads_the_nearest_float(
            digits in "[1-9][0-9]{15,17}",
            exponent in -320i64..300,
        ) {
            let literal = format!("0.{digits}e{exponent}");
            let read: f64 = serde_json::from_str(&literal).unwrap();
            prop_assert_eq!(read.to_bits(), literal.parse::<f64>().unwrap().to_bits(), "{}", literal);
        }

        /// Agrees with an independent reference: the literal is held exactly when it
        /// and the float's shortest form normalize to the same decimal.
        #[test]
        fn agrees_with_the_reference(
            negative in any::<bool>(),
            int in "[0-9]{1,12}",
            frac in "[0-9]{0,14}",
            exponent in -340i64..340,
        ) {
            let sign = if negative { "-" } else { "" };
            let literal = format!("{sign}{int}.{frac}e{exponent}");
            let value: f64 = literal.parse().unwrap();
            let written = normalize(&literal);
            let expected = if written.1.is_empty() {
                value == 0.0
            } else if !value.is_finite() || value == 0.0 {
                false
            } else {
                normalize(&format!("{value:e}")) == written
            };
            prop_assert_eq!(holds(&literal, value), expected, "{}", literal);
        }
    }
}
