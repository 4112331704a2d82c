//! Checking one value against a payload type: the steps marker mode and whole-response
//! mode share, in order.
//!
//! 0. Undeclared members that serde reads under another name (`#[serde(alias)]`) are
//!    renamed to that name (`crate::validate::aliases`), and the walk of step 1 is
//!    done again on the renamed value.
//! 1. One walk over the value (`crate::validate::walk`): integer-valued floats where
//!    the schema wants integers become integers, and numbers no integer field can hold
//!    exactly are errors at their path (docs/spec.md §7.2); members the type does not declare
//!    are noted (docs/spec.md §7.1).
//! 2. The schema validator, its errors bounded (docs/spec.md §8.1). When its only
//!    objections are strings outside an enum's choices and serde reads the value (a
//!    `#[serde(other)]` variant, an alias on a variant), there is no error
//!    (`crate::validate::catch_all`).
//! 3. The undeclared members become warnings, or errors for near misses of absent
//!    members (whose `missing` errors they replace).
//! 4. When the schema is satisfied, decoding into the type (a decode error names the
//!    path of the member at fault) and the type's own rules. A near miss that serde
//!    takes in (an `alias`) was renamed in step 0, so it is no error.
//!
//! Before step 0, the schema's compiled plan (`crate::validate::plan`) looks at the
//! value: when it finds it clean (valid, no undeclared member, no number to rewrite or
//! refuse), steps 0 to 3 would find nothing, and only step 4 runs.
//!
//! At most [`crate::caps::MAX_ERRORS`] errors are kept, the rest counted in
//! one final error; warnings are capped the same way.

use crate::caps::{Capped, MAX_ERRORS};
use crate::error::{ErrorKind, PayloadError};
use crate::typed::AnyPayload;
use crate::validate::aliases;
use crate::validate::catch_all;
use crate::validate::compiled::CompiledSchema;
use crate::validate::decode::{Decoder, first_message};
use crate::validate::members::Unknowns;
use crate::validate::walk;
use crate::warning::Warning;
use serde_json::Value;

/// What checking one value against a payload type found.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    /// Every problem found (at most 100, then one error that counts the rest); empty
    /// when the value is valid.
    pub errors: Vec<PayloadError>,
    /// `unknown_member` warnings: members the type does not declare, which decoding
    /// ignores.
    pub warnings: Capped<Warning>,
    /// `coerced` warnings, one per integer-valued float rewritten as an integer.
    /// Whole-response mode reports them (docs/spec.md §7.4); marker mode does not, since
    /// JSON Schema already calls such a number an integer.
    pub rewrites: Capped<Warning>,
    /// The value decoded into its type, when it is valid.
    pub typed: Option<AnyPayload>,
}

impl Checked {
    /// Whether the value is valid.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// What [`probe`] found: the value checked, or only that the schema refuses it.
#[derive(Debug)]
pub(crate) enum Probe {
    /// The schema accepts the value (after step 1); every step ran.
    Checked(Checked),
    /// The schema refuses the value: no error was built. Step 1 ran, and these are its
    /// rewrites.
    Refused { rewrites: Capped<Warning> },
}

/// Runs the steps of the module docs on `value` (rewritten in place by step 1), with
/// `decoder` for step 4.
pub(crate) fn check(
    value: &mut Value,
    compiled: &CompiledSchema,
    decoder: impl Decoder,
) -> Checked {
    check_with(value, compiled, decoder, Step0::Lazy)
}

/// [`check`] with step 0 as it was before it was made lazy: the schema's errors built
/// first, and each probe decoded in full. The same result, at a higher cost
/// (`tests/all/validation_plan.rs` checks that on many values).
#[cfg(feature = "__internals")]
pub(crate) fn check_eagerly(
    value: &mut Value,
    compiled: &CompiledSchema,
    decoder: impl Decoder,
) -> Checked {
    check_with(value, compiled, decoder, Step0::Eager)
}

/// [`check`], with step 0 asking as `step0` says.
fn check_with(
    value: &mut Value,
    compiled: &CompiledSchema,
    decoder: impl Decoder,
    step0: Step0,
) -> Checked {
    if compiled.is_clean(value) {
        return decode_clean(value, &decoder);
    }
    let walked = Walked::of(value, compiled);
    let walked = walked.with_aliases(value, compiled, &decoder, step0);
    finish(value, compiled, &decoder, walked)
}

/// How step 0 asks for what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step0 {
    /// The schema's errors only when a candidate name needs them, and the probes asked
    /// only why serde refuses them ([`Decoder::refusal`]).
    Lazy,
    /// The schema's errors first, and every probe decoded in full.
    #[cfg_attr(not(feature = "__internals"), allow(dead_code))]
    Eager,
}

