//! Reading one extracted block as JSON: strict first, at serde_json speed; lenient
//! (repairing what models get wrong) only when strict parsing fails.

pub(crate) mod held;
pub(crate) mod locate;
pub(crate) mod precision;
pub(crate) mod repair;
mod strict;
pub(crate) mod string;

pub use strict::read_prefix;

use crate::caps::Capped;
use crate::error::{ErrorKind, Location, PayloadError};
use crate::warning::{Warning, WarningKind};
use repair::Notes;
use serde_json::Value;

/// A value read from a block, with the repairs it needed and what it noted.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The value.
    pub value: Value,
    /// What was repaired, one phrase each (empty for strict JSON).
    pub repairs: Vec<String>,
    /// Duplicate keys (the last value won) and integers too long to hold exactly.
    pub notes: Notes,
}

impl Decoded {
    /// A value the strict reader read: nothing repaired, nothing noted.
    pub(crate) fn strict(value: Value) -> Self {
        Decoded {
            value,
            repairs: Vec::new(),
            notes: Notes::default(),
        }
    }

    /// Whether a key was written twice in one object.
    pub fn has_duplicates(&self) -> bool {
        !self.notes.duplicates.items().is_empty() || self.notes.duplicates.omitted() > 0
    }

    /// One `duplicate_key` warning per key written twice (docs/spec.md §7.3), `prefix` before
    /// each message (the block's marker, say), with a final count past the cap.
    pub fn duplicate_warnings(&self, prefix: &str) -> Vec<Warning> {
        let duplicates = &self.notes.duplicates;
        let mut warnings: Vec<Warning> = duplicates
            .items()
            .iter()
            .map(|d| {
                Warning::new(
                    WarningKind::DuplicateKey,
                    format!("{prefix}{}", d.message()),
                )
            })
            .collect();
        if duplicates.omitted() > 0 {
            warnings.push(Warning::new(
                WarningKind::DuplicateKey,
                format!(
                    "{prefix}{} more keys appear more than once; the last value of each was kept",
                    duplicates.omitted()
                ),
            ));
        }
        warnings
    }

    /// `errors` (the value's check) with [`Self::inexact_errors`] first, each path
    /// reported once: the check may name the same too-long integer for its field.
    pub fn with_inexact_errors(&self, errors: Vec<PayloadError>) -> Vec<PayloadError> {
        let mut all = self.inexact_errors();
        if all.is_empty() {
            return errors;
        }
        let paths: std::collections::HashSet<String> =
            all.iter().map(|e| e.path().to_owned()).collect();
        all.extend(errors.into_iter().filter(|e| !paths.contains(e.path())));
        all
    }

    /// One `validation` error at the path of each number the value read does not hold
    /// as written (docs/spec.md §7.2): an integer with more digits than a 64-bit integer holds,
    /// or a float literal whose digits a float loses (`1e-400` read as 0, thirty
    /// significant digits read as seventeen; the rule is in [`precision`]). The value
    /// read is not the number the text says, and no field receives it silently.
    pub fn inexact_errors(&self) -> Vec<PayloadError> {
        let mut errors = Capped::errors();
        for imprecise in self.notes.imprecise.items() {
            errors.push(imprecise_error(imprecise));
        }
        errors.count_omitted(self.notes.imprecise.omitted());
        for path in self.notes.inexact.items() {
            errors.push(
                PayloadError::validation(
                    path.clone(),
                    "the integer has more digits than a 64-bit integer holds, so it cannot be held exactly",
                )
                .with_expected("an integer between -9223372036854775808 and 18446744073709551615")
                .with_suggestion("send a number that fits, or send it as a string if the digits matter"),
            );
        }
        errors.count_omitted(self.notes.inexact.omitted());
        errors.finish()
    }
}

/// The error for a float literal whose digits the float read from it loses: underflow
/// (read as zero) is told apart from digits past what a float keeps, since the fix
/// differs.
fn imprecise_error(imprecise: &repair::Imprecise) -> PayloadError {
    let shown = precision::preview(&imprecise.literal);
    let read = imprecise.literal.parse::<f64>().unwrap_or(0.0);
    let (message, suggestion) = if read == 0.0 {
        (
            format!("{shown} is too small to hold: it would be read as 0, not the number written"),
            "write 0 if zero is meant; otherwise send the number as a string",
        )
    } else {
        (
            format!(
                "{shown} cannot be held to the digits written: it would be read as {read}, which drops digits"
            ),
            "write the number with at most 15 significant digits, or send it as a string if every digit matters",
        )
    };
    PayloadError::validation(imprecise.path.clone(), message)
        .with_expected("a number with at most 15 significant digits, between about 1e-307 and 1e308 in magnitude")
        .with_suggestion(suggestion)
}

/// `text` read as strict JSON by the one strict reader (exact numbers, no key written
/// twice, the depth limit), or `None` where it refuses the text.
pub(crate) fn strict_value(text: &str) -> Option<Value> {
    strict::parse(text).ok()
}

