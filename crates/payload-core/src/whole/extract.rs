//! Whole-response mode (docs/spec.md §4): the model's whole answer is one value of a
//! type, written as JSON, bare or in a code fence or with prose around it.
//!
//! The pipeline is strict first: locate the value, parse it with serde_json, validate.
//! Only when that fails does it repair the JSON ([`crate::json::repair`]) and coerce it toward
//! the schema ([`crate::validate::coerce`]), each fix reported as a warning. A value cut off
//! before it closes is `truncated` and never accepted.
//!
//! Reasoning comes out first (docs/spec.md §9.1): the `<think>` sections before the answer are
//! removed before the format is detected and the value read, and returned as
//! `reasoning`. Only sections before the answer's first visible character count here:
//! the answer is one value, and a `<reasoning>` element inside an XML answer is a
//! member of it.

pub(crate) mod candidates;
mod fallback;
pub(crate) mod policy;
#[cfg(test)]
mod reasoning_tests;
mod result;
#[cfg(test)]
mod string_tests;

use crate::caps::Capped;
use crate::error::{ErrorKind, Location, PayloadError};
use crate::formats::{self, Format};
use crate::json;
use crate::json::locate;
use crate::limits::Limits;
use crate::payload::{LlmPayload, PayloadType};
use crate::scan::reasoning::{self, Scope};
use crate::schema::Shape;
use crate::typed::AnyPayload;
use crate::validate::check::Probe;
use crate::validate::coerce;
use crate::warning::{Warning, WarningKind};
use candidates::candidates;
use payload_schema::keywords::{self, Property};
pub use result::ExtractResult;
use serde_json::Value;

/// Reads the whole response `text` as one `T`, written as JSON. The `T` is the value
/// validation decoded, not a second decode of `data`.
pub fn extract<T: LlmPayload>(text: &str) -> (Option<T>, ExtractResult) {
    let mut result = extract_json(text, &T::TYPE);
    let typed = result.take_typed();
    (typed, result)
}

/// Reads the whole response `text` as one value of `payload`, written in `format`, or
/// in whichever format detection finds most likely when `format` is `None` (`auto`).
///
/// JSON takes the JSON path ([`extract_json`]: strict, then repaired, then coerced).
/// The other formats are read into a value shaped by the schema
/// ([`crate::formats::read_as`], whose warnings are kept), then validated with the same
/// errors as JSON; a missing member's suggestion shows it in the response's format.
/// `confidence` is the detector's score for the format read. A response over the default size limit
/// ([`Limits::DEFAULT`]) is refused; [`extract_as_with`] takes other limits.
pub fn extract_as(text: &str, payload: &PayloadType, format: Option<Format>) -> ExtractResult {
    extract_as_with(text, payload, format, Limits::DEFAULT)
}

/// [`extract_as`] with the given limits: a response longer than
/// `limits.max_input_bytes` is not read, and the result is a failure with one
/// `parsing` error that says so.
///
/// In `auto` (`format` is `None`) the detected format is read first and, when it
/// gives no valid value, the other formats are tried in turn (docs/spec.md §4.7): the detected
/// one, then a JSON value anywhere in the text, then the rest by detection score; the
/// first valid value wins with a `format_fallback` warning and half its format's
/// confidence. A cut-off response (`truncated` in the detected format) is not read
/// another way, and a total failure reports the detected format's errors.
pub fn extract_as_with(
    text: &str,
    payload: &PayloadType,
    format: Option<Format>,
    limits: Limits,
) -> ExtractResult {
    if let Err(error) = limits.check_input(text.len()) {
        let name = format.map_or("json", Format::as_str);
        return policy::finish(
            payload.compiled().policy(),
            ExtractResult::failure(name, 0.0, vec![error]),
        );
    }
    let split = reasoning::split(text, Scope::Leading, false);
    with_reasoning(read_answer(&split.answer, payload, format), split)
}

/// The result with the response's reasoning, and a warning when a section was never
/// closed (the warning goes first: it explains an answer that may be missing).
fn with_reasoning(mut result: ExtractResult, split: reasoning::Split<'_>) -> ExtractResult {
    if let Some(name) = split.unclosed {
        let mut warnings = Capped::warnings();
        warnings.push(Warning::new(
            WarningKind::UnclosedReasoning,
            reasoning::unclosed_message(name),
        ));
        warnings.extend(std::mem::take(&mut result.warnings));
        result.warnings = warnings.finish();
    }
    result.reasoning = split.reasoning;
    result
}