/// [`check`] for a caller that has something else to try when the schema refuses the
/// value (whole-response mode coerces it): when step 1 leaves the value refused by the
/// schema, stops there instead of building errors that would be thrown away.
pub(crate) fn probe(value: &mut Value, compiled: &CompiledSchema, decoder: impl Decoder) -> Probe {
    if compiled.is_clean(value) {
        return Probe::Checked(decode_clean(value, &decoder));
    }
    let walked = Walked::of(value, compiled);
    let walked = walked.with_aliases(value, compiled, &decoder, Step0::Lazy);
    let forgivable = compiled.has_string_choices() && walked.unknowns.near.is_empty();
    if !walked.errors.is_empty() {
        return Probe::Refused {
            rewrites: walked.rewrites,
        };
    }
    if compiled.is_valid(value) {
        return Probe::Checked(finish(value, compiled, &decoder, walked));
    }
    if forgivable {
        // The schema's objections may all be strings serde reads past its choices
        // (step 2b, which `finish` applies): refused only when some stand.
        let checked = finish(value, compiled, &decoder, walked);
        if checked.errors.is_empty() {
            return Probe::Checked(checked);
        }
        return Probe::Refused {
            rewrites: checked.rewrites,
        };
    }
    Probe::Refused {
        rewrites: walked.rewrites,
    }
}

/// What the one walk of steps 1 and 3 found (`crate::validate::walk`).
struct Walked {
    errors: Capped<PayloadError>,
    rewrites: Capped<Warning>,
    warnings: Capped<Warning>,
    unknowns: Unknowns,
}

impl Walked {
    /// Walks `value` beside the compiled schema.
    fn of(value: &mut Value, compiled: &CompiledSchema) -> Self {
        let mut errors = Capped::errors();
        let mut rewrites = Capped::warnings();
        let mut warnings = Capped::warnings();
        let unknowns = walk::walk(
            value,
            compiled.schema(),
            &mut errors,
            &mut rewrites,
            &mut warnings,
            MAX_ERRORS,
        );
        Walked {
            errors,
            rewrites,
            warnings,
            unknowns,
        }
    }
}

impl Walked {
    /// Step 0: renames the members serde reads under another name and walks the
    /// renamed value again; the walk as it is when there is nothing to rename (the
    /// common case costs nothing: the walk noted no undeclared member).
    fn with_aliases(
        self,
        value: &mut Value,
        compiled: &CompiledSchema,
        decoder: &impl Decoder,
        step: Step0,
    ) -> Walked {
        if self.unknowns.undeclared.is_empty() {
            return self;
        }
        // The members the schema calls missing are read from its errors, which are
        // built only when the test first needs a candidate name (most tests end
        // before: the member changes nothing serde decodes).
        let missing = |value: &Value| {
            let mut schema_errors = Capped::errors();
            compiled.validate_into(value, &mut schema_errors);
            schema_errors
                .items()
                .iter()
                .filter(|error| error.kind() == ErrorKind::Missing)
                .map(|error| error.path().to_owned())
                .collect()
        };
        let renamed = match step {
            Step0::Lazy => aliases::rename_aliases(
                value,
                &self.unknowns.undeclared,
                missing,
                compiled.missing_among_absent(),
                &self.unknowns.near,
                |value| decoder.roundtrip(value),
                |value| decoder.refusal(value),
            ),
            Step0::Eager => {
                let missing: Vec<String> = missing(value);
                aliases::rename_aliases(
                    value,
                    &self.unknowns.undeclared,
                    |_: &Value| missing,
                    false,
                    &self.unknowns.near,
                    |value| decoder.decode(value, true).roundtrip,
                    |value| first_message(&decoder.decode(value, false)),
                )
            }
        };
        if renamed == 0 {
            self
        } else {
            Walked::of(value, compiled)
        }
    }
}