/// Parses `text` as strict JSON, or, failing that, repairs it.
///
/// `origin` is where `text` starts in the model's text; error locations are given in
/// the model's text. A value that is cut off is never completed: that is an error.
pub fn decode(text: &str, origin: Location) -> Result<Decoded, PayloadError> {
    match strict::parse(text) {
        Ok(value) => Ok(Decoded::strict(value)),
        Err(strict) => match repair::parse_lenient(text) {
            Ok(lenient) => Ok(Decoded::from(lenient)),
            Err(lenient) => Err(repair_error(&strict, &lenient, text, origin)),
        },
    }
}

/// Whether `text` reads as a value ([`decode`] succeeds): what the segmenter asks of a
/// value that closed after a marker line inside one of its strings (docs/spec.md §1.19).
pub(crate) fn reads(text: &str) -> bool {
    decode(text, Location { line: 1, column: 1 }).is_ok()
}

/// [`decode`] of `text`, unless a strict read of the same text already holds its value
/// (`read`, from [`read_prefix`]): that is what `decode` would return, so it is not read
/// again. `origin` is asked for only when `text` is read here.
pub(crate) fn decode_or_read(
    read: Option<Value>,
    text: &str,
    origin: impl FnOnce() -> Location,
) -> Result<Decoded, PayloadError> {
    match read {
        Some(value) => Ok(Decoded::strict(value)),
        None => decode(text, origin()),
    }
}

impl From<repair::Lenient> for Decoded {
    fn from(lenient: repair::Lenient) -> Self {
        Decoded {
            value: lenient.value,
            repairs: lenient.repairs,
            notes: lenient.notes,
        }
    }
}

/// The error for a block neither reader accepts. The lenient reader's error is the one
/// reported: it points past everything that was repairable, at the real problem (the
/// strict reader stops at the first trailing comma). A value cut off inside the block is
/// `truncated`.
fn repair_error(
    strict: &serde_json::Error,
    lenient: &repair::RepairError,
    text: &str,
    origin: Location,
) -> PayloadError {
    let location = shift(Location::of_offset(text, lenient.offset), origin);
    if lenient.kind == ErrorKind::Validation {
        // Copied notation (`"a" | "b"`, docs/spec.md §3.4): the text reads, but what it holds at
        // this member is a list of choices, not a value.
        let mut error = PayloadError::validation(lenient.path.clone(), lenient.message.clone())
            .with_expected("one value")
            .with_location(location);
        error = match lenient.choices.first() {
            Some(first) => error.with_suggestion(format!(
                "send one of the values, e.g. {}",
                Value::String(first.clone())
            )),
            None => error.with_suggestion(lenient.hint.suggestion()),
        };
        return error;
    }
    let message = match lenient.kind {
        ErrorKind::Truncated => format!("the JSON value is cut off: {}", lenient.message),
        _ => format!("invalid JSON: {}", lenient.message),
    };
    // The strict reader's error says only where it gave up (it stops at the first
    // trailing comma the lenient reader repairs); what to do comes from the lenient
    // reader, which stopped at the real problem and says what it is.
    let hint = if strict.is_eof() && lenient.kind == ErrorKind::Truncated {
        repair::Hint::CloseEverything
    } else {
        lenient.hint
    };
    PayloadError::new(lenient.kind, "", message)
        .with_suggestion(hint.suggestion())
        .with_location(location)
}

/// A location relative to a block, moved to the model's text.
pub(crate) fn shift(relative: Location, origin: Location) -> Location {
    if relative.line == 1 {
        Location {
            line: origin.line,
            column: origin.column + relative.column - 1,
        }
    } else {
        Location {
            line: origin.line + relative.line - 1,
            column: relative.column,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: Location = Location {
        line: 3,
        column: 18,
    };

    #[test]
    fn strict_json_needs_no_repair() {
        let decoded = decode(r#"{"a": [1, 2]}"#, ORIGIN).unwrap();
        assert!(decoded.repairs.is_empty());
        assert_eq!(decoded.value["a"][1], 2);
    }

    #[test]
    fn errors_are_located_in_the_model_text() {
        let error = decode("{\"a\": 1,\n  \"b\" 2}", ORIGIN).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Parsing);
        assert_eq!(error.location().unwrap().line, 4);
    }

    #[test]
    fn deep_nesting_is_a_parsing_error() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let error = decode(&deep, ORIGIN).unwrap_err();
        assert!(
            error.message().contains("deeper than 128"),
            "{}",
            error.message()
        );
    }

    #[test]
    fn the_suggestion_says_what_stopped_the_reader() {
        let cases = [
            ("{\"a\" 1}", repair::Hint::ColonAfterKey),
            ("{\"a\": NaN}", repair::Hint::NumberOrNull),
            ("{\"a\": 1} trailing words", repair::Hint::OneValue),
            ("{\"a\": [1, 2", repair::Hint::CloseEverything),
            (
                &format!("{}{}", "[".repeat(200), "]".repeat(200)),
                repair::Hint::LessNesting,
            ),
        ];
        for (text, hint) in cases {
            let error = decode(text, ORIGIN).unwrap_err();
            assert_eq!(error.suggestion(), Some(hint.suggestion()), "{text}");
        }
    }
}
