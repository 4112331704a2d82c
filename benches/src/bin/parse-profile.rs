//! Parses the realistic response of a given size many times: a target for a sampling
//! profiler (`perf record`), with the serde_json floor printed beside it.

use payload_benches::{bench_options, realistic};
use payload_core::Parser;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let size: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let response = realistic(size);
    let parser = Parser::new(&bench_options());
    let started = Instant::now();
    for _ in 0..rounds {
        black_box(parser.parse(black_box(&response.text)));
    }
    let parse = started.elapsed() / rounds as u32;
    let started = Instant::now();
    for _ in 0..rounds {
        for block in &response.blocks {
            black_box(serde_json::from_str::<serde_json::Value>(black_box(block)).ok());
        }
    }
    let floor = started.elapsed() / rounds as u32;
    println!(
        "{} bytes: parse {parse:?}, serde_json floor {floor:?}, ratio {:.2}",
        response.text.len(),
        parse.as_secs_f64() / floor.as_secs_f64()
    );
}
