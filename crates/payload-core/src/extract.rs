//! Whole-response mode (SPEC section 4): the model's whole answer is one value of a
//! type, written as JSON, bare or in a code fence or with prose around it.
//!
//! The pipeline is strict first: locate the value, parse it with serde_json, validate.
//! Only when that fails does it repair the JSON ([`crate::repair`]) and coerce it toward
//! the schema ([`crate::coerce`]), each fix reported as a warning. A value cut off
//! before it closes is `truncated` and never accepted.

use crate::balanced::{self, Balanced};
use crate::caps::Capped;
use crate::coerce;
use crate::error::{ErrorKind, Location, PayloadError};
use crate::formats::{self, Format};
use crate::json;
use crate::limits::Limits;
use crate::locate;
use crate::payload::{LlmPayload, PayloadType, Shape};
use crate::warning::{Warning, WarningKind};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// How many places a value might start are tried before giving up. Candidates never
/// overlap (a complete one is skipped whole, a cut-off one ends the search), so the
/// scans together read the text once.
const MAX_CANDIDATES: usize = 16;

/// The standard result of whole-response parsing, serialized as SPEC section 4 shows:
/// `{success: true, data, format, confidence, warnings}` or
/// `{success: false, errors, partial_data, format, confidence}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractResult {
    /// Whether `data` holds a valid value.
    pub success: bool,
    /// The valid value (when `success`).
    pub data: Option<Value>,
    /// Every problem found (when not `success`).
    pub errors: Vec<PayloadError>,
    /// What could be read, valid or not (when not `success`).
    pub partial_data: Option<Value>,
    /// The format the response was read as.
    pub format: String,
    /// How sure the reader is of the format (0..1).
    pub confidence: f64,
    /// What was repaired or coerced.
    pub warnings: Vec<Warning>,
}

impl Serialize for ExtractResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("success", &self.success)?;
        if self.success {
            map.serialize_entry("data", &self.data)?;
        } else {
            map.serialize_entry("errors", &self.errors)?;
            map.serialize_entry("partial_data", &self.partial_data)?;
        }
        map.serialize_entry("format", &self.format)?;
        map.serialize_entry("confidence", &self.confidence)?;
        if self.success {
            map.serialize_entry("warnings", &self.warnings)?;
        }
        map.end()
    }
}

impl ExtractResult {
    /// A failure with `errors` and nothing readable.
    pub fn failure(format: &str, confidence: f64, errors: Vec<PayloadError>) -> Self {
        ExtractResult {
            success: false,
            data: None,
            errors,
            partial_data: None,
            format: format.to_string(),
            confidence,
            warnings: Vec::new(),
        }
    }

    /// The data as `T` (when successful).
    pub fn decode<T: LlmPayload>(&self) -> Option<T> {
        self.data.as_ref().and_then(|d| T::deserialize(d).ok())
    }
}

