//! Prints, per model and overall, how many of the StructuredRAG corpus's responses
//! whole-response extraction accepts (as written, or after repairs and coercions) and
//! rejects by kind, beside strict parsing of the same responses.
//!
//! Usage: `cargo run --release -p structured-rag --bin corpus-eval [CORPUS_DIR]`
//! (default `../shared/corpus/structured-rag` beside the repository).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use structured_rag::{Tally, evaluate_file, responses_of};

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
    report_speed(&files);
    ExitCode::SUCCESS
}

/// Prints how long whole-response extraction of every response takes beside its floor,
/// serde_json parsing the JSON of the same responses into a `Value` (the response when
/// it is JSON, else the span from its first bracket to its last: the JSON must be read
/// once), best of three rounds each.
fn report_speed(files: &[PathBuf]) {
    let mut all = Vec::new();
    for path in files {
        if let Some(file) = std::fs::read_to_string(path)
            .ok()
            .as_deref()
            .and_then(responses_of)
        {
            all.push(file);
        }
    }
    let best = |run: &dyn Fn()| {
        (0..3)
            .map(|_| {
                let started = std::time::Instant::now();
                run();
                started.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let extraction = best(&|| {
        for (payload, responses) in &all {
            for response in responses {
                std::hint::black_box(payload_core::extract_json(response, payload));
            }
        }
    });
    let floor = best(&|| {
        for (_, responses) in &all {
            for response in responses {
                std::hint::black_box(floor_parse(response));
            }
        }
    });
    let count: usize = all.iter().map(|(_, r)| r.len()).sum();
    eprintln!(
        "speed: extraction of {count} responses {extraction:.2?}, serde_json floor {floor:.2?}, ratio {:.2}",
        extraction.as_secs_f64() / floor.as_secs_f64().max(1e-9)
    );
}

/// serde_json reading the JSON of `response` (see [`report_speed`]).
fn floor_parse(response: &str) -> Option<serde_json::Value> {
    if let Ok(value) = serde_json::from_str(response) {
        return Some(value);
    }
    let start = response.find(['{', '['])?;
    let end = response.rfind(['}', ']'])?;
    serde_json::from_str(response.get(start..=end)?).ok()
}