/// Reads the answer (the response without its reasoning) in `format`, or in `auto`
/// with detection checked against the result, through the type's x-parsing policy.
fn read_answer(text: &str, payload: &PayloadType, format: Option<Format>) -> ExtractResult {
    let policy = payload.compiled().policy();
    let Some(format) = format else {
        return fallback::read_auto(text, payload, read_in);
    };
    if format == Format::Json {
        // The JSON reader scores its own confidence from where the value sits, so the
        // other formats' detectors need not run.
        return policy::finish(policy, extract_json_unchecked(text, payload));
    }
    // A format the caller names is read whatever the schema's x-parsing says.
    let confidence = formats::detect(text, payload.compiled().schema())
        .into_iter()
        .find(|(f, _)| *f == format)
        .map_or(0.0, |(_, score)| score);
    policy::finish(policy, read_in(text, payload, format, confidence))
}

/// Reads `text` as a value of `payload` written in `format`, with `confidence` the
/// detector's score for it (JSON scores its own, from where the value sits). The
/// result is not yet passed through the type's x-parsing policy.
fn read_in(text: &str, payload: &PayloadType, format: Format, confidence: f64) -> ExtractResult {
    if format == Format::Json {
        return extract_json_unchecked(text, payload);
    }
    let schema = payload.compiled().schema();
    let name = format.as_str();
    let read = formats::read_as(format, text, schema);
    let mut warnings = read.warnings;
    let value = match read.result {
        Ok(value) => value,
        Err(failure) => {
            let mut result = ExtractResult::failure(name, confidence, failure.errors);
            result.partial_data = Some(failure.partial);
            result.warnings = warnings;
            return result;
        }
    };
    let (value, errors, typed) = validate_coercing(payload, value, &mut warnings);
    if errors.is_empty() {
        let mut result = ExtractResult::success(value, name, confidence, warnings);
        result.typed = typed;
        return result;
    }
    let errors = errors
        .into_iter()
        .map(|mut error| {
            if error.kind() == ErrorKind::Missing {
                let field = error
                    .path()
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let hint = formats::format_hint(format, &field, schema);
                error.details_mut().suggestion =
                    Some(match error.details_mut().suggestion.take() {
                        Some(fix) => format!("{fix}. {hint}"),
                        None => hint,
                    });
            }
            error
        })
        .collect();
    ExtractResult {
        success: false,
        data: None,
        errors,
        partial_data: Some(value),
        format: name.to_string(),
        confidence,
        warnings,
        reasoning: None,
        typed: None,
    }
}

/// Checks `value` ([`PayloadType::check`]); when that fails, coerces it toward the
/// schema in place and checks it again, keeping the coercion warnings only if they made
/// it valid. Returns the value (coerced when coercion changed it) and the errors that
/// remain. `warnings` gains the `unknown_member` warnings and, since this is
/// whole-response mode (docs/spec.md §7.4), a `coerced` warning for every integer-valued float
/// taken as an integer; it holds at most 100 warnings, then one that counts the rest.
fn validate_coercing(
    payload: &PayloadType,
    mut value: Value,
    warnings: &mut Vec<Warning>,
) -> (Value, Vec<PayloadError>, Option<AnyPayload>) {
    let mut report = Capped::warnings();
    report.extend(warnings.drain(..));
    // The first check stops early when the schema refuses the value: its errors would
    // be thrown away if coercion then makes the value valid, and are built below when
    // it does not.
    let (first_rewrites, first_errors) = match payload.probe(&mut value) {
        Probe::Checked(first) if first.is_valid() => {
            report.absorb(first.rewrites);
            report.absorb(first.warnings);
            *warnings = report.finish();
            return (value, Vec::new(), first.typed);
        }
        Probe::Checked(first) => (first.rewrites, Some(first.errors)),
        Probe::Refused { rewrites } => (rewrites, None),
    };
    let mut fixes = Capped::warnings();
    if payload.compiled().policy().coerce {
        coerce::coerce_into(&mut value, payload.compiled().coercion(), &mut fixes);
    }
    if fixes.is_empty() {
        *warnings = report.finish();
        let errors = first_errors.unwrap_or_else(|| payload.check(&mut value).errors);
        return (value, errors, None);
    }
    let second = payload.check(&mut value);
    if second.is_valid() {
        report.absorb(first_rewrites);
        report.absorb(fixes);
        report.absorb(second.rewrites);
        report.absorb(second.warnings);
        *warnings = report.finish();
        return (value, Vec::new(), second.typed);
    }
    *warnings = report.finish();
    (value, second.errors, None)
}

