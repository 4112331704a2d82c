//! The guarantees of JSON reading, as checks shared by the property tests and the fuzz
//! targets (docs/spec.md §3, §4.4, §7.2, §7.3, §8.3). Each check panics with the input when a
//! guarantee is broken.
//!
//! - **Strict JSON is read as serde_json reads it**: when serde_json reads a text, the
//!   reader returns the same value with no repair.
//! - **Nothing repaired is unreported**: a value read with no repair and no note is the
//!   value serde_json reads from the same text.
//! - **What is read is JSON**: a value read serializes to JSON that reads back the same.
//! - **A cut-off value is never accepted**: no proper prefix of an object or array that
//!   leaves a bracket open is read as a value.
//! - **Whole-response mode never returns a smaller value silently**: a success is valid
//!   for its type, and when the response held other JSON values an `extra_value`
//!   warning says so.
//! - **No number changes silently** (docs/spec.md §7.2): every number read holds the literal it
//!   was read from (the float prints back as the same decimal, [`decimal`]), or its
//!   path is noted (an integer past 64 bits, a float literal whose digits are lost), and
//!   a noted number is never accepted by whole-response mode.
//! - **No member is dropped silently** (docs/spec.md §7.1): when the whole response is one
//!   object and is accepted, each of its members is declared by the type (or kept by
//!   a type that takes any member), or named in a warning.
//! - **Copied notation is not a value** (docs/spec.md §3.4): no string read as JSON holds
//!   quoted choices joined by repair (`Jobs" | "Applications`): such a string only
//!   comes from a text that wrote those quotes escaped or inside another quote style.
//! - **Detection is checked against the result** (docs/spec.md §4.7): when any named format
//!   reads a valid value, `auto` succeeds, unless the detected format found the
//!   response cut off (then `auto` fails with a `truncated` error); `auto`'s value is
//!   the one its format reads when named, and a value found by fallback says so with a
//!   `format_fallback` warning and a confidence of at most 0.5.
//! - **The compiled validation plan says only what is so** ([`check_plan`]): a value it
//!   finds clean is valid with nothing for the walk after validation to report, one
//!   it finds invalid is refused by the validator, and one it sends to be reported is
//!   refused or reported; so skipping the validator for clean values changes nothing.
//! - **A response's first value is read once** ([`check_first_value_read_once`]): the
//!   value a response starts with, read strictly from its bracket, is the candidate the
//!   scanner finds there, read as its span is.
//! - **Text that does not end inside a value is never `truncated`**, and a value sent
//!   inside a JSON string is read as the value wherever a value may stand
//!   ([`check_held_value`]): bare, in a fence, after a preamble or before closing prose,
//!   a value and the same value serialized twice read alike (the twice-sent one with a
//!   `repaired` warning first), and neither is ever cut off.
//! - **Compiled coercion is the coercion it replaced** ([`check_coercion`]): coercing a
//!   value with the schema compiled gives the value (its members in the same order) and
//!   the `coerced` warnings that reading the schema at every node gives.

use payload_core::__internals::balanced::{self, Balanced};
use payload_core::__internals::candidates;
use payload_core::__internals::coerce;
use payload_core::__internals::decode;
use payload_core::__internals::json::{self, Decoded};
use payload_core::__internals::plan::{self, Judged};
use payload_core::formats::Format;
use payload_core::{ErrorKind, ExtractResult, Location, PayloadType, WarningKind};
use serde_json::Value;

const ORIGIN: Location = Location { line: 1, column: 1 };

/// Checks the reading guarantees on any text; returns what was read.
pub fn check_json_text(text: &str) -> Option<Decoded> {
    let decoded = json::decode(text, ORIGIN);
    if let Ok(strict) = serde_json::from_str::<Value>(text) {
        let decoded = decoded
            .as_ref()
            .unwrap_or_else(|e| panic!("strict JSON refused: {e}\n{text:?}"));
        assert_eq!(
            decoded.value, strict,
            "strict JSON read differently: {text:?}"
        );
        assert!(
            decoded.repairs.is_empty(),
            "strict JSON was repaired ({:?}): {text:?}",
            decoded.repairs
        );
    }
    let decoded = decoded.ok()?;
    check_no_joined_choices(text, &decoded.value);
    let rendered = serde_json::to_string(&decoded.value).expect("a value serializes");
    let again = json::decode(&rendered, ORIGIN)
        .unwrap_or_else(|e| panic!("what was read does not read back: {e}\n{text:?}"));
    assert_eq!(again.value, decoded.value, "round trip changed {text:?}");
    if decoded.repairs.is_empty() && decoded.notes.is_empty() {
        // No repair and no note: the text was strict JSON (or nests deeper than
        // serde_json's own limit, which is one level short of ours).
        match serde_json::from_str::<Value>(text) {
            Ok(strict) => assert_eq!(strict, decoded.value, "{text:?}"),
            Err(e) => assert!(
                e.to_string().contains("recursion limit"),
                "read with no repair, but serde_json says {e}: {text:?}"
            ),
        }
    }
    check_numbers_held(text, &decoded);
    Some(decoded)
}

