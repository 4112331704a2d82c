//! `auto`: detection checked against the result (docs/spec.md §4.7).
//!
//! Detection guesses a format from signs in the text (a leading `<`, headers, marker
//! lines); the guess can be wrong while the answer is there (`<command>{...}</command>`
//! looks like XML and holds JSON). So the detected format is read first, and when it
//! gives no valid value the other formats the type allows are read in turn:
//!
//! 1. the detected format (its value wins whenever it is valid, even if others are);
//! 2. a JSON value embedded anywhere in the text, unless JSON was the detected format;
//! 3. the remaining formats, best detection score first (ties in [`Format::ALL`] order).
//!
//! The first that gives a valid value wins, with a `format_fallback` warning naming
//! the detected format and the one read. Each format is read at most once, and every
//! reader is linear, so `auto` costs at most five readings of the text plus detection.
//! Nothing assumes the value starts the response: each reader finds its own structure
//! wherever it is (prose, reasoning removed before detection, a wrapper tag).
//!
//! **Confidence.** A value found by fallback has half the confidence its format would
//! have had on its own (the detector's score for it; for JSON, the score of where the
//! value sits): the detector's first reading was wrong, and the number says so. A
//! fallback result therefore never scores above 0.5.
//!
//! **Cut-off responses.** When the detected format says the text ends inside the value
//! (a `truncated` error), nothing else is tried: the response was cut, and another
//! format would accept a piece of it (tags inside a cut JSON string, a JSON value
//! inside a cut XML element). A cut value is never accepted.
//!
//! **Total failure.** The errors are the detected format's, as without fallback: they
//! say how the response reads in the format it looks like, which is what a re-prompt
//! should fix. The other formats are summarized in one `format_fallback` warning on
//! the result (each format tried, and its first error).

use super::policy;
use super::result::ExtractResult;
use crate::error::ErrorKind;
use crate::formats::{self, Format};
use crate::payload::PayloadType;
use crate::warning::{Warning, WarningKind};

/// How much of a fallback format's own confidence its result keeps.
const FALLBACK_CONFIDENCE: f64 = 0.5;

/// At most this many characters of each format's first error are quoted in the
/// summary of a total failure.
const SUMMARY_CHARS: usize = 120;

/// Reads `text` as `payload` in the detected format, falling back to the others (see
/// the module docs), each format's attempt made by `read_in` (the reader of one
/// format, passed in so that this file does not name the file that calls it). The
/// result has been through the type's x-parsing policy.
pub(super) fn read_auto(
    text: &str,
    payload: &PayloadType,
    read_in: impl Fn(&str, &PayloadType, Format, f64) -> ExtractResult,
) -> ExtractResult {
    let compiled = payload.compiled();
    let policy = compiled.policy();
    let mut scores = formats::detect(text, compiled.schema());
    // The schema's x-parsing may limit which formats are considered.
    scores.retain(|(f, _)| policy.allows(*f));
    if scores.is_empty() {
        scores.push((Format::Json, 0.0));
    }
    let order = order(&scores);
    let (detected, score) = order[0];
    let first = policy::finish(policy, read_in(text, payload, detected, score));
    if first.success
        || first
            .errors
            .iter()
            .any(|e| e.kind() == ErrorKind::Truncated)
    {
        return first;
    }
    let mut tried = Vec::new();
    for &(format, score) in &order[1..] {
        let attempt = policy::finish(policy, read_in(text, payload, format, score));
        if attempt.success {
            return fell_back(attempt, detected, &first);
        }
        // Only what the summary quotes is kept, not the attempt's partial value.
        let why = attempt.errors.first().map(|e| excerpt(e.message()));
        tried.push((format, why));
    }
    summarize(first, &tried)
}

/// The order formats are read in: the detected one (the best score), then JSON, then
/// the rest by score. `scores` is sorted best first and names each format once.
pub(super) fn order(scores: &[(Format, f64)]) -> Vec<(Format, f64)> {
    let mut order = Vec::with_capacity(scores.len());
    order.push(scores[0]);
    order.extend(
        scores[1..]
            .iter()
            .filter(|(f, _)| *f == Format::Json)
            .copied(),
    );
    order.extend(
        scores[1..]
            .iter()
            .filter(|(f, _)| *f != Format::Json)
            .copied(),
    );
    order
}

/// A value read in `result.format` after `detected` gave none: lower confidence and a
/// warning that names both formats and why the detected one failed.
fn fell_back(mut result: ExtractResult, detected: Format, first: &ExtractResult) -> ExtractResult {
    result.confidence *= FALLBACK_CONFIDENCE;
    let why = first
        .errors
        .first()
        .map(|e| format!(" ({})", excerpt(e.message())))
        .unwrap_or_default();
    let read_as = result
        .format
        .parse::<Format>()
        .map_or(result.format.clone(), |f| f.label().to_string());
    let warning = Warning::new(
        WarningKind::FormatFallback,
        format!(
            "the response looks like {} but gives no valid value in it{why}; it was read as {read_as} instead",
            detected.label()
        ),
    );
    result.warnings.insert(0, warning);
    result
}

/// The detected format's failure, with a `format_fallback` warning that says which
/// other formats were read and why each gave no valid value (its first error, cut).
fn summarize(mut first: ExtractResult, tried: &[(Format, Option<String>)]) -> ExtractResult {
    if tried.is_empty() {
        return first;
    }
    let each: Vec<String> = tried
        .iter()
        .map(|(format, why)| match why {
            Some(why) => format!("{}: {why}", format.as_str()),
            None => format.as_str().to_string(),
        })
        .collect();
    first.warnings.push(Warning::new(
        WarningKind::FormatFallback,
        format!(
            "also read as {}: none gave a valid value ({})",
            tried
                .iter()
                .map(|(f, _)| f.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            each.join("; ")
        ),
    ));
    first
}

/// At most [`SUMMARY_CHARS`] characters of `message`, marked when cut.
fn excerpt(message: &str) -> String {
    match message.char_indices().nth(SUMMARY_CHARS) {
        Some((at, _)) => format!("{}...", &message[..at]),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests;