/// Reads the whole response `text` as one `T`, written as JSON.
pub fn extract<T: LlmPayload>(text: &str) -> (Option<T>, ExtractResult) {
    let result = extract_json(text, &T::TYPE);
    (result.decode(), result)
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
pub fn extract_as_with(
    text: &str,
    payload: &PayloadType,
    format: Option<Format>,
    limits: Limits,
) -> ExtractResult {
    if let Err(error) = limits.check_input(text.len()) {
        let name = format.map_or("json", Format::as_str);
        return ExtractResult::failure(name, 0.0, vec![error]);
    }
    let schema = payload.compiled().schema();
    let scores = formats::detect(text, schema);
    let (format, confidence) = match format {
        Some(format) => (
            format,
            scores
                .iter()
                .find(|(f, _)| *f == format)
                .map_or(0.0, |(_, score)| *score),
        ),
        None => scores.first().copied().unwrap_or((Format::Json, 0.0)),
    };
    if format == Format::Json {
        // The JSON reader scores its own confidence from where the value sits.
        return extract_json_unchecked(text, payload);
    }
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
    let (value, errors) = validate_coercing(payload, value, &mut warnings);
    if errors.is_empty() {
        return ExtractResult {
            success: true,
            data: Some(value),
            errors: Vec::new(),
            partial_data: None,
            format: name.to_string(),
            confidence,
            warnings,
        };
    }
    let errors = errors
        .into_iter()
        .map(|mut error| {
            if error.kind == ErrorKind::Missing {
                let field = error
                    .path
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let hint = formats::format_hint(format, &field, schema);
                error.suggestion = Some(match error.suggestion.take() {
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
    }
}

/// Checks `value` ([`PayloadType::check`]); when that fails, coerces it toward the
/// schema in place and checks it again, keeping the coercion warnings only if they made
/// it valid. Returns the value (coerced when coercion changed it) and the errors that
/// remain. `warnings` gains the `unknown_member` warnings and, since this is
/// whole-response mode (SPEC 7.11), a `coerced` warning for every integer-valued float
/// taken as an integer; it holds at most 100 warnings, then one that counts the rest.
fn validate_coercing(
    payload: &PayloadType,
    mut value: Value,
    warnings: &mut Vec<Warning>,
) -> (Value, Vec<PayloadError>) {
    let mut report = Capped::warnings();
    report.extend(warnings.drain(..));
    let first = payload.check(&mut value);
    if first.is_valid() {
        report.absorb(first.rewrites);
        report.absorb(first.warnings);
        *warnings = report.finish();
        return (value, Vec::new());
    }
    let mut fixes = Capped::warnings();
    coerce::coerce_into(&mut value, payload.compiled().schema(), &mut fixes);
    if fixes.is_empty() {
        *warnings = report.finish();
        return (value, first.errors);
    }
    let second = payload.check(&mut value);
    if second.is_valid() {
        report.absorb(first.rewrites);
        report.absorb(fixes);
        report.absorb(second.rewrites);
        report.absorb(second.warnings);
        *warnings = report.finish();
        return (value, Vec::new());
    }
    *warnings = report.finish();
    (value, second.errors)
}

/// Reads the whole response `text` as one value of `payload`, written as JSON (refused
/// when over the default size limit).
pub fn extract_json(text: &str, payload: &PayloadType) -> ExtractResult {
    if let Err(error) = Limits::DEFAULT.check_input(text.len()) {
        return ExtractResult::failure("json", 0.0, vec![error]);
    }
    extract_json_unchecked(text, payload)
}

fn extract_json_unchecked(text: &str, payload: &PayloadType) -> ExtractResult {
    let candidates = candidates(text);
    if candidates.is_empty() {
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
    let mut first_failure: Option<ExtractResult> = None;
    for candidate in candidates {
        let attempt = read_candidate(text, candidate, payload);
        if attempt.success {
            return attempt;
        }
        first_failure.get_or_insert(attempt);
    }
    first_failure.expect("at least one candidate was tried")
}

/// A whole response that is one scalar, for types whose schema is a string, number,
/// boolean or enum at the top (a unit-only enum, say): `"formal"`, `formal`, `42`.
/// Text that does not parse as JSON is taken as a string only where strings are
/// allowed; the value is then validated and coerced like any other.
fn scalar_response(text: &str, payload: &PayloadType) -> Option<ExtractResult> {
    let schema = payload.compiled().schema();
    let top = crate::schema_walk::resolve(schema, schema);
    let types = crate::schema_walk::types_of(top);
    let is_enum = crate::schema_walk::enum_values(schema, top).is_some();
    let scalar = ["string", "number", "integer", "boolean"];
    if !is_enum && !types.iter().any(|t| scalar.contains(t)) {
        return None;
    }
    let trimmed = text.trim().trim_matches('`').trim();
    if trimmed.is_empty() || trimmed.contains('\n') {
        return None;
    }
    let value = serde_json::from_str::<Value>(trimmed)
        .ok()
        .filter(|v| !v.is_object() && !v.is_array())
        .unwrap_or_else(|| Value::String(trimmed.to_string()));
    let mut warnings = Vec::new();
    let (value, errors) = validate_coercing(payload, value, &mut warnings);
    Some(if errors.is_empty() {
        ExtractResult {
            success: true,
            data: Some(value),
            errors,
            partial_data: None,
            format: "json".into(),
            confidence: 0.7,
            warnings,
        }
    } else {
        let mut failure = ExtractResult::failure("json", 0.5, errors);
        failure.partial_data = Some(value);
        failure
    })
}

/// Where a value might be: its text range, whether it is cut off, and how confident
/// its position makes us that it is the answer.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    start: usize,
    end: Option<usize>,
    confidence: f64,
    fenced: bool,
}

/// Every place a value might start, in order. Both brackets are candidates whatever the
/// schema's shape: a bare array where an object with one array member is wanted is a
/// coercion the schema allows, and any other mismatch is reported as such.
fn candidates(text: &str) -> Vec<Candidate> {
    let trimmed_start = text.len() - text.trim_start().len();
    let mut found = Vec::new();
    // A fenced block first, when the response is fenced: the fence says "this is it".
    if let Some(fence) = fenced_value(text) {
        found.push(fence);
    }
    let bytes = text.as_bytes();
    let mut from = 0;
    while found.len() < MAX_CANDIDATES {
        let Some(rel) = memchr::memchr2(b'{', b'[', &bytes[from..]) else {
            break;
        };
        let start = from + rel;
        let whole = start == trimmed_start;
        match balanced::scan(text, start) {
            Balanced::Complete { end } => {
                let alone = whole && text[end..].trim().is_empty();
                if !found.iter().any(|c: &Candidate| c.start == start) {
                    found.push(Candidate {
                        start,
                        end: Some(end),
                        confidence: if alone { 0.95 } else { 0.8 },
                        fenced: false,
                    });
                }
                from = end;
            }
            Balanced::Truncated => {
                found.push(Candidate {
                    start,
                    end: None,
                    confidence: if whole { 0.9 } else { 0.6 },
                    fenced: false,
                });
                // Every later opener is inside the cut-off value: accepting one would
                // accept part of a truncated answer, so the search ends here.
                break;
            }
        }
    }
    found
}

/// The value inside the first ```` ``` ```` fence, if the fence holds one.
fn fenced_value(text: &str) -> Option<Candidate> {
    let open = text.find("```")?;
    let after = open + 3;
    let body_start = after
        + text[after..]
            .find('\n')
            .filter(|&n| {
                text[after..after + n]
                    .trim()
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric())
            })
            .map_or(0, |n| n + 1);
    let rel = text[body_start..].find(|c: char| !c.is_whitespace())?;
    let start = body_start + rel;
    if !matches!(text.as_bytes()[start], b'{' | b'[') {
        return None;
    }
    let end = match balanced::scan(text, start) {
        Balanced::Complete { end } => Some(end),
        Balanced::Truncated => None,
    };
    Some(Candidate {
        start,
        end,
        confidence: 0.9,
        fenced: true,
    })
}

fn read_candidate(text: &str, candidate: Candidate, payload: &PayloadType) -> ExtractResult {
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
    let json_text = &text[candidate.start..end];
    let mut warnings = Vec::new();
    if candidate.fenced {
        warnings.push(Warning::new(
            WarningKind::Repaired,
            "removed the code fence around the value",
        ));
    }
    let decoded = match json::decode(json_text, origin) {
        Ok(decoded) => decoded,
        Err(error) => return ExtractResult::failure("json", candidate.confidence, vec![error]),
    };
    for repair in &decoded.repairs {
        warnings.push(Warning::new(WarningKind::Repaired, repair.clone()));
    }
    let (value, errors) = validate_coercing(payload, decoded.value, &mut warnings);
    let confidence = candidate.confidence;
    if errors.is_empty() {
        return ExtractResult {
            success: true,
            data: Some(value),
            errors: Vec::new(),
            partial_data: None,
            format: "json".into(),
            confidence,
            warnings,
        };
    }
    ExtractResult {
        success: false,
        data: None,
        errors: locate_errors(text, candidate.start, json_text, errors),
        partial_data: Some(value),
        format: "json".into(),
        confidence,
        warnings,
    }
}

/// Gives each error without a location the line and column of its path's value (for a
/// missing member, of the object that lacks it).
pub fn locate_errors(
    text: &str,
    json_start: usize,
    json_text: &str,
    mut errors: Vec<PayloadError>,
) -> Vec<PayloadError> {
    let lookups: Vec<String> = errors
        .iter()
        .map(|e| match e.kind {
            ErrorKind::Missing => parent_pointer(&e.path).to_string(),
            _ => e.path.clone(),
        })
        .collect();
    let pointers: Vec<&str> = lookups.iter().map(String::as_str).collect();
    let offsets = locate::locate(json_text, &pointers);
    let mut cursor = (0usize, Location { line: 1, column: 1 });
    let mut order: Vec<usize> = (0..errors.len()).collect();
    order.sort_by_key(|&i| offsets.get(&lookups[i]).copied().unwrap_or(usize::MAX));
    for i in order {
        if errors[i].location.is_some() {
            continue;
        }
        let Some(&offset) = offsets.get(&lookups[i]) else {
            continue;
        };
        let absolute = json_start + offset;
        // Offsets are visited in increasing order: count each byte once.
        let (from, at) = cursor;
        let span = &text[from..absolute];
        let location = match span.rfind('\n') {
            Some(nl) => Location {
                line: at.line + span.matches('\n').count(),
                column: span[nl + 1..].chars().count() + 1,
            },
            None => Location {
                line: at.line,
                column: at.column + span.chars().count(),
            },
        };
        cursor = (absolute, location);
        errors[i].location = Some(location);
    }
    errors
}

fn parent_pointer(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}