/// A decimal literal normalized by plain string handling (independently of the reader's
/// own rule): `(negative, significant digits, point)` for `0.digits × 10^point`, the
/// sign dropped for zero. `None` when `literal` is not `[+-]digits[.digits][e[+-]digits]`.
pub fn decimal(literal: &str) -> Option<(bool, String, i64)> {
    let (negative, rest) = match literal.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, literal.strip_prefix('+').unwrap_or(literal)),
    };
    let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !(int.bytes().all(|b| b.is_ascii_digit()) && frac.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_string();
    if digits.is_empty() {
        return Some((false, digits, 0));
    }
    Some((negative, digits, int.len() as i64 - lead as i64 + exponent))
}

/// Every number of `decoded` holds the literal it was read from, or its path is noted.
/// Only checked on texts up to 64 KiB (the literal scan here is the plain, slow one).
pub fn check_numbers_held(text: &str, decoded: &Decoded) {
    // A key written twice locates its first value, not the one kept.
    if text.len() > 1 << 16 || decoded.has_duplicates() {
        return;
    }
    let mut numbers = Vec::new();
    let mut stack = vec![(String::new(), &decoded.value)];
    while let Some((path, value)) = stack.pop() {
        match value {
            Value::Number(number) => numbers.push((path, number)),
            Value::Array(items) => stack.extend(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (format!("{path}/{i}"), item)),
            ),
            Value::Object(members) => stack.extend(members.iter().map(|(key, member)| {
                let token = key.replace('~', "~0").replace('/', "~1");
                (format!("{path}/{token}"), member)
            })),
            _ => {}
        }
    }
    let pointers: Vec<&str> = numbers.iter().map(|(path, _)| path.as_str()).collect();
    let offsets = payload_core::__internals::locate::locate(text, &pointers);
    let noted = decoded.notes.imprecise_paths();
    for (path, number) in &numbers {
        let Some(&at) = offsets.get(path) else {
            continue;
        };
        let literal: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
            .collect();
        let Some(written) = decimal(&literal) else {
            continue;
        };
        let held = if number.is_i64() || number.is_u64() {
            decimal(&number.to_string())
        } else {
            number.as_f64().and_then(|f| decimal(&format!("{f:e}")))
        };
        if held.as_ref() == Some(&written) {
            continue;
        }
        assert!(
            noted.contains(&path.as_str()) || decoded.notes.inexact_paths().contains(path),
            "the number {literal} at {path} was read as {number} without a note: {text:?}"
        );
    }
}

/// Checks that no proper prefix of `complete` (an object or an array, written in any
/// style the reader accepts) that leaves a bracket open is read as a value: a cut-off
/// value is an error. (Where brackets are open is the balanced scanner's one rule.)
pub fn check_cut_off(complete: &str) {
    let complete = complete.trim_end();
    if !(complete.starts_with('{') || complete.starts_with('[')) {
        return;
    }
    if json::decode(complete, ORIGIN).is_err() {
        return;
    }
    for (cut, _) in complete.char_indices().skip(1) {
        let prefix = &complete[..cut];
        // A prefix that closes everything it opened (`{"a": [1}` closes the array with
        // the object's brace) is a whole value of its own, not a cut-off one.
        if balanced::scan(prefix, 0) != Balanced::Truncated {
            continue;
        }
        if let Ok(decoded) = json::decode(prefix, ORIGIN) {
            panic!(
                "a cut-off value was accepted as {}: {prefix:?}",
                decoded.value
            );
        }
    }
}

/// Checks whole-response extraction of `text` as `payload`: a success carries valid
/// data, and names every other JSON value of the response in an `extra_value` warning.
/// `values_in_text` is how many complete top-level JSON values the caller put in it.
pub fn check_extract(text: &str, payload: &PayloadType, values_in_text: usize) {
    let result = payload_core::extract_as(text, payload, Some(payload_core::formats::Format::Json));
    assert_eq!(result.success, result.data.is_some(), "{text:?}");
    if let Some(data) = &result.data {
        assert!(
            payload.validate(data).is_ok(),
            "a success that does not validate: {data}\n{text:?}"
        );
        check_members_accounted(text, payload, &result.warnings);
        if let Ok(decoded) = json::decode(text, ORIGIN) {
            assert!(
                decoded.notes.imprecise_paths().is_empty()
                    && decoded.notes.inexact_paths().is_empty(),
                "a number that differs from its literal was accepted: {text:?}"
            );
        }
        check_no_joined_choices(text, data);
        if values_in_text > 1 {
            assert!(
                result
                    .warnings
                    .iter()
                    .any(|w| w.kind == WarningKind::ExtraValue),
                "{values_in_text} values, one read, no extra_value warning: {text:?}"
            );
        }
    }
}

