//! The StructuredRAG corpus of real model outputs (skipped when `../shared/corpus` is
//! absent): whole-response extraction accepts strictly more than strict parsing, and
//! never accepts a response cut off inside its JSON value.

use payload_core::__internals::balanced::{self, Balanced};
use payload_core::extract_json;
use payload_tests::corpus_dir;
use serde_json::Value;
use structured_rag::{Outcome, evaluate_file, type_for_test};

fn corpus_files() -> Option<Vec<String>> {
    let dir = corpus_dir("structured-rag")?;
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Some(
        files
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect(),
    )
}

#[test]
fn extraction_accepts_strictly_more_than_strict_parsing() {
    let Some(files) = corpus_files() else {
        eprintln!("skipped: no corpus beside the repository");
        return;
    };
    let (mut extracted, mut strict, mut total) = (0, 0, 0);
    for file in &files {
        let Some((_, outcomes)) = evaluate_file(file) else {
            continue;
        };
        for (e, s) in outcomes {
            total += 1;
            let accepted = |o: Outcome| matches!(o, Outcome::Clean | Outcome::Fixed);
            extracted += usize::from(accepted(e));
            strict += usize::from(accepted(s));
            // Whatever strict parsing accepts, extraction accepts too.
            assert!(!accepted(s) || accepted(e));
        }
    }
    assert!(total > 10_000, "{total} responses");
    assert!(extracted > strict, "extracted {extracted}, strict {strict}");
}

/// Every accepted response, cut at several points inside its JSON value, is rejected:
/// a cut-off value is never completed, and nothing inside it is accepted instead.
#[test]
fn no_cut_off_response_is_ever_accepted() {
    let Some(files) = corpus_files() else {
        eprintln!("skipped: no corpus beside the repository");
        return;
    };
    let mut cuts = 0;
    for file in &files {
        let file: Value = serde_json::from_str(file).unwrap();
        let Some(payload) = type_for_test(file["test_name"].as_str().unwrap()) else {
            continue;
        };
        for response in file["all_responses"].as_array().unwrap().iter().step_by(7) {
            let text = response["response"].as_str().unwrap();
            if !extract_json(text, &payload).success {
                continue;
            }
            let Some(start) = text.find(['{', '[']) else {
                continue;
            };
            let Balanced::Complete { end } = balanced::scan(text, start) else {
                panic!("an accepted response has a cut-off first value: {text}");
            };
            for fraction in [0.1, 0.5, 0.9, 0.99] {
                let mut cut = start + 1 + ((end - start - 2) as f64 * fraction) as usize;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                let prefix = &text[..cut];
                let result = extract_json(prefix, &payload);
                assert!(!result.success, "accepted a cut-off response: {prefix:?}");
                cuts += 1;
            }
        }
    }
    assert!(cuts > 1000, "only {cuts} cuts were tried");
}
