//! Where a whole response's JSON value might be: every place a value could start,
//! found in one pass over the text.
//!
//! The pass reads the text as a person would. A value found at `{` or `[` is skipped
//! whole (its end found by the balanced scanner, strings and all), so nothing inside a
//! value is ever a candidate or a fence: a code fence written inside a JSON string is
//! text. A fence ([`crate::fence`]: backticks or tildes, closed by at least as many)
//! counts only at the start of a line, and the value right after its opener line is
//! the fenced candidate, tried first. A value written after `"key":` is
//! a member of an object whose start is missing, never an answer on its own. A value
//! that closes too early (`{"a": 1}, "b": 2}`) is read on by the lenient reader to its
//! real end, so its last members are kept, not dropped. A strict JSON string that
//! holds a whole value (`"{\"a\": 1}"`, [`crate::json::held`]) is a candidate of its own,
//! found at the bracket right after its opening quote and skipped whole: the value it
//! holds is read, and nothing in it is ever a cut-off value.

use crate::error::{ErrorKind, Location, PayloadError};
use crate::fence::{self, Fence};
use crate::json::held::{self, Held};
use crate::json::repair;
use crate::json::{self, Decoded};
use crate::scan::value::value_end;

/// How many candidates are collected before the search stops (and says that more
/// were there). Candidates never overlap, so the search reads the text once.
pub(super) const MAX_CANDIDATES: usize = 16;

/// A place a value might be.
#[derive(Debug)]
pub(super) struct Candidate {
    /// Offset of its `{` or `[`.
    pub(super) start: usize,
    /// Offset just past its end, or `None` when the text ends inside it.
    pub(super) end: Option<usize>,
    /// How sure its position makes us that it is the answer.
    pub(super) confidence: f64,
    /// Whether it is the first thing inside a code fence.
    pub(super) fenced: bool,
    /// Whether it follows `"key":`, as a member of an object whose start is missing.
    pub(super) member: bool,
    /// The value already read, when reading it was how its end was found.
    pub(super) decoded: Option<Decoded>,
    /// Why it cannot be read, when finding its end showed that: an object closed too
    /// early whose remaining members do not read.
    pub(super) error: Option<PayloadError>,
    /// What it holds, when it is a JSON string holding a value (`start` is its quote).
    pub(super) held: Option<Held>,
}

/// The candidates in `text`, in text order, and the offset of the first place a value
/// could start that was not collected because [`MAX_CANDIDATES`] were found first.
pub(super) fn candidates(text: &str) -> (Vec<Candidate>, Option<usize>) {
    find(text, Reading::Strict)
}

/// How the value at the start of a response is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Strictly from its bracket, its end where the strict read ends.
    Strict,
    /// Its end found by the scanner alone: what the strict read must equal.
    #[cfg_attr(not(any(test, feature = "__internals")), allow(dead_code))]
    Scanning,
}

