//! Every saved proptest failure is replayed. proptest reads a test file's seeds from a
//! file beside the source tree (`FileFailurePersistence::SourceParallel`): for
//! `D/x/y.rs`, where `D` is the nearest folder above it holding a `lib.rs` or `main.rs`,
//! the seeds live in `D/../proptest-regressions/x/y.txt`. A test file moved or renamed
//! leaves its seeds behind, where nothing reads them again; this test finds such files.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace's root: this crate's parent folder.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Folders no source of ours lives in.
fn skipped(name: &str) -> bool {
    matches!(name, "target" | "node_modules" | ".git") || name.starts_with('.')
}

/// Every file below `dir` whose name ends in `extension`, and every folder named `named`.
fn walk(
    dir: &Path,
    extension: &str,
    named: &str,
    files: &mut Vec<PathBuf>,
    found: &mut Vec<PathBuf>,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if skipped(&name) {
                continue;
            }
            if name == named {
                found.push(path.clone());
            }
            walk(&path, extension, named, files, found);
        } else if name.ends_with(extension) {
            files.push(path);
        }
    }
}

/// Where proptest keeps the seeds of the tests in `source` (its `SourceParallel` rule).
fn seeds_of(source: &Path) -> Option<PathBuf> {
    let mut dir = source.to_path_buf();
    while dir.pop() {
        if dir.join("lib.rs").is_file() || dir.join("main.rs").is_file() {
            let suffix = source.strip_prefix(&dir).ok()?.to_path_buf();
            let mut seeds = dir.parent()?.join("proptest-regressions");
            seeds.push(suffix);
            seeds.set_extension("txt");
            return Some(seeds);
        }
    }
    None
}

#[test]
fn every_regressions_file_belongs_to_a_test_file_with_properties() {
    let root = workspace();
    let (mut sources, mut folders) = (Vec::new(), Vec::new());
    walk(
        &root,
        ".rs",
        "proptest-regressions",
        &mut sources,
        &mut folders,
    );
    let read: BTreeSet<PathBuf> = sources
        .iter()
        .filter(|s| fs::read_to_string(s).is_ok_and(|text| text.contains("proptest")))
        .filter_map(|s| seeds_of(s))
        .collect();
    assert!(
        !read.is_empty(),
        "no test file with properties was found under {}",
        root.display()
    );
    let mut saved = Vec::new();
    for folder in &folders {
        let mut none = Vec::new();
        walk(folder, ".txt", "", &mut saved, &mut none);
    }
    let stale: Vec<String> = saved
        .iter()
        .filter(|file| !read.contains(*file))
        .map(|file| {
            file.strip_prefix(&root)
                .unwrap_or(file)
                .display()
                .to_string()
        })
        .collect();
    assert!(
        stale.is_empty(),
        "these saved proptest failures are read by no test file (merge their `cc` lines into the file of the test that moved, then delete them): {stale:?}"
    );
}

#[test]
fn the_rule_finds_the_files_proptest_writes() {
    let root = workspace();
    assert_eq!(
        seeds_of(&root.join("tests/all/hostile.rs")),
        Some(root.join("tests/proptest-regressions/hostile.txt"))
    );
    assert_eq!(
        seeds_of(&root.join("crates/payload-core/src/json/repair/proptests.rs")),
        Some(root.join("crates/payload-core/proptest-regressions/json/repair/proptests.txt"))
    );
}
