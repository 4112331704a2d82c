//! json_repair's test assertions (`json-repair/cases.jsonl`), each input read as one
//! whole model response, the way json_repair reads it: prose, code fences and several
//! values included. The reader is whole-response extraction with a schema-less type
//! ([`super::any_json`]), which locates the value and hands it to
//! [`payload_core::__internals::json::decode`] (strict, then repaired).
//!
//! Each case is `equal` (our value is json_repair's, numbers compared by value and
//! object members in any order, as Python's `==` does), `refused` (we return an error)
//! or `differs` (we return another value). When json_repair's expected output is empty
//! (it found nothing, which is also how it writes the empty string), refusing and the
//! empty string are both `equal`.
//!
//! `json-repair/expected.jsonl` lists every case that is not `equal`, with its class
//! and a reason:
//! - `refused: guessing (...)`: json_repair invents a value, quote, key or bracket
//!   that we will not guess (docs/spec.md §3);
//! - `refused: truncation (...)`: json_repair completes cut-off text, and a cut-off
//!   value is never completed (docs/spec.md §3);
//! - `refused: not in the repair list (...)`: a syntax that could be read without a
//!   guess (a Python tuple, `#` comments, digit separators) but is not one of the
//!   repairs the lenient reader makes (its module docs list them);
//! - `differs: ...`: a deliberate difference, with the rule that decides it;
//! - `bug: ...`: we are wrong.

use super::any_json;
use super::expectations::{self, blessing};
use payload_core::Location;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// One transcribed assertion.
#[derive(Debug, Deserialize)]
struct Case {
    /// `source`, with `#2`, `#3`, ... when one line gave several cases.
    id: String,
    /// What json_repair was given.
    input: String,
    /// json_repair's output, JSON text; empty when it returns nothing.
    expected: String,
}

/// One pinned case that is not `equal`.
#[derive(Debug, Serialize, Deserialize)]
struct Pinned {
    /// The case's id in `cases.jsonl`.
    id: String,
    /// `refused` or `differs`.
    class: String,
    /// Why, starting with its category (see [`category`]).
    reason: String,
}

/// The reason bless writes for a case whose class is new; it fails the test.
const UNCLASSIFIED: &str = "unclassified";

/// Classifies every case, re-pins when blessing, and fails on any case whose class is
/// not the pinned one or whose reason is missing or of the wrong category.
pub fn run() {
    let cases: Vec<Case> = expectations::read(&expectations::external("json-repair/cases.jsonl"));
    assert!(cases.len() > 200, "{} cases", cases.len());

    let mut failures = Vec::new();
    let mut observed = Vec::new();
    let mut block_equal = 0;
    // What each case was given and gave, shown for each case that needs attention.
    let mut details = BTreeMap::new();
    for case in &cases {
        match catch_unwind(AssertUnwindSafe(|| classify(case))) {
            Ok(Ok(seen)) => {
                block_equal += usize::from(seen.block == "equal");
                observed.push((case.id.clone(), seen.class.to_string()));
                let expected = if case.expected.is_empty() {
                    "(nothing)".to_string()
                } else {
                    shorten(&case.expected)
                };
                details.insert(
                    case.id.clone(),
                    format!(
                        "\n      input:    {}\n      expected: {expected}\n      ours:     {}\n      \
                         block:    {}",
                        shorten(&format!("{:?}", case.input)),
                        seen.ours,
                        seen.block_ours
                    ),
                );
            }
            Ok(Err(failure)) => failures.push(format!("{}: {failure}", case.id)),
            Err(_) => failures.push(format!("{}: panicked", case.id)),
        }
    }

    let path = expectations::external("json-repair/expected.jsonl");
    let mut pinned: Vec<Pinned> = expectations::read(&path);
    if blessing() {
        pinned = bless(&pinned, &observed);
        expectations::write(&path, &pinned);
    }
    let classes: BTreeMap<String, String> = pinned
        .iter()
        .map(|p| (p.id.clone(), p.class.clone()))
        .collect();
    let detail = |id: &str| details.get(id).cloned().unwrap_or_default();
    let differences = expectations::differences(&classes, &observed, "equal");
    if let Some(message) = expectations::report("json-repair/expected.jsonl", &differences, detail)
    {
        failures.push(message);
    }
    for entry in &pinned {
        if let Err(problem) = category(entry) {
            failures.push(format!("{}: {problem}{}", entry.id, detail(&entry.id)));
        }
    }
    print_counts(&cases, &pinned, block_equal);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What one case gave.
struct Seen {
    /// Its class through whole-response extraction.
    class: &'static str,
    /// Its class through the block reader alone (for the counts only).
    block: &'static str,
    /// Our value, or our errors.
    ours: String,
    /// The block reader's value, or its error.
    block_ours: String,
}

fn classify(case: &Case) -> Result<Seen, String> {
    let expected = if case.expected.is_empty() {
        None
    } else {
        let value = serde_json::from_str::<Value>(&case.expected)
            .map_err(|e| format!("expected output is not JSON: {e}"))?;
        Some(value)
    };
    let extracted = any_json::extract(&case.input);
    let block =
        payload_core::__internals::json::decode(&case.input, Location { line: 1, column: 1 })
            .map(|d| d.value)
            .map_err(|e| {
                let at = e.location().map(|l| format!(" at {}:{}", l.line, l.column));
                format!("{}{}: {}", e.kind(), at.unwrap_or_default(), e.message())
            });
    let show = |result: &Result<Value, String>| match result {
        Ok(value) => shorten(&value.to_string()),
        Err(errors) => format!("refused ({errors})"),
    };
    Ok(Seen {
        class: class_of(extracted.as_ref(), expected.as_ref()),
        block: class_of(block.as_ref(), expected.as_ref()),
        ours: show(&extracted),
        block_ours: show(&block),
    })
}

fn class_of(ours: Result<&Value, &String>, expected: Option<&Value>) -> &'static str {
    match (ours, expected) {
        (Err(_), None) => "equal",
        (Ok(Value::String(s)), None) if s.is_empty() => "equal",
        (Err(_), Some(_)) => "refused",
        (Ok(_), None) => "differs",
        (Ok(ours), Some(expected)) if same(ours, expected) => "equal",
        (Ok(_), Some(_)) => "differs",
    }
}