/// Step 4 alone, for a value the plan found clean.
fn decode_clean(value: &Value, decoder: &impl Decoder) -> Checked {
    let decoded = decoder.decode(value, false);
    let mut errors = Capped::errors();
    errors.extend(decoded.errors);
    let errors = errors.finish();
    Checked {
        typed: decoded.typed.filter(|_| errors.is_empty()),
        errors,
        warnings: Capped::warnings(),
        rewrites: Capped::warnings(),
    }
}

/// Steps 2 and 4, after the walk of steps 1 and 3.
fn finish(
    value: &mut Value,
    compiled: &CompiledSchema,
    decoder: &impl Decoder,
    walked: Walked,
) -> Checked {
    let Walked {
        mut errors,
        rewrites,
        warnings,
        unknowns,
    } = walked;
    compiled.validate_into(value, &mut errors);
    // Strings serde takes past the schema's choices are no error (step 2b).
    let mut forgiven = None;
    if unknowns.near.is_empty() && compiled.has_string_choices() {
        let decode = |value: &Value, roundtrip: bool| decoder.decode(value, roundtrip);
        forgiven = catch_all::serde_reads_past(value, compiled.schema(), &errors, decode);
        if forgiven.is_some() {
            errors = Capped::errors();
        }
    }
    // Decoding a value the schema refuses only repeats what the schema said.
    let decodable = errors.is_empty();
    errors.retain(|error| {
        error.kind() != ErrorKind::Missing
            || !unknowns.superseded.contains(&error.path().to_owned())
    });
    let near = unknowns.near;
    let mut later = Vec::new();
    let mut typed = None;
    if decodable {
        let decoded = forgiven.unwrap_or_else(|| decoder.decode(value, false));
        later = decoded.errors;
        typed = decoded.typed;
    }
    for miss in &near {
        if errors.is_full() {
            errors.count_omitted(1);
        } else {
            errors.push(miss.error(value.pointer(&miss.path())));
        }
    }
    errors.count_omitted(unknowns.omitted);
    errors.extend(later);
    let errors = errors.finish();
    Checked {
        typed: typed.filter(|_| errors.is_empty()),
        errors,
        warnings,
        rewrites,
    }
}

#[cfg(test)]
mod tests {
    use crate::error::ErrorKind;
    use crate::payload::LlmPayload;
    use crate::warning::WarningKind;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use serde_json::{Value, json};

    /// A row of a table, with the kinds of members models get wrong.
    #[derive(Debug, Serialize, Deserialize, JsonSchema, payload_derive::LlmPayload)]
    #[payload(crate = "crate")]
    struct Row {
        row_id: u32,
        #[serde(default)]
        total: u64,
        #[serde(default)]
        labels: Vec<String>,
        #[serde(default)]
        title: Option<String>,
        #[serde(default, alias = "colour")]
        color: Option<String>,
        #[serde(default)]
        cells: Vec<Cell>,
    }

