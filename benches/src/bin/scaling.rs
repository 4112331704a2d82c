//! Prints how parse, extract and stream time grows with the size of hostile input: for
//! each family, the time at 1, 2 and 4 MB and the 2MB/1MB and 4MB/2MB ratios (about 2
//! when linear), then the peak resident memory each entry point adds while reading 4 MB
//! of the family, as a multiple of the input size (measured in a child process per
//! run, from the kernel's high-water mark; Linux only). Usage:
//! `scaling [FAMILY...]` (default: every family).

use payload_benches::{Family, table_view_options};
use payload_builtin::DataProposal;
use payload_core::LlmPayload;
use payload_core::Parser;
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

/// The entry points, by name.
const ENTRIES: [&str; 3] = ["parse", "extract", "stream"];

/// Runs entry point `name` over `text`.
fn run_entry(name: &str, text: &str) {
    let options = table_view_options();
    match name {
        "parse" => drop(black_box(Parser::new(&options).parse(text))),
        "extract" => {
            let payload = <DataProposal as LlmPayload>::TYPE;
            drop(black_box(payload_core::extract_as(text, &payload, None)));
        }
        _ => stream(&options, text),
    }
}

/// The process's peak resident set so far, in bytes (`VmHWM`), where the kernel says.
fn peak_resident() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// In a child process: reads `bytes` of `family` with `entry`, then prints the peak
/// resident memory the reading added.
fn measure_child(family: &str, entry: &str, bytes: usize) {
    let family = Family::ALL
        .into_iter()
        .find(|f| f.name() == family)
        .expect("a known family");
    let text = family.generate(bytes);
    // Warm the schema caches first, so their one-off cost is not counted.
    run_entry(entry, "warm up");
    let before = peak_resident().unwrap_or(0);
    run_entry(entry, &text);
    let after = peak_resident().unwrap_or(0);
    println!("{} {}", after.saturating_sub(before), text.len());
}

/// Peak resident memory added per entry point, as a multiple of the input size.
fn memory_report(wanted: &[String]) {
    let Ok(me) = std::env::current_exe() else {
        return;
    };
    if peak_resident().is_none() {
        println!("peak memory: not measured (no /proc on this system)");
        return;
    }
    println!();
    println!(
        "{:<24} {:<8} {:>10} {:>8}",
        "family", "entry", "peak MB", "x input"
    );
    let mut worst: f64 = 0.0;
    for family in Family::ALL {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == family.name()) {
            continue;
        }
        for entry in ENTRIES {
            let output = std::process::Command::new(&me)
                .args(["--measure", family.name(), entry, &(4 * MB).to_string()])
                .output();
            let Ok(output) = output else { continue };
            let line = String::from_utf8_lossy(&output.stdout);
            let mut numbers = line
                .split_whitespace()
                .filter_map(|n| n.parse::<usize>().ok());
            let (Some(peak), Some(len)) = (numbers.next(), numbers.next()) else {
                println!(
                    "{:<24} {:<8} failed: {}",
                    family.name(),
                    entry,
                    String::from_utf8_lossy(&output.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                );
                continue;
            };
            let ratio = peak as f64 / len as f64;
            worst = worst.max(ratio);
            println!(
                "{:<24} {:<8} {:>10.1} {:>8.1}",
                family.name(),
                entry,
                peak as f64 / MB as f64,
                ratio
            );
        }
    }
    println!("worst peak memory: {worst:.1}x the input");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--measure") && args.len() == 4 {
        let bytes = args[3].parse().expect("a size in bytes");
        measure_child(&args[1], &args[2], bytes);
        return;
    }
    let wanted = args;
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
    memory_report(&wanted);
}