/// Reads the whole response `text` as one value of `payload`, written as JSON (refused
/// when over the default size limit).
pub fn extract_json(text: &str, payload: &PayloadType) -> ExtractResult {
    if let Err(error) = Limits::DEFAULT.check_input(text.len()) {
        return ExtractResult::failure("json", 0.0, vec![error]);
    }
    let split = reasoning::split(text, Scope::Leading, false);
    let result = extract_json_unchecked(&split.answer, payload);
    with_reasoning(policy::finish(payload.compiled().policy(), result), split)
}

fn extract_json_unchecked(text: &str, payload: &PayloadType) -> ExtractResult {
    // A response that is exactly one JSON scalar is that scalar, for a type that takes
    // one: a string may hold brackets, which are not values of their own.
    if is_json_scalar(text) {
        if let Some(result) = scalar_response(text, payload) {
            return result;
        }
    }
    let (mut found, more) = candidates(text);
    if found.is_empty() {
        if let Some(result) = scalar_response(text, payload) {
            return result;
        }
        let error = PayloadError::new(
            ErrorKind::Parsing,
            "",
            "no JSON value found in the response",
        )
        .with_expected(match payload.shape() {
            Shape::Array => "a JSON array",
            _ => "a JSON object",
        })
        .with_suggestion("answer with the JSON value only, no other text");
        return ExtractResult::failure("json", 0.0, vec![error]);
    }
    // The fenced value first: the fence says "this is it". Otherwise text order.
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|&i| !found[i].fenced);
    let mut winner: Option<(usize, ExtractResult)> = None;
    let mut first_failure: Option<ExtractResult> = None;
    // The values not taken, by offset: named in the `extra_value` warning.
    let mut others: Vec<(usize, &'static str)> = Vec::new();
    for i in order {
        let candidate = &mut found[i];
        if candidate.member {
            first_failure.get_or_insert_with(|| fragment(text, candidate));
            continue;
        }
        if winner.is_some() {
            if let Some(what) = other_value(text, candidate) {
                others.push((candidate.start, what));
            }
            continue;
        }
        let attempt = match candidate.held.take() {
            Some(what) => read_held(text, candidate, what, payload),
            None => read_candidate(text, candidate, payload),
        };
        if attempt.success {
            winner = Some((candidate.start, attempt));
        } else {
            if attempt.partial_data.is_some() {
                others.push((candidate.start, "a value that does not fit the type"));
            } else if candidate.end.is_none() {
                others.push((candidate.start, "a value that is cut off"));
            }
            first_failure.get_or_insert(attempt);
        }
    }
    let Some((_, mut result)) = winner else {
        return first_failure.expect("at least one candidate was tried");
    };
    if !others.is_empty() || more.is_some() {
        others.sort_by_key(|&(offset, _)| offset);
        result
            .warnings
            .push(extra_value_warning(text, &others, more));
    }
    result
}

/// What a candidate after the chosen value is, for the `extra_value` warning: `None`
/// when it is not a JSON value at all (braces in prose).
fn other_value(text: &str, candidate: &candidates::Candidate) -> Option<&'static str> {
    let Some(end) = candidate.end else {
        return Some("a value that is cut off");
    };
    if candidate.decoded.is_some() {
        return Some("another value");
    }
    if candidate.error.is_some() {
        return None;
    }
    let origin = Location::of_offset(text, candidate.start);
    json::decode(&text[candidate.start..end], origin)
        .ok()
        .map(|_| "another value")
}

/// The warning that names the values not read (docs/spec.md §4.4).
fn extra_value_warning(text: &str, others: &[(usize, &str)], more: Option<usize>) -> Warning {
    let mut names: Vec<String> = others
        .iter()
        .map(|&(offset, what)| {
            let at = Location::of_offset(text, offset);
            format!("{what} at line {}, column {}", at.line, at.column)
        })
        .collect();
    if let Some(offset) = more {
        let at = Location::of_offset(text, offset);
        names.push(format!(
            "more brackets from line {} on were not searched",
            at.line
        ));
    }
    Warning::new(
        WarningKind::ExtraValue,
        format!(
            "the response holds more than one JSON value; the first that fits the type was read and the others were not: {}",
            names.join("; ")
        ),
    )
}

/// The error for a value that follows `"key":` with no object start before it: a piece
/// of a broken object, never accepted as the answer.
fn fragment(text: &str, candidate: &candidates::Candidate) -> ExtractResult {
    let error = PayloadError::new(
        ErrorKind::Parsing,
        "",
        "this value is a member of an object whose start could not be read",
    )
    .with_suggestion("send the whole object as strict JSON")
    .with_location(Location::of_offset(text, candidate.start));
    ExtractResult::failure("json", candidate.confidence, vec![error])
}