/// `text`, cut to its first 300 characters when longer (some inputs are kilobytes).
fn shorten(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}... ({} bytes)", &text[..at], text.len()),
        None => text.to_string(),
    }
}

/// Python's `==` on decoded JSON: numbers by value (`1 == 1.0`), object members in any
/// order; a boolean is never a number here, although Python's `True == 1` is.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The pinned entries rewritten from `observed`: every case that is not `equal`, in
/// case order, keeping the reason when the class is unchanged.
fn bless(pinned: &[Pinned], observed: &[(String, String)]) -> Vec<Pinned> {
    let old: BTreeMap<&str, &Pinned> = pinned.iter().map(|p| (p.id.as_str(), p)).collect();
    observed
        .iter()
        .filter(|(_, class)| class != "equal")
        .map(|(id, class)| {
            let reason = match old.get(id.as_str()) {
                Some(p) if &p.class == class => p.reason.clone(),
                _ => UNCLASSIFIED.to_string(),
            };
            Pinned {
                id: id.clone(),
                class: class.clone(),
                reason,
            }
        })
        .collect()
}

/// The reason's category: `refused: guessing`, `refused: truncation`,
/// `refused: not in the repair list`, `differs` or `bug`. A reason must start with one
/// the class allows.
fn category(entry: &Pinned) -> Result<&'static str, String> {
    let reason = entry.reason.as_str();
    if reason == UNCLASSIFIED {
        return Err("unclassified: read the case and write why it is not equal".into());
    }
    let allowed: &[&'static str] = match entry.class.as_str() {
        "refused" => &[
            "refused: guessing",
            "refused: truncation",
            "refused: not in the repair list",
            "bug",
        ],
        "differs" => &["differs", "bug"],
        other => return Err(format!("class `{other}` is not refused or differs")),
    };
    allowed
        .iter()
        .copied()
        .find(|c| {
            reason
                .strip_prefix(c)
                .is_some_and(|rest| rest.starts_with([' ', ':']))
        })
        .ok_or_else(|| {
            format!(
                "reason `{reason}` must start with one of {allowed:?} for a `{}` case",
                entry.class
            )
        })
}

fn print_counts(cases: &[Case], pinned: &[Pinned], block_equal: usize) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in pinned {
        *counts
            .entry(category(entry).unwrap_or(UNCLASSIFIED))
            .or_default() += 1;
    }
    println!(
        "json_repair ({} cases, whole-response extraction):",
        cases.len()
    );
    println!("  equal: {}", cases.len() - pinned.len());
    for (category, count) in counts {
        println!("  {category}: {count}");
    }
    println!("  (the block reader alone, without locating the value: equal {block_equal})");
}
