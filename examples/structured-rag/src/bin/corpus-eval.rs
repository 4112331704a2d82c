//! Prints, per model and overall, how many of the StructuredRAG corpus's responses
//! whole-response extraction accepts (as written, or after repairs and coercions) and
//! rejects by kind, beside strict parsing of the same responses.
//!
//! Usage: `cargo run --release -p structured-rag --bin corpus-eval [CORPUS_DIR]`
//! (default `../shared/corpus/structured-rag` beside the repository).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use structured_rag::{Tally, evaluate_file};

fn main() -> ExitCode {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/structured-rag")
        });
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("corpus-eval: no corpus at {}", dir.display());
        return ExitCode::from(2);
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut extracted: BTreeMap<String, Tally> = BTreeMap::new();
    let mut strict: BTreeMap<String, Tally> = BTreeMap::new();
    let started = std::time::Instant::now();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Some((model, outcomes)) = evaluate_file(&text) else {
            continue;
        };
        for (e, s) in outcomes {
            for key in [model.clone(), "ALL".to_string()] {
                extracted.entry(key.clone()).or_default().add(e);
                strict.entry(key).or_default().add(s);
            }
        }
    }
    println!(
        "| model | responses | strict accepted | accepted | as written | repaired/coerced | rejected (by kind) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let mut models: Vec<String> = extracted.keys().filter(|k| *k != "ALL").cloned().collect();
    models.push("ALL".to_string());
    for model in &models {
        let (Some(e), Some(s)) = (extracted.get(model), strict.get(model)) else {
            continue;
        };
        let rejected: Vec<String> = e.rejected.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!(
            "| {model} | {} | {} | {} | {} | {} | {} |",
            e.total,
            s.accepted(),
            e.accepted(),
            e.clean,
            e.fixed,
            if rejected.is_empty() {
                "0".to_string()
            } else {
                rejected.join(", ")
            }
        );
    }
    eprintln!("{} files in {:.2?}", files.len(), started.elapsed());
    ExitCode::SUCCESS
}