fn find(text: &str, reading: Reading) -> (Vec<Candidate>, Option<usize>) {
    let bytes = text.as_bytes();
    let first = text.len() - text.trim_start().len();
    let mut found: Vec<Candidate> = Vec::new();
    // The fence open at `at` (the one fence rule, docs/spec.md §9.2), and where the value right
    // after its opener line would start.
    let mut open: Option<Fence> = None;
    let mut fenced_at = None;
    let mut at = 0;
    // A line whose start has not been read yet: fences count only at a line's start
    // (after indentation: a list item's fence is still a fence), outside values.
    let mut line = Some(0);
    loop {
        if let Some(line_start) = line.take() {
            let line_end =
                memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i);
            let content = &text[line_start..line_end];
            match open {
                Some(fence) if fence::closes(content, fence) => {
                    open = None;
                    fenced_at = None;
                    at = line_end;
                }
                None => {
                    if let Some(fence) = fence::opener(content) {
                        open = Some(fence);
                        fenced_at = Some(skip_whitespace(text, (line_end + 1).min(bytes.len())));
                        at = line_end;
                    }
                }
                Some(_) => {}
            }
        }
        let Some(rel) = memchr::memchr3(b'{', b'[', b'\n', &bytes[at..]) else {
            break;
        };
        let start = at + rel;
        if bytes[start] == b'\n' {
            line = Some(start + 1);
            at = start + 1;
            continue;
        }
        if found.len() == MAX_CANDIDATES {
            return (found, Some(start));
        }
        if let Some(quote) = held::quote_before(bytes, start, at) {
            if let Some((what, end)) = held::string_at(text, quote) {
                let fenced = fenced_at == Some(quote);
                let alone = quote == first && text[end..].trim().is_empty();
                found.push(Candidate {
                    start: quote,
                    end: Some(end),
                    confidence: if fenced {
                        0.9
                    } else if alone {
                        0.95
                    } else {
                        0.8
                    },
                    fenced,
                    member: follows_key(bytes, quote),
                    decoded: None,
                    error: None,
                    held: Some(what),
                });
                at = end;
                continue;
            }
        }
        let fenced = fenced_at == Some(start);
        let member = follows_key(bytes, start);
        // A response that starts with its value (most do) is read strictly from its
        // bracket: the value and where it ends in one pass, where the scanner ends it
        // (`check_strict_reads`), so it is not read again (`json::decode_or_read`).
        let strict = (start == first && reading == Reading::Strict)
            .then(|| json::read_prefix(&text[start..]))
            .flatten();
        let scanned = match &strict {
            Some((_, len)) => Some(start + len),
            None => value_end(text, start),
        };
        let Some(end) = scanned else {
            found.push(Candidate {
                start,
                end: None,
                confidence: if start == first { 0.9 } else { 0.6 },
                fenced,
                member,
                decoded: None,
                error: None,
                held: None,
            });
            // Every later opener is inside the cut-off value: accepting one would
            // accept part of a truncated answer, so the search ends here.
            break;
        };
        let (end, mut decoded, error) = read_on(text, start, end);
        if let (None, None, Some((value, _))) = (&decoded, &error, strict) {
            decoded = Some(Decoded::strict(value));
        }
        let alone = start == first && text[end..].trim().is_empty();
        found.push(Candidate {
            start,
            end: Some(end),
            confidence: if fenced {
                0.9
            } else if alone {
                0.95
            } else {
                0.8
            },
            fenced,
            member,
            decoded,
            error,
            held: None,
        });
        at = end;
    }
    (found, None)
}

/// Where a value that the scanner says ends at `end` really ends: there, or, when
/// members of the same object follow (`{"a": 1}, "b": 2}`), where the lenient reader,
/// which keeps them, stops, with that reading, so it is not done twice. When those
/// members do not read, the value is an error, never the smaller object before them.
fn read_on(text: &str, start: usize, end: usize) -> (usize, Option<Decoded>, Option<PayloadError>) {
    if text.as_bytes()[start] != b'{' || !repair::members_follow(text, end) {
        return (end, None, None);
    }
    match repair::parse_lenient_prefix(&text[start..]) {
        Ok((lenient, len)) => (start + len, Some(Decoded::from(lenient)), None),
        Err(_) => {
            // Reading the rest whole fails at the same place, with the error located.
            let origin = Location::of_offset(text, start);
            let error = json::decode(&text[start..], origin)
                .err()
                .unwrap_or_else(|| {
                    PayloadError::new(
                        ErrorKind::Parsing,
                        "",
                        "the object closes before its last members, and they do not read",
                    )
                    .with_location(origin)
                });
            (end, None, Some(error))
        }
    }
}

fn skip_whitespace(text: &str, at: usize) -> usize {
    at + (text[at..].len() - text[at..].trim_start().len())
}