/// Text that does not end inside a value is never `truncated` (module docs): `value`,
/// written as JSON and as a JSON string holding that JSON, bare or in a fence, between
/// `before` and `after` (prose with no bracket, quote or backtick, which the caller
/// keeps so), reads as `payload` with no `truncated` error, and the string reads as
/// the value does: the same success, data and errors, with a `repaired` warning first.
pub fn check_held_value(before: &str, value: &Value, after: &str, payload: &PayloadType) {
    // Prose that goes on with a comma after an object (`{...},a: 1`) is what the rule of
    // an early close reads on as more members (`read_on` in whole/extract/candidates.rs:
    // they must read, or the value is an error, never the smaller object): there the plain value
    // is not followed by prose, and only a string holding it is. Such prose is not this
    // check's to judge, so its leading commas (and the space among them) are dropped.
    let after = after.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
    let json = value.to_string();
    let held = serde_json::to_string(&json).expect("a string serializes");
    for fenced in [false, true] {
        let wrap = |inner: &str| {
            if fenced {
                format!("{before}\n```json\n{inner}\n```\n{after}")
            } else {
                format!("{before}{inner}{after}")
            }
        };
        let (plain_text, held_text) = (wrap(&json), wrap(&held));
        let plain = payload_core::extract_json(&plain_text, payload);
        let read = payload_core::extract_json(&held_text, payload);
        for (text, result) in [(&plain_text, &plain), (&held_text, &read)] {
            assert!(
                result
                    .errors
                    .iter()
                    .all(|e| e.kind() != ErrorKind::Truncated),
                "a text that does not end inside a value is truncated: {text:?} -> {result:?}"
            );
        }
        assert_eq!(read.success, plain.success, "{held_text:?} -> {read:?}");
        assert_eq!(read.data, plain.data, "{held_text:?}");
        let kinds = |r: &ExtractResult| r.errors.iter().map(|e| e.kind()).collect::<Vec<_>>();
        assert_eq!(kinds(&read), kinds(&plain), "{held_text:?}");
        assert!(
            read.warnings
                .first()
                .is_some_and(|w| w.kind == WarningKind::Repaired),
            "a value read out of a string says so: {held_text:?} -> {read:?}"
        );
    }
}

/// Prose for [`check_held_value`] made of `data` (each byte picks a character): letters,
/// digits, spaces, line breaks and punctuation, never a bracket, a quote or a backtick.
pub fn prose_from_bytes(data: &[u8]) -> String {
    const PROSE: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789 ,.!?:;-\n\t";
    data.iter()
        .map(|&b| PROSE[b as usize % PROSE.len()] as char)
        .collect()
}

/// Checks that every member of `text` (when it is one object) is declared by the
/// type's top-level schema, kept by a type that takes any member, or named in one of
/// the `warnings`.
fn check_members_accounted(text: &str, payload: &PayloadType, warnings: &[payload_core::Warning]) {
    let Ok(decoded) = json::decode(text, ORIGIN) else {
        return;
    };
    let Value::Object(members) = decoded.value else {
        return;
    };
    let root = &payload.schema(payload_core::schema::Dialect::Draft2020_12);
    let top = payload_schema::walk::resolve(root, root);
    let mut declared = Vec::new();
    let mut open = false;
    let mut shapes = vec![top];
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(branches)) = top.get(key) {
            shapes.extend(
                branches
                    .iter()
                    .map(|b| payload_schema::walk::resolve(root, b)),
            );
        }
    }
    for shape in shapes {
        if let Some(Value::Object(properties)) = shape.get("properties") {
            declared.extend(properties.keys().cloned());
        }
        if shape
            .get("additionalProperties")
            .is_some_and(|a| a != &Value::Bool(false))
        {
            open = true;
        }
    }
    if open {
        return;
    }
    for key in members.keys() {
        if declared.iter().any(|d| d == key) {
            continue;
        }
        assert!(
            warnings.iter().any(|w| w.message.contains(key.as_str()))
                || warnings.iter().any(|w| w.kind == WarningKind::Omitted),
            "the member `{key}` was dropped without a word: {text:?}"
        );
    }
}

/// Whether `s` holds a double quote, whitespace, `|`, whitespace and a double quote:
/// the joint of two quoted choices.
fn joins_choices(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        if b != b'"' {
            return false;
        }
        let mut j = i + 1;
        while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        if bytes.get(j) != Some(&b'|') {
            return false;
        }
        j += 1;
        while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        bytes.get(j) == Some(&b'"')
    })
}

