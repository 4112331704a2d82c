//! `--max-input-bytes` is the one size setting (docs/spec.md §8.2): the command passes it to
//! the library, so raising it lets a larger response through every entry point, and
//! lowering it refuses a smaller one.

use super::{limits, run};
use payload_registry::{Page, Registry};
use std::io::Write;
use std::process::ExitCode;

const MIB: usize = 1024 * 1024;

/// Runs the command with `args` on a response held in a temporary file.
fn run_on(response: &str, args: &[&str]) -> (Result<ExitCode, super::CliError>, String) {
    let dir = std::env::temp_dir().join(format!("payload-cli-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.txt", args.join("-").replace(['/', ' '], "_")));
    std::fs::File::create(&path)
        .unwrap()
        .write_all(response.as_bytes())
        .unwrap();
    let mut argv: Vec<String> = vec!["payload".into()];
    argv.extend(args.iter().map(|a| a.to_string()));
    argv.push(path.display().to_string());
    let mut out = Vec::new();
    let registry = Registry::from_parts(vec![], vec![Page::new("chat")], vec![]);
    let code = run(argv, &registry, &mut out);
    let _ = std::fs::remove_file(&path);
    (code, String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn the_setting_maps_to_the_library_limit_both_ways() {
    assert_eq!(limits(10).max_input_bytes, 10);
    assert_eq!(limits(64 << 20).max_input_bytes, 64 * MIB);
    assert_eq!(limits(u64::MAX).max_input_bytes, usize::MAX);
}

#[test]
fn raising_the_cap_lets_a_larger_response_through_the_library() {
    let page = "chat";
    let big = "word ".repeat(17 * MIB / 5 + 1);
    assert!(big.len() > 16 * MIB);
    let cap = (32 * MIB).to_string();
    for command in [&["parse"][..], &["stream", "--chunk", "65536"]] {
        let mut args = vec!["--max-input-bytes", &cap];
        args.extend_from_slice(command);
        args.extend_from_slice(&["--page", page]);
        let (code, out) = run_on(&big, &args);
        assert!(code.is_ok(), "{command:?}: {:?}", code.err());
        assert!(
            !out.contains("more than the limit"),
            "{command:?} refused what the setting allows"
        );
    }
}

#[test]
fn lowering_the_cap_refuses_a_smaller_response() {
    let page = "chat";
    let (code, _) = run_on(
        &"word ".repeat(100),
        &["--max-input-bytes", "50", "parse", "--page", page],
    );
    let error = code.expect_err("refused");
    assert!(
        error.to_string().contains("larger than 50 bytes"),
        "{error}"
    );
}
