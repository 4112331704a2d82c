//! Prints how parse, extract and stream time grows with the size of hostile input: for
//! each family, the time at 1, 2 and 4 MB and the 2MB/1MB and 4MB/2MB ratios (about 2
//! when linear). Usage: `scaling [FAMILY...]` (default: every family).

use payload_benches::{Family, table_view_options};
use payload_builtin::DataProposal;
use payload_core::LlmPayload;
use payload_core::parse::Parser;
use payload_core::stream::StreamParser;
use std::hint::black_box;
use std::time::{Duration, Instant};

const MB: usize = 1024 * 1024;
/// The stream is fed in chunks of this many bytes (the `payload stream` default).
const CHUNK: usize = 7;

/// One entry point run over a text.
type Entry<'a> = dyn Fn(&str) + 'a;

/// The best of a few runs: the least disturbed by other work on the machine.
fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn stream(options: &payload_core::ParseOptions, text: &str) {
    let mut parser = StreamParser::new(options);
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + CHUNK).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        black_box(parser.push(&text[at..end]));
        at = end;
    }
    black_box(parser.finish());
}

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    let options = table_view_options();
    let parser = Parser::new(&options);
    let payload = <DataProposal as LlmPayload>::TYPE;
    println!(
        "{:<24} {:<8} {:>9} {:>9} {:>9} {:>7} {:>7}",
        "family", "entry", "1MB ms", "2MB ms", "4MB ms", "2/1", "4/2"
    );
    let mut worst: f64 = 0.0;
    for family in Family::ALL {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == family.name()) {
            continue;
        }
        let texts: Vec<String> = [MB, 2 * MB, 4 * MB]
            .iter()
            .map(|&size| family.generate(size))
            .collect();
        let entries: [(&str, &Entry); 3] = [
            ("parse", &|t: &str| {
                black_box(parser.parse(t));
            }),
            ("extract", &|t: &str| {
                black_box(payload_core::extract_as(t, &payload, None));
            }),
            ("stream", &|t: &str| stream(&options, t)),
        ];
        for (name, run) in entries {
            let times: Vec<f64> = texts
                .iter()
                .map(|t| best(3, || run(t)).as_secs_f64() * 1e3)
                .collect();
            let (r1, r2) = (times[1] / times[0], times[2] / times[1]);
            worst = worst.max(r1).max(r2);
            println!(
                "{:<24} {:<8} {:>9.2} {:>9.2} {:>9.2} {:>7.2} {:>7.2}",
                family.name(),
                name,
                times[0],
                times[1],
                times[2],
                r1,
                r2
            );
        }
    }
    println!("worst ratio: {worst:.2} (2.0 is linear)");
}
