//! `payload bench --page PAGE [--iterations N] FILE` (docs/spec.md §6): parses FILE N
//! times in process with the page's compiled parser and prints the throughput, so that
//! a recorded response can be measured on the machine that will serve it.
//!
//! Beside it, the floor: serde_json reading the JSON of the response's accepted blocks
//! into a `Value` the same number of times (the JSON must be read once; everything the
//! parser does beyond that is its cost), and the ratio of the two.

use crate::error::CliError;
use crate::input::read_input;
use payload_registry::Registry;
use serde_json::json;
use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Runs `payload bench`: prints `{"bytes", "iterations", "seconds", "mb_per_s",
/// "floor_seconds", "ratio"}`, with megabytes of 10^6 bytes (`ratio` is `null` when the
/// response has no accepted block).
pub fn run(
    registry: &Registry,
    page: &str,
    iterations: u32,
    file: &PathBuf,
    limit: u64,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if iterations == 0 {
        return Err(CliError::Usage(
            "--iterations must be at least 1".to_string(),
        ));
    }
    let parser = registry.page(page)?.parser();
    let text = read_input(Some(file), limit)?;
    let start = Instant::now();
    for _ in 0..iterations {
        black_box(parser.parse(black_box(&text)));
    }
    let seconds = start.elapsed().as_secs_f64();
    let parsed = parser.parse(&text);
    let blocks: Vec<&str> = parsed
        .accepted_blocks()
        .filter_map(|(_, raw)| block_json(raw))
        .collect();
    let start = Instant::now();
    for _ in 0..iterations {
        for block in &blocks {
            let _ = black_box(serde_json::from_str::<serde_json::Value>(black_box(block)));
        }
    }
    let floor_seconds = start.elapsed().as_secs_f64();
    let bytes = text.len();
    let total = bytes as f64 * f64::from(iterations);
    let mb_per_s = if seconds > 0.0 {
        total / seconds / 1e6
    } else {
        0.0
    };
    let ratio = (!blocks.is_empty() && floor_seconds > 0.0).then(|| seconds / floor_seconds);
    let report = json!({
        "bytes": bytes,
        "iterations": iterations,
        "seconds": seconds,
        "mb_per_s": mb_per_s,
        "floor_seconds": floor_seconds,
        "ratio": ratio,
    });
    writeln!(out, "{report}")?;
    Ok(())
}

/// The JSON of an accepted block: from its first bracket to its last (the marker, any
/// emphasis and fence around it left out).
fn block_json(raw: &str) -> Option<&str> {
    let start = raw.find(['{', '['])?;
    let end = raw.rfind(['}', ']'])?;
    raw.get(start..=end)
}

/// Runs `payload bench`.
pub(crate) fn command(
    registry: &Registry,
    args: crate::args::BenchArgs,
    limit: u64,
    out: &mut dyn Write,
) -> Result<std::process::ExitCode, CliError> {
    run(
        registry,
        &args.page,
        args.iterations,
        &args.file,
        limit,
        out,
    )?;
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_json_is_the_value_without_marker_emphasis_or_fence() {
        assert_eq!(
            block_json("**DATA_PROPOSAL:**\n```json\n{\"a\": [1]}\n```"),
            Some("{\"a\": [1]}")
        );
        assert_eq!(
            block_json("SUGGESTED_VALUES: [{\"label\": \"x\"}]"),
            Some("[{\"label\": \"x\"}]")
        );
        assert_eq!(block_json("NOTE: nothing"), None);
    }

    #[test]
    fn the_command_reports_bytes_iterations_and_throughput() {
        let registry =
            Registry::from_parts(vec![], vec![payload_registry::Page::new("chat")], vec![]);
        let path = std::env::temp_dir().join(format!("bench-cmd-{}.txt", std::process::id()));
        let text = "Pick one.\n\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes\"}]";
        std::fs::write(&path, text).unwrap();
        let file = path.to_str().unwrap();
        let mut out = Vec::new();
        let args = [
            "payload",
            "bench",
            "--page",
            "chat",
            "--iterations",
            "3",
            file,
        ];
        crate::run(args, &registry, &mut out).unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(report["bytes"], text.len());
        assert_eq!(report["iterations"], 3);
        assert!(report["seconds"].as_f64().unwrap() >= 0.0);
        assert!(report["mb_per_s"].is_number());
        // The suggestion block is accepted, so the floor was measured beside the parse.
        assert!(report["floor_seconds"].as_f64().unwrap() > 0.0);
        assert!(report["ratio"].as_f64().unwrap() > 0.0);
        let zero = [
            "payload",
            "bench",
            "--page",
            "chat",
            "--iterations",
            "0",
            file,
        ];
        let error = crate::run(zero, &registry, &mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("at least 1"), "{error}");
        let unknown = ["payload", "bench", "--page", "nope", file];
        let error = crate::run(unknown, &registry, &mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("unknown page 'nope'"), "{error}");
        std::fs::remove_file(&path).unwrap();
    }
}
