//! The fuzz targets' checks on a stable compiler. Each target's body is a function of
//! `payload_benches::fuzz` (the `sse` and `apply` bodies are replayed by their own
//! crates' tests); every seed of a target's corpus (`fuzz/corpus/<target>`) goes
//! through its target, and every saved finding (`fuzz/artifacts-replay`, kept whatever
//! target found it) through every target, as raw bytes, so the cap, chunking and
//! selector bytes a target reads from its input are read as the fuzzer gave them.

use payload_benches::fuzz::{TARGETS, run};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files directly under `dir`, sorted (each one input).
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `target` on `data`, naming the input when a check fails.
fn replay(target: &str, name: &str, data: &[u8]) {
    let outcome = std::panic::catch_unwind(|| assert!(run(target, data), "no target {target}"));
    assert!(outcome.is_ok(), "the {target} target fails on {name}");
}

#[test]
fn every_seed_holds_its_targets_checks() {
    for target in TARGETS {
        let seeds = inputs(&fuzz_dir().join("corpus").join(target));
        assert!(!seeds.is_empty(), "the {target} seeds are checked in");
        for seed in seeds {
            replay(
                target,
                &seed.display().to_string(),
                &std::fs::read(&seed).unwrap(),
            );
        }
    }
}

#[test]
fn every_saved_finding_holds_every_targets_checks() {
    let findings = inputs(&fuzz_dir().join("artifacts-replay"));
    assert!(!findings.is_empty(), "the findings are checked in");
    for finding in findings {
        let data = std::fs::read(&finding).unwrap();
        for target in TARGETS {
            replay(target, &finding.display().to_string(), &data);
        }
    }
}