/// Whether a schema constrains nothing (`true`, or an object with only annotations):
/// a scalar is then as good an answer as any value.
fn accepts_anything(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(map) => !keywords::names_any(map, Property::Constrains),
        _ => false,
    }
}

/// A whole response that is one scalar, for types whose schema is a string, number,
/// boolean or enum at the top (a unit-only enum, say): `"formal"`, `formal`, `42`.
/// Text that does not parse as JSON is taken as a string only where strings are
/// allowed; the value is then validated and coerced like any other.
/// Whether the whole response (trimmed) is one strict JSON scalar. A text that opens
/// with a bracket is no scalar whether it reads or not, so it is not read here (the
/// candidates' search reads it once).
fn is_json_scalar(text: &str) -> bool {
    let trimmed = text.trim();
    !trimmed.starts_with(['{', '['])
        && serde_json::from_str::<Value>(trimmed)
            .is_ok_and(|value| !value.is_object() && !value.is_array())
}

/// Reads the value a JSON string holds (docs/values.md, "A value sent inside a string";
/// the rule is [`json::held`], the same wherever a value stands): as the response it
/// would have been, with a `repaired` warning, once (a string inside that is not read
/// again). Its errors keep their paths and point at the string, since their lines and
/// columns inside it are not the response's. A type read strictly refuses it.
fn read_held(
    text: &str,
    candidate: &candidates::Candidate,
    what: json::held::Held,
    payload: &PayloadType,
) -> ExtractResult {
    let origin = Location::of_offset(text, candidate.start);
    if !payload.compiled().policy().repair {
        let error = PayloadError::new(
            ErrorKind::Parsing,
            "",
            "the value was sent inside a JSON string and this type is read strictly (x-parsing error-recovery mode \"strict\")",
        )
        .with_suggestion(json::held::SEND_THE_VALUE)
        .with_location(origin);
        return ExtractResult::failure("json", 0.5, vec![error]);
    }
    let mut result = match what {
        json::held::Held::Value(inner) => {
            let mut result = extract_json_unchecked(&inner, payload);
            result.confidence = candidate.confidence;
            result
        }
        json::held::Held::Twice => {
            let error = PayloadError::new(
                ErrorKind::Parsing,
                "",
                "the value was sent as a JSON string inside a JSON string",
            )
            .with_suggestion(json::held::SEND_THE_VALUE);
            ExtractResult::failure("json", 0.5, vec![error])
        }
    };
    for error in &mut result.errors {
        error.details_mut().location = Some(origin);
    }
    result.warnings.insert(
        0,
        Warning::new(WarningKind::Repaired, json::held::UNWRAPPED),
    );
    result
}

fn scalar_response(text: &str, payload: &PayloadType) -> Option<ExtractResult> {
    let schema = payload.compiled().schema();
    let top = payload_schema::walk::resolve(schema, schema);
    let types = payload_schema::walk::types_of(top);
    let is_enum = payload_schema::walk::enum_values(schema, top).is_some();
    let scalar = ["string", "number", "integer", "boolean"];
    let trimmed = text.trim().trim_matches('`').trim();
    let parsed = json::strict_value(trimmed).filter(|v| !v.is_object() && !v.is_array());
    // A strict JSON scalar the schema accepts is an answer whatever the schema looks
    // like (one with `properties` but no `type` takes scalars too).
    let accepted = parsed
        .as_ref()
        .is_some_and(|value| payload.compiled().is_valid(value));
    if !accepted && !is_enum && !types.iter().any(|t| scalar.contains(t)) && !accepts_anything(top)
    {
        return None;
    }
    if trimmed.is_empty() || (!accepted && trimmed.contains('\n')) {
        return None;
    }
    if parsed.is_none() {
        // `"formal" | "casual"`: the choices copied from the instructions, not one of
        // them (docs/spec.md §3.4); never the text of the list taken as a string.
        // `trimmed` is a slice of `text`: its offset is the distance between them.
        let offset = trimmed.as_ptr() as usize - text.as_ptr() as usize;
        if let Err(error) = json::decode(trimmed, Location::of_offset(text, offset)) {
            if error.kind() == ErrorKind::Validation {
                return Some(ExtractResult::failure("json", 0.5, vec![error]));
            }
        }
    }
    // Bare text is a string only where the schema names strings or values: a schema
    // that constrains nothing takes JSON scalars, not any words at all.
    let strings = is_enum || types.contains(&"string");
    let value = match parsed {
        Some(value) => value,
        None if strings => Value::String(trimmed.to_string()),
        None => return None,
    };
    let mut warnings = Vec::new();
    let (value, errors, typed) = validate_coercing(payload, value, &mut warnings);
    Some(if errors.is_empty() {
        let mut result = ExtractResult::success(value, "json", 0.7, warnings);
        result.typed = typed;
        result
    } else {
        let mut failure = ExtractResult::failure("json", 0.5, errors);
        failure.partial_data = Some(value);
        failure
    })
}