/// Checks that no string in `value`, read as JSON from `text`, joins quoted choices
/// (docs/spec.md §3.4): one that holds `" | "` needs a text that wrote a quote escaped (`\"`)
/// or used another quote style, where the double quotes are the string's own text.
pub fn check_no_joined_choices(text: &str, value: &Value) {
    let quoted_otherwise = text.contains("\\\"")
        || text.contains(['\'', '\u{201C}', '\u{201D}', '\u{2018}', '\u{2019}']);
    if quoted_otherwise {
        return;
    }
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) => assert!(
                !joins_choices(s),
                "quoted choices were joined into one string {s:?}: {text:?}"
            ),
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => {
                for (key, member) in members {
                    assert!(
                        !joins_choices(key),
                        "quoted choices were joined into one key {key:?}: {text:?}"
                    );
                    stack.push(member);
                }
            }
            _ => {}
        }
    }
}

/// Checks `auto` extraction of `text` as `payload` against every named format (docs/spec.md
/// §4.7, module docs); returns the `auto` result. Reads the text six times.
pub fn check_auto(text: &str, payload: &PayloadType) -> ExtractResult {
    let auto = payload_core::extract_as(text, payload, None);
    assert_eq!(auto.success, auto.data.is_some(), "{text:?}");
    let mut readable = None;
    for format in Format::ALL {
        let named = payload_core::extract_as(text, payload, Some(format));
        if named.success {
            readable.get_or_insert(format);
        }
        if auto.success && auto.format == format.as_str() {
            assert!(
                named.success && named.data == auto.data,
                "auto read {} as {format}, which reads it as {:?}: {text:?}",
                auto.data.as_ref().map(Value::to_string).unwrap_or_default(),
                named.data
            );
        }
    }
    if let Some(format) = readable {
        assert!(
            auto.success || auto.errors.iter().any(|e| e.kind() == ErrorKind::Truncated),
            "{format} reads a valid value but auto fails with {:?}: {text:?}",
            auto.errors
        );
    }
    let Some(data) = &auto.data else {
        return auto;
    };
    assert!(
        payload.validate(data).is_ok(),
        "a success that does not validate: {data}\n{text:?}"
    );
    if auto
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::FormatFallback)
    {
        assert!(
            auto.confidence <= 0.5,
            "a fallback claims confidence {}: {text:?}",
            auto.confidence
        );
    }
    if auto.format == Format::Json.as_str() {
        check_no_joined_choices(text, data);
    }
    auto
}

/// Checks the compiled validation plan of `payload` on `value` against the validator and
/// the walk after validation, and validation's lazy step 0 against the eager one
/// ([`check_lazy_step_0`]); returns what the plan, the validator and the walk said.
pub fn check_plan(payload: &PayloadType, value: &Value) -> Judged {
    check_lazy_step_0(payload, value);
    let judged = plan::judge(payload, value);
    assert!(
        judged.agrees(),
        "the plan of {} says {:?}, the validator {} and the walk {}: {value}",
        payload.name,
        judged.verdict,
        if judged.valid { "accepts" } else { "refuses" },
        if judged.walk_reports {
            "reports"
        } else {
            "reports nothing"
        },
    );
    judged
}

/// Checks that whole-response mode, reading strictly the value a response starts with,
/// finds the candidates the scanner alone finds, each read as its span is.
pub fn check_first_value_read_once(text: &str) {
    let [strict, scanned] = candidates::both_readings(text);
    assert_eq!(strict, scanned, "the strict read differs: {text:?}");
}

/// Checks that coercing `value` toward `payload` with its compiled coercion gives what
/// the reference walk (the schema read at every node) gives: the same value, members in
/// the same order, and the same warnings.
pub fn check_coercion(payload: &PayloadType, value: &Value) {
    let [
        (compiled, compiled_warnings),
        (reference, reference_warnings),
    ] = coerce::both(payload, value);
    assert_eq!(
        (compiled.to_string(), &compiled_warnings),
        (reference.to_string(), &reference_warnings),
        "compiled coercion toward {} differs: {value}",
        payload.name
    );
}

/// Checks that validation's step 0 done lazily (the schema's errors built for the
/// alias test only when a candidate name needs them, serde asked only what the test
/// reads) finds what the eager step finds on `value`: the same value, errors and
/// warnings.
pub fn check_lazy_step_0(payload: &PayloadType, value: &Value) {
    let (lazy, eager) = decode::checks(payload, value);
    assert_eq!(
        lazy, eager,
        "step 0 of {} differs when lazy: {value}",
        payload.name
    );
}