/// Whether `"...":` (a quoted key and its colon) comes right before `at`.
fn follows_key(bytes: &[u8], at: usize) -> bool {
    let mut i = at;
    while i > 0 && bytes[i - 1].is_ascii_whitespace() {
        i -= 1;
    }
    if i == 0 || bytes[i - 1] != b':' {
        return false;
    }
    i -= 1;
    while i > 0 && matches!(bytes[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    i > 0 && bytes[i - 1] == b'"'
}

/// The candidates of `text` found both ways, each described with its value as
/// `read_candidate` reads it (the value read while finding it, or its span decoded):
/// the strict read of the value a response starts with must find what the scanner
/// finds (the property tests and the `extract` fuzz target hold it to that).
#[cfg(any(test, feature = "__internals"))]
pub(crate) fn both_readings(text: &str) -> [(Vec<String>, Option<usize>); 2] {
    [Reading::Strict, Reading::Scanning].map(|reading| {
        let (found, more) = find(text, reading);
        (described(text, &found), more)
    })
}

#[cfg(any(test, feature = "__internals"))]
/// What a candidate says, its value as `read_candidate` reads it (the value read
/// while finding it, or its span decoded).
fn described(text: &str, found: &[Candidate]) -> Vec<String> {
    found
        .iter()
        .map(|c| {
            let read = match (&c.decoded, c.end) {
                (Some(decoded), _) => Some(Ok(decoded.clone())),
                (None, Some(end)) => Some(
                    json::decode(&text[c.start..end], Location::of_offset(text, c.start))
                        .map_err(|e| e.message().to_owned()),
                ),
                (None, None) => None,
            };
            format!(
                "{} {:?} {} {} {} {:?} {:?}",
                c.start,
                c.end,
                c.confidence,
                c.fenced,
                c.member,
                c.error.as_ref().map(|e| e.message()),
                read
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(text: &str) -> Vec<(usize, bool, bool)> {
        candidates(text)
            .0
            .iter()
            .map(|c| (c.start, c.fenced, c.member))
            .collect()
    }

    #[test]
    fn a_fence_inside_a_string_is_text() {
        let text = r#"{"tags": ["b"], "note": "example: ```{tags: ['z']}```"}"#;
        assert_eq!(starts(text), [(0, false, false)]);
    }

    #[test]
    fn the_value_after_a_fence_opener_is_fenced() {
        let text = "Here:\n```json\n{\"a\": 1}\n```\nand {\"b\": 2}";
        let found = starts(text);
        assert_eq!(found.len(), 2);
        assert!(found[0].1 && !found[1].1);
    }

    #[test]
    fn tilde_and_four_backtick_fences_are_fences() {
        for text in [
            "Here:\n~~~json\n{\"a\": 1}\n~~~\nand {\"b\": 2}",
            "Here:\n````json\n{\"a\": 1}\n````\nand {\"b\": 2}",
        ] {
            let found = starts(text);
            assert_eq!(found.len(), 2, "{text:?}");
            assert!(found[0].1 && !found[1].1, "{text:?}");
        }
        // A closer shorter than the opener does not close it: the next value is
        // still inside the fence, but only the first after the opener is "fenced".
        let found = starts("````json\n{\"a\": 1}\n```\n{\"b\": 2}");
        assert!(found[0].1 && !found[1].1);
    }

    #[test]
    fn a_value_after_a_key_is_a_member() {
        let text = r#"broken {"a": 1 "b" ["x"]}} "c": {"d": 1}"#;
        let found = candidates(text).0;
        assert!(found.iter().any(|c| c.member), "{found:?}");
    }

    #[test]
    fn members_after_an_early_close_are_read_on() {
        let text = r#"{"key": "value"}, "key2": "value2"}"#;
        let found = candidates(text).0;
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].end, Some(text.len()));
        let decoded = found[0].decoded.as_ref().unwrap();
        assert_eq!(decoded.value["key2"], "value2");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Reading the value a response starts with strictly finds the candidates the
        /// scanner finds, each read as `read_candidate` would read its span.
        #[test]
        fn the_strict_read_of_the_first_value_is_the_scanned_one(
            before in proptest::sample::select(vec!["", "  ", "\n", "Here:\n```json\n", "x "]),
            value in proptest::sample::select(vec![
                r#"{"a": 1}"#, r#"{"a": [1, {"b": "}"}], "c": 0.1}"#, "[1, 2]", "[]", "{}",
                r#"{"a": 1,}"#, r#"{'a': 1}"#, r#"{"a": 1e400}"#, r#"{"a": 1, "a": 2}"#,
                r#"{"a": "x\u0041"}"#, r#"{"a": 123456789012345678901234567890}"#,
                r#"[{"answer": "x", "confidence": 5}]"#, r#"{"a": 1"#, r#"{"a": tru"#,
            ]),
            after in proptest::sample::select(vec![
                "", "\n", "  \n", " and more", "\n```", r#", "b": 2}"#, " [3]", "}", r#" {"c": 1}"#,
            ]),
        ) {
            let text = format!("{before}{value}{after}");
            let [strict, scanned] = both_readings(&text);
            proptest::prop_assert_eq!(strict, scanned);
        }
    }

    #[test]
    fn the_search_stops_at_the_cap_and_says_where_more_start() {
        let text = "[1] ".repeat(MAX_CANDIDATES + 3);
        let (found, more) = candidates(&text);
        assert_eq!(found.len(), MAX_CANDIDATES);
        assert_eq!(more, Some(4 * MAX_CANDIDATES));
    }
}
