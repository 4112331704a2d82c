//! The ratios benches/README.md states, measured side by side: each
//! work item and its floor timed in interleaved rounds, the minimum of the rounds kept
//! (robust on a shared machine, where only interruptions make a round slower).
//!
//! - marker-mode parse of the realistic 200 B, 1 KB, 4 KB and 64 KB responses beside
//!   serde_json reading their blocks into a `Value`;
//! - the 64 KB response streamed in 1-byte and 64-byte chunks beside its one-shot
//!   parse.
//!
//! Usage: `cargo run --release -p payload-benches --bin ratios [ROUNDS]`. Where wall
//! time is too noisy (a machine shared with builds), `ratios count WORK TIMES` runs one
//! work item (`parse-SIZE`, `floor-SIZE`, `stream-CHUNK`, with the size in bytes) so an
//! instruction counter can measure it: the difference between two values of TIMES is
//! the cost of that many runs.

use payload_benches::{Response, bench_options, realistic, stream_in_chunks};
use payload_core::Parser;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Runs `work` `times` times; the time taken.
fn timed(times: usize, work: &mut dyn FnMut()) -> Duration {
    let started = Instant::now();
    for _ in 0..times {
        work();
    }
    started.elapsed()
}

/// The minimum over `rounds` of each of `a` and `b`, run alternately.
fn interleaved(
    rounds: usize,
    times: usize,
    a: &mut dyn FnMut(),
    b: &mut dyn FnMut(),
) -> (Duration, Duration) {
    let (mut best_a, mut best_b) = (Duration::MAX, Duration::MAX);
    for _ in 0..rounds {
        best_a = best_a.min(timed(times, a));
        best_b = best_b.min(timed(times, b));
    }
    (best_a / times as u32, best_b / times as u32)
}

fn floor(response: &Response) {
    for block in &response.blocks {
        black_box(serde_json::from_str::<serde_json::Value>(black_box(block)).ok());
    }
}

/// `ratios count WORK TIMES`: runs one work item TIMES times.
fn count(work: &str, times: usize) {
    let options = bench_options();
    let parser = Parser::new(&options);
    let (kind, size) = work.split_once('-').unwrap_or((work, "0"));
    let size: usize = size.parse().unwrap_or(0);
    match kind {
        "parse" => {
            let response = realistic(size);
            // One parse first, so that what is built on first use (each type's
            // compiled schema) is outside `parse_runs`, which a profiler can single
            // out (`--toggle-collect=ratios::parse_runs`).
            black_box(parser.parse(black_box(&response.text)));
            parse_runs(&parser, &response.text, times.saturating_sub(1));
        }
        "floor" => {
            let response = realistic(size);
            for _ in 0..times {
                floor(&response);
            }
        }
        "stream" => {
            let text = realistic(64 * 1024).text;
            for _ in 0..times {
                black_box(stream_in_chunks(&parser, &text, size));
            }
        }
        _ => eprintln!("ratios: unknown work {work:?}"),
    }
}

/// `times` parses of `text`: the measured part of `ratios count parse-SIZE`.
#[inline(never)]
fn parse_runs(parser: &Parser, text: &str, times: usize) {
    for _ in 0..times {
        black_box(parser.parse(black_box(text)));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, work, times] = args.as_slice() {
        if mode == "count" {
            count(work, times.parse().unwrap_or(1));
            return;
        }
    }
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(15);
    let options = bench_options();
    let parser = Parser::new(&options);
    println!("| work | time | floor | ratio |");
    println!("|---|---:|---:|---:|");
    for (label, size, times) in [
        ("200 B", 200, 4000),
        ("1 KB", 1024, 1000),
        ("4 KB", 4 * 1024, 300),
        ("64 KB", 64 * 1024, 20),
    ] {
        let response = realistic(size);
        let (parse, floor) = interleaved(
            rounds,
            times,
            &mut || {
                black_box(parser.parse(black_box(&response.text)));
            },
            &mut || floor(&response),
        );
        println!(
            "| marker-mode parse, {label} | {parse:.2?} | {floor:.2?} | {:.2}x |",
            parse.as_secs_f64() / floor.as_secs_f64()
        );
    }
    let text = realistic(64 * 1024).text;
    for chunk in [1, 64] {
        let (streamed, one_shot) = interleaved(
            rounds.div_ceil(3),
            2,
            &mut || {
                black_box(stream_in_chunks(&parser, &text, chunk));
            },
            &mut || {
                black_box(parser.parse(black_box(&text)));
            },
        );
        println!(
            "| 64 KB streamed in {chunk}-byte chunks | {streamed:.2?} | {one_shot:.2?} (one-shot) | {:.2}x |",
            streamed.as_secs_f64() / one_shot.as_secs_f64()
        );
    }
}
