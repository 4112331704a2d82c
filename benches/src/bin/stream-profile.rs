//! Feeds the 64 KB realistic response through the streaming parser one byte at a
//! time, many times: a target for a sampling profiler (`perf record`), and a quick
//! one-byte versus one-shot ratio.

use payload_benches::{bench_options, realistic, stream_in_chunks};
use payload_core::Parser;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let options = bench_options();
    let text = realistic(64 * 1024).text;
    let parser = Parser::new(&options);
    let started = Instant::now();
    for _ in 0..rounds {
        black_box(parser.parse(black_box(&text)));
    }
    let one_shot = started.elapsed() / rounds as u32;
    let started = Instant::now();
    for _ in 0..rounds {
        black_box(stream_in_chunks(&parser, &text, 1));
    }
    let streamed = started.elapsed() / rounds as u32;
    println!(
        "{} bytes: one-shot {one_shot:?}, 1-byte stream {streamed:?}, ratio {:.1}",
        text.len(),
        streamed.as_secs_f64() / one_shot.as_secs_f64()
    );
}
