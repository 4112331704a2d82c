//! JSONTestSuite's `test_parsing` files through the block reader
//! ([`payload_core::__internals::json::decode`]), the lenient reader
//! ([`payload_core::__internals::repair::parse_lenient`]) and whole-response extraction.
//!
//! - `y_` (valid JSON): both readers give exactly serde_json's value and report no
//!   repair; extraction gives the same value when it is an object or an array (a bare
//!   scalar is not a whole-response value of a schema-less type).
//! - `n_` (invalid JSON): refused, or accepted with at least one repair reported, by
//!   both readers. Never accepted silently, as if it were valid, unless serde_json
//!   itself accepts it.
//! - `i_` (either is allowed): whatever happens, nothing panics.
//!
//! Files that are not UTF-8 cannot reach the readers (they take `&str`): the caller's
//! UTF-8 check is what refuses them, so they are only counted.
//!
//! The block reader's outcome for every `n_` and `i_` file is pinned in
//! `json-test-suite/expected.jsonl`.

use super::any_json;
use super::expectations::{self, blessing};
use payload_core::__internals::json;
use payload_core::__internals::repair;
use payload_core::Location;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// One pinned outcome.
#[derive(Debug, Serialize, Deserialize)]
struct Pinned {
    /// The file name, e.g. `n_array_extra_comma.json`.
    file: String,
    /// `strict` (serde_json accepts it), `repaired: <phrases>`, `refused: <kind>` or
    /// `not UTF-8`.
    outcome: String,
}

/// How many files of one prefix had each outcome.
type Tally = BTreeMap<(char, String), usize>;

/// Checks every file against its prefix's rule, re-pins the `n_` and `i_` outcomes
/// when blessing, and fails on any broken rule, panic or outcome that is not pinned.
pub fn run() {
    let dir = expectations::external("json-test-suite/test_parsing");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 318, "the suite's test_parsing has 318 files");

    let mut failures = Vec::new();
    let mut observed = Vec::new();
    let mut tally = Tally::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let prefix = name.chars().next().unwrap();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let outcome = match catch_unwind(AssertUnwindSafe(|| check(prefix, &bytes))) {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(failure)) => {
                failures.push(format!("{name}: {failure}"));
                continue;
            }
            Err(_) => {
                failures.push(format!("{name}: panicked"));
                continue;
            }
        };
        let category = match outcome.split_once(':') {
            Some((head, _)) if head == "repaired" => head.to_string(),
            _ => outcome.clone(),
        };
        *tally.entry((prefix, category)).or_default() += 1;
        if prefix != 'y' {
            observed.push((name, outcome));
        }
    }
    print_tally(&tally);

    let path = expectations::external("json-test-suite/expected.jsonl");
    if blessing() {
        let entries: Vec<Pinned> = observed
            .iter()
            .map(|(file, outcome)| Pinned {
                file: file.clone(),
                outcome: outcome.clone(),
            })
            .collect();
        expectations::write(&path, &entries);
    }
    let pinned: BTreeMap<String, String> = expectations::read::<Pinned>(&path)
        .into_iter()
        .map(|p| (p.file, p.outcome))
        .collect();
    let differences = expectations::differences(&pinned, &observed, "(not pinned)");
    if let Some(message) =
        expectations::report("json-test-suite/expected.jsonl", &differences, |_| {
            String::new()
        })
    {
        failures.push(message);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Checks one file against its prefix's rule; the outcome to pin, or what is wrong.
fn check(prefix: char, bytes: &[u8]) -> Result<String, String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return match prefix {
            'y' => Err("a valid file is not UTF-8".into()),
            _ => Ok("not UTF-8".into()),
        };
    };
    let reference = serde_json::from_str::<Value>(text).ok();
    let decoded = json::decode(text, Location { line: 1, column: 1 });
    let lenient = repair::parse_lenient(text);
    let extracted = any_json::extract(text);

    if prefix == 'y' {
        let Some(reference) = reference else {
            return Err("serde_json refuses a valid file".into());
        };
        match &decoded {
            Ok(d) if d.value == reference && d.repairs.is_empty() => {}
            other => return Err(format!("decode gave {other:?}, not {reference}")),
        }
        match &lenient {
            Ok(l) if l.value == reference && l.repairs.is_empty() => {}
            other => return Err(format!("parse_lenient gave {other:?}, not {reference}")),
        }
        if (reference.is_object() || reference.is_array()) && extracted != Ok(reference.clone()) {
            return Err(format!("extraction gave {extracted:?}, not {reference}"));
        }
        return Ok("strict".into());
    }

    if prefix == 'n' && reference.is_none() {
        // Accepted with no repair reported would pass invalid JSON off as valid.
        if matches!(&decoded, Ok(d) if d.repairs.is_empty()) {
            return Err(format!("decode accepts it silently: {decoded:?}"));
        }
        if matches!(&lenient, Ok(l) if l.repairs.is_empty()) {
            return Err(format!("parse_lenient accepts it silently: {lenient:?}"));
        }
    }
    Ok(match decoded {
        Ok(_) if reference.is_some() => "strict".into(),
        Ok(d) if d.repairs.is_empty() => "accepted with no repair".into(),
        Ok(d) => format!("repaired: {}", d.repairs.join("; ")),
        Err(e) => format!("refused: {}", e.kind()),
    })
}

fn print_tally(tally: &Tally) {
    println!("JSONTestSuite (block reader outcome per file):");
    for ((prefix, category), count) in tally {
        println!("  {prefix}_ {category}: {count}");
    }
}
