//! Pinned outcomes: one JSON object per line, one line per case, in the order of the
//! suite's cases (so two changes to different cases never touch the same line), and
//! the bless mode that rewrites them.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Whether `PAYLOAD_BLESS=1` asks for the pinned files to be rewritten.
pub fn blessing() -> bool {
    std::env::var_os("PAYLOAD_BLESS").is_some_and(|v| v == "1")
}

/// A path under `tests/external/`.
pub fn external(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("external")
        .join(relative)
}

/// The entries of a JSON Lines file; a missing file has none (so the first bless can
/// create it). A line that does not parse is a test failure naming it.
pub fn read<T: DeserializeOwned>(path: &Path) -> Vec<T> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(error) => panic!("{}: {error}", path.display()),
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// Writes `entries` as JSON Lines, one per line, in the order given.
pub fn write<T: Serialize>(path: &Path, entries: &[T]) {
    let mut text = String::new();
    for entry in entries {
        let line = serde_json::to_string(entry).expect("entries serialize");
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Every difference between the pinned outcomes and the observed ones: the case's id
/// and what differs.
///
/// `observed` has every case, in order, with its outcome; `pinned` only lists cases
/// whose outcome is not `default` (a case it does not list is expected to be
/// `default`). A pinned case that no longer exists is a difference too, so the file
/// cannot keep stale lines.
pub fn differences(
    pinned: &BTreeMap<String, String>,
    observed: &[(String, String)],
    default: &str,
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let ids: BTreeSet<&str> = observed.iter().map(|(id, _)| id.as_str()).collect();
    for (id, outcome) in observed {
        let expected = pinned.get(id).map_or(default, String::as_str);
        if expected != outcome {
            found.push((
                id.clone(),
                format!("pinned `{expected}`, observed `{outcome}`"),
            ));
        }
    }
    for id in pinned.keys().filter(|id| !ids.contains(id.as_str())) {
        found.push((id.clone(), "pinned, but there is no such case".into()));
    }
    found
}

/// The failure message for `differences` in `file`, or `None` when there are none;
/// `details` gives what there is to show about a case (its input and result).
pub fn report(
    file: &str,
    differences: &[(String, String)],
    details: impl Fn(&str) -> String,
) -> Option<String> {
    if differences.is_empty() {
        return None;
    }
    let mut message = format!(
        "{} case(s) differ from {file} (run with PAYLOAD_BLESS=1 to re-pin, then \
         classify what changed):\n",
        differences.len()
    );
    for (id, what) in differences {
        let _ = writeln!(message, "  {id}: {what}{}", details(id));
    }
    Some(message)
}