    /// One cell; its tag picks the members.
    #[derive(Debug, Serialize, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    enum Cell {
        Number { value: f64, even: Even },
        Text { text: String },
    }

    /// An even number: the schema says integer, only decoding can say even.
    #[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
    #[serde(try_from = "u32", into = "u32")]
    #[schemars(with = "u32")]
    struct Even(u32);

    impl TryFrom<u32> for Even {
        type Error = String;
        fn try_from(n: u32) -> Result<Self, String> {
            if n % 2 == 0 {
                Ok(Even(n))
            } else {
                Err(format!("{n} is odd"))
            }
        }
    }

    impl From<Even> for u32 {
        fn from(even: Even) -> u32 {
            even.0
        }
    }

    /// A type that denies unknown fields.
    #[derive(Debug, Serialize, Deserialize, JsonSchema, payload_derive::LlmPayload)]
    #[payload(crate = "crate")]
    #[serde(deny_unknown_fields)]
    struct Strict {
        labels: Vec<String>,
        #[serde(default)]
        note: Option<String>,
    }

    fn check<T: LlmPayload>(mut value: Value) -> (Value, super::Checked) {
        let checked = T::TYPE.check(&mut value);
        (value, checked)
    }

    #[test]
    fn integer_valued_floats_decode_into_integer_fields() {
        let (value, checked) = check::<Row>(json!({"row_id": 12.0, "total": 1e2}));
        assert!(checked.is_valid(), "{:?}", checked.errors);
        assert_eq!(value, json!({"row_id": 12, "total": 100}));
        assert_eq!(checked.rewrites.items().len(), 2);
        assert!(checked.warnings.is_empty());
    }

    #[test]
    fn numbers_a_field_cannot_hold_are_errors_at_their_path() {
        let huge = format!("1{}", "0".repeat(299));
        let value: Value =
            serde_json::from_str(&format!(r#"{{"row_id": 5000000000, "total": {huge}}}"#)).unwrap();
        let (_, checked) = check::<Row>(value);
        let paths: Vec<&str> = checked.errors.iter().map(|e| e.path()).collect();
        assert_eq!(paths, ["/row_id", "/total"], "{:#?}", checked.errors);
        assert!(
            checked
                .errors
                .iter()
                .all(|e| e.kind() == ErrorKind::Validation)
        );
    }

    #[test]
    fn a_decode_error_names_the_member_at_fault() {
        let (_, checked) = check::<Row>(json!({"row_id": 1, "cells": [
            {"kind": "text", "text": "a"},
            {"kind": "number", "value": 1.5, "even": 3}
        ]}));
        assert_eq!(checked.errors.len(), 1, "{:#?}", checked.errors);
        let error = &checked.errors[0];
        assert!(error.path().starts_with("/cells/1"), "{}", error.path());
        assert!(error.message().contains("3 is odd"), "{}", error.message());
    }

    #[test]
    fn an_unknown_member_is_a_warning_and_a_near_miss_an_error() {
        let (_, checked) = check::<Row>(json!({"row_id": 1, "mood": "calm"}));
        assert!(checked.is_valid());
        let warnings = checked.warnings.items();
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].kind, WarningKind::UnknownMember);
        assert!(warnings[0].message.contains("'mood' at /mood"));

        let (_, checked) = check::<Row>(json!({"row_id": 1, "lables": ["a"], "Title": "x"}));
        let found: Vec<(&str, &str)> = checked
            .errors
            .iter()
            .map(|e| (e.path(), e.suggestion().unwrap_or("")))
            .collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "/lables");
        assert!(found[0].1.starts_with("did you mean 'labels'?"));
        assert_eq!(found[1].0, "/Title");
        assert!(found[1].1.starts_with("did you mean 'title'?"));
        assert_eq!(checked.errors[0].received(), Some(json!(["a"])).as_ref());
    }

    #[test]
    fn a_near_miss_replaces_the_missing_error_of_the_member_it_meant() {
        let (_, checked) = check::<Row>(json!({"rowId": 7}));
        assert_eq!(checked.errors.len(), 1, "{:#?}", checked.errors);
        assert_eq!(checked.errors[0].path(), "/rowId");
        assert_eq!(checked.errors[0].kind(), ErrorKind::Validation);
    }

    #[test]
    fn a_member_serde_takes_in_by_alias_is_no_error() {
        let (_, checked) = check::<Row>(json!({"row_id": 1, "colour": "red"}));
        assert!(checked.is_valid(), "{:#?}", checked.errors);
        assert!(checked.warnings.is_empty());
    }

    #[test]
    fn members_of_the_tagged_variant_are_declared() {
        let (_, checked) = check::<Row>(json!({"row_id": 1, "cells": [
            {"kind": "text", "text": "a", "txt": "b"},
            {"kind": "number", "value": 1, "even": 2.0}
        ]}));
        assert!(checked.is_valid(), "{:#?}", checked.errors);
        let warnings = checked.warnings.items();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].message.contains("/cells/0/txt"));
    }

    #[test]
    fn a_type_that_denies_unknown_fields_reports_each_once() {
        let (_, checked) = check::<Strict>(json!({"lables": [], "extra": 1}));
        let paths: Vec<&str> = checked.errors.iter().map(|e| e.path()).collect();
        assert_eq!(paths, ["/lables", "/extra"], "{:#?}", checked.errors);
        assert!(
            checked.errors[0]
                .suggestion()
                .unwrap()
                .starts_with("did you mean 'labels'?")
        );
        assert!(
            checked.errors[1]
                .suggestion()
                .unwrap()
                .starts_with("remove 'extra'")
        );
        assert!(checked.warnings.is_empty());
    }
}
