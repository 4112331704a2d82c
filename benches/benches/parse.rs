//! Throughput of marker-mode parsing, whole-response extraction and the streaming
//! parser on realistic responses, each beside its floor: serde_json parsing the JSON of
//! the blocks alone. Run with `cargo bench -p payload-benches`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use payload_benches::{Response, bench_options, realistic, stream_in_chunks, whole_response};
use payload_builtin::DataProposal;
use payload_core::LlmPayload;
use payload_core::Parser;
use serde_json::Value;
use std::hint::black_box;
use std::time::Duration;

const SIZES: [(&str, usize); 3] = [("200B", 200), ("4KB", 4 * 1024), ("64KB", 64 * 1024)];

fn floor(response: &Response) {
    for block in &response.blocks {
        black_box(serde_json::from_str::<Value>(block).unwrap());
    }
}

fn marker_mode(c: &mut Criterion) {
    let parser = Parser::new(&bench_options());
    let mut group = c.benchmark_group("marker_mode");
    for (label, size) in SIZES {
        let response = realistic(size);
        group.throughput(Throughput::Bytes(response.text.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse", label), &response, |b, r| {
            b.iter(|| black_box(parser.parse(black_box(&r.text))))
        });
        group.bench_with_input(BenchmarkId::new("serde_floor", label), &response, |b, r| {
            b.iter(|| floor(black_box(r)))
        });
    }
    group.finish();
}

fn whole_response_mode(c: &mut Criterion) {
    let payload = <DataProposal as LlmPayload>::TYPE;
    let mut group = c.benchmark_group("extract");
    for (label, size) in SIZES {
        let response = whole_response(size);
        group.throughput(Throughput::Bytes(response.text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("extract_json", label),
            &response,
            |b, r| b.iter(|| black_box(payload_core::extract_json(black_box(&r.text), &payload))),
        );
        group.bench_with_input(
            BenchmarkId::new("extract_auto", label),
            &response,
            |b, r| {
                b.iter(|| black_box(payload_core::extract_as(black_box(&r.text), &payload, None)))
            },
        );
        group.bench_with_input(BenchmarkId::new("serde_floor", label), &response, |b, r| {
            b.iter(|| floor(black_box(r)))
        });
    }
    group.finish();
}

fn streaming(c: &mut Criterion) {
    let options = bench_options();
    let parser = Parser::new(&options);
    let response = realistic(64 * 1024);
    let text = response.text.as_str();
    let mut group = c.benchmark_group("stream_64KB");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("one_shot", |b| b.iter(|| black_box(parser.parse(text))));
    for chunk in [1usize, 64] {
        group.bench_function(BenchmarkId::new("chunked", chunk), |b| {
            b.iter(|| black_box(stream_in_chunks(&parser, text, chunk)))
        });
    }
    group.finish();
}

/// Reading JSON full of floats: the precision rule scans the text once more when the
/// value holds a float (`json::precision`). Beside serde_json reading the same text.
fn floats(c: &mut Criterion) {
    let mut group = c.benchmark_group("floats_64KB");
    let mut text = String::from("[");
    let mut i = 0u64;
    while text.len() < 64 * 1024 {
        use std::fmt::Write;
        let _ = write!(
            text,
            "{{\"score\": {}.{:03}, \"label\": \"item {i}\"}}, ",
            i % 100,
            i % 997
        );
        i += 1;
    }
    text.push_str("0.5]");
    let origin = payload_core::Location { line: 1, column: 1 };
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("decode", |b| {
        b.iter(|| black_box(payload_core::__internals::json::decode(&text, origin).unwrap()))
    });
    group.bench_function("serde_floor", |b| {
        b.iter(|| black_box(serde_json::from_str::<Value>(&text).unwrap()))
    });
    group.finish();
}

fn config() -> Criterion {
    // Short runs: the numbers are stable to a few percent at this length, and the
    // benchmarks stay cheap on a shared machine.
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = marker_mode, whole_response_mode, streaming, floats
}
criterion_main!(benches);
