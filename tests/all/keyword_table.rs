//! The keywords of JSON Schema are listed in one place: payload-schema's table
//! (`payload_schema::keywords::TABLE`), where each reader's question is a property of
//! the keyword. A file of the libraries that names a list of three or more of the
//! table's keywords (in brackets: `[...]` or `&[...]`, tuples of them included) keeps a
//! table of its own, which the table's properties then no longer describe; this test
//! finds such a list. Test code is left out: a test may spell what it checks.

use payload_schema::keywords::TABLE;
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace's root: this crate's parent folder.
fn workspace() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file that is not test code: a `tests` file or folder, and
/// everything from the first `#[cfg(test)]` on, are left out.
fn library_code(path: &Path) -> Option<String> {
    let name = path.to_string_lossy().replace('\\', "/");
    if name.contains("/tests/") || name.ends_with("tests.rs") || name.contains("_tests") {
        return None;
    }
    let text = fs::read_to_string(path).ok()?;
    Some(match text.find("#[cfg(test)]") {
        Some(at) => text[..at].to_string(),
        None => text,
    })
}

/// The string literals of each bracketed list in `code` made only of string literals,
/// parentheses, commas and white space, with the line it starts on.
fn literal_lists(code: &str) -> Vec<(usize, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut lists = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'[' {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + 1;
        let mut literals = Vec::new();
        let closed = loop {
            match bytes.get(j) {
                Some(b']') => break true,
                Some(b' ' | b'\n' | b'\t' | b'\r' | b',' | b'(' | b')') => j += 1,
                Some(b'"') => {
                    let mut k = j + 1;
                    while k < bytes.len() && bytes[k] != b'"' {
                        k += if bytes[k] == b'\\' { 2 } else { 1 };
                    }
                    literals.push(code[j + 1..k.min(bytes.len())].to_string());
                    j = k + 1;
                }
                _ => break false,
            }
        };
        if closed && !literals.is_empty() {
            lists.push((code[..start].matches('\n').count() + 1, literals));
        }
        i = start + 1;
    }
    lists
}

#[test]
fn no_file_but_the_table_lists_keywords() {
    let root = workspace();
    let table = root.join("crates/payload-schema/src/keywords.rs");
    let mut files = Vec::new();
    for dir in ["crates", "examples"] {
        sources(&root.join(dir), &mut files);
    }
    let mut found = Vec::new();
    for path in files.iter().filter(|p| **p != table) {
        let Some(code) = library_code(path) else {
            continue;
        };
        for (line, literals) in literal_lists(&code) {
            let keywords: Vec<&String> = literals
                .iter()
                .filter(|l| TABLE.iter().any(|(k, _)| k == l))
                .collect();
            if keywords.len() >= 3 {
                found.push(format!(
                    "{}:{line}: {keywords:?}",
                    path.strip_prefix(&root).unwrap_or(path).display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "keyword lists outside payload-schema's table (make each a property of the table):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_finder_finds_a_list() {
    let code = "const A: &[&str] = &[\n  \"type\",\n  \"enum\", \"const\"];\nlet b = [(\"minLength\", \"maxLength\", \"x\")];";
    let lists = literal_lists(code);
    assert_eq!(lists.len(), 2);
    assert_eq!(lists[0].0, 1);
    assert_eq!(lists[0].1, ["type", "enum", "const"]);
    assert_eq!(lists[1].1, ["minLength", "maxLength", "x"]);
}