fn read_candidate(
    text: &str,
    candidate: &mut candidates::Candidate,
    payload: &PayloadType,
) -> ExtractResult {
    let origin = Location::of_offset(text, candidate.start);
    let Some(end) = candidate.end else {
        let error = PayloadError::new(
            ErrorKind::Truncated,
            "",
            "the response ends before the JSON value closes",
        )
        .with_suggestion("send the whole value, closing every string, object and array")
        .with_location(origin);
        return ExtractResult::failure("json", candidate.confidence, vec![error]);
    };
    if let Some(error) = candidate.error.take() {
        return ExtractResult::failure("json", candidate.confidence, vec![error]);
    }
    let json_text = &text[candidate.start..end];
    let mut warnings = Vec::new();
    if candidate.fenced {
        warnings.push(Warning::new(
            WarningKind::Repaired,
            "removed the code fence around the value",
        ));
    }
    let decoded = match candidate.decoded.take() {
        Some(decoded) => decoded,
        None => match json::decode(json_text, origin) {
            Ok(decoded) => decoded,
            Err(error) => {
                return ExtractResult::failure("json", candidate.confidence, vec![error]);
            }
        },
    };
    if !decoded.repairs.is_empty() && !payload.compiled().policy().repair {
        let error = PayloadError::new(
            ErrorKind::Parsing,
            "",
            format!(
                "the JSON is not strict and this type is read strictly (x-parsing error-recovery mode \"strict\"): {}",
                decoded.repairs.join("; ")
            ),
        )
        .with_suggestion("write strict JSON: double-quoted keys and strings, no comments, no trailing commas")
        .with_location(origin);
        return ExtractResult::failure("json", candidate.confidence, vec![error]);
    }
    for repair in &decoded.repairs {
        warnings.push(Warning::new(WarningKind::Repaired, repair.clone()));
    }
    warnings.extend(decoded.duplicate_warnings(""));
    let mut decoded = decoded;
    let value = std::mem::take(&mut decoded.value);
    let (value, errors, typed) = validate_coercing(payload, value, &mut warnings);
    let errors = decoded.with_inexact_errors(errors);
    let confidence = candidate.confidence;
    if errors.is_empty() {
        let mut result = ExtractResult::success(value, "json", confidence, warnings);
        result.typed = typed;
        return result;
    }
    ExtractResult {
        success: false,
        data: None,
        errors: locate_errors(text, candidate.start, json_text, errors),
        partial_data: Some(value),
        format: "json".into(),
        confidence,
        warnings,
        reasoning: None,
        typed: None,
    }
}

/// Gives each error without a location the line and column of its path's value (for a
/// missing member, of the object that lacks it).
pub(crate) fn locate_errors(
    text: &str,
    json_start: usize,
    json_text: &str,
    mut errors: Vec<PayloadError>,
) -> Vec<PayloadError> {
    let lookups: Vec<String> = errors
        .iter()
        .map(|e| match e.kind() {
            ErrorKind::Missing => parent_pointer(e.path()).to_string(),
            _ => e.path().to_owned(),
        })
        .collect();
    let pointers: Vec<&str> = lookups.iter().map(String::as_str).collect();
    let offsets = locate::locate(json_text, &pointers);
    let mut cursor = (0usize, Location { line: 1, column: 1 });
    let mut order: Vec<usize> = (0..errors.len()).collect();
    order.sort_by_key(|&i| offsets.get(&lookups[i]).copied().unwrap_or(usize::MAX));
    for i in order {
        if errors[i].location().is_some() {
            continue;
        }
        let Some(&offset) = offsets.get(&lookups[i]) else {
            continue;
        };
        let absolute = json_start + offset;
        // Offsets are visited in increasing order: count each byte once.
        let (from, at) = cursor;
        let location = at.advance(&text[from..absolute]);
        cursor = (absolute, location);
        errors[i].details_mut().location = Some(location);
    }
    errors
}

fn parent_pointer(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}
