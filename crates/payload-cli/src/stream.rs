//! `payload stream --page PAGE [--chunk N] [FILE]` (docs/spec.md §6): replays a response
//! in chunks of N bytes (cut at char boundaries) through the page's streaming parser
//! and prints each event as Server-Sent Events, the way a chat backend would send them.

use crate::error::CliError;
use crate::input::{limits, read_input};
use payload_agent::page_options;
use payload_core::stream::StreamParser;
use payload_core::stream::sse::ServerSentEvent;
use payload_registry::Registry;
use std::io::Write;
use std::path::PathBuf;

/// Runs `payload stream`; `prompted` when the prompt opened the reasoning (the
/// response is read as if it began with `<think>`).
pub fn run(
    registry: &Registry,
    page: &str,
    chunk: usize,
    file: Option<&PathBuf>,
    limit: u64,
    prompted: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if chunk == 0 {
        return Err(CliError::Usage("--chunk must be at least 1".to_string()));
    }
    let mut options = page_options(registry, page)?;
    if prompted {
        options = options.reasoning_opened_by_prompt();
    }
    let text = read_input(file, limit)?;
    let parser = payload_core::Parser::new(&options).with_limits(limits(limit));
    replay(parser, &text, chunk, out)
}

/// Streams `text` in `chunk`-byte pieces through a parser for `options`, writing SSE.
fn replay(
    parser: payload_core::Parser,
    text: &str,
    chunk: usize,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let mut parser = StreamParser::with_parser(parser);
    for piece in chunks(text, chunk) {
        for event in parser.push(piece) {
            event.write_sse(out)?;
        }
    }
    let mut last = Vec::new();
    parser.finish_into(&mut last);
    for event in last {
        event.write_sse(out)?;
    }
    Ok(())
}

/// `text` in pieces of `size` bytes, each ending at a char boundary (a piece is longer
/// only when one char is wider than `size`).
fn chunks(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = size.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// Runs `payload stream`.
pub(crate) fn command(
    registry: &Registry,
    args: crate::args::StreamArgs,
    limit: u64,
    out: &mut dyn Write,
) -> Result<std::process::ExitCode, CliError> {
    run(
        registry,
        &args.page,
        args.chunk,
        args.file.as_ref(),
        limit,
        args.reasoning_opened_by_prompt,
        out,
    )?;
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use payload_core::ParseOptions;

    #[test]
    fn the_command_streams_a_file_on_a_page() {
        let registry =
            Registry::from_parts(vec![], vec![payload_registry::Page::new("chat")], vec![]);
        let path = std::env::temp_dir().join(format!("stream-cmd-{}.txt", std::process::id()));
        std::fs::write(&path, "Hello.\n\nSUGGESTED_VALUES: []").unwrap();
        let file = path.to_str().unwrap();
        let mut out = Vec::new();
        let args = ["payload", "stream", "--page", "chat", "--chunk", "3", file];
        crate::run(args, &registry, &mut out).unwrap();
        let sse = String::from_utf8(out).unwrap();
        assert!(
            sse.starts_with("event: text_delta\ndata: {\"text\":\"Hel"),
            "{sse}"
        );
        assert!(sse.ends_with("\n\n") && sse.contains("event: complete\n"));
        let mut out = Vec::new();
        let unknown = crate::run(
            ["payload", "stream", "--page", "nope", file],
            &registry,
            &mut out,
        );
        assert!(
            unknown
                .unwrap_err()
                .to_string()
                .contains("unknown page 'nope'")
        );
        let zero = crate::run(
            ["payload", "stream", "--page", "chat", "--chunk", "0", file],
            &registry,
            &mut out,
        );
        assert!(zero.unwrap_err().to_string().contains("--chunk"));
        std::fs::remove_file(path).ok();
    }

    /// A response from a model whose template opened `<think>` in the prompt: with
    /// `--reasoning-opened-by-prompt`, `payload parse` and `payload stream` read its
    /// draft before `</think>` as reasoning and only the answer's chips; without the
    /// flag the draft's chips win and the draft is shown.
    #[test]
    fn the_flag_reads_a_draft_before_the_prompts_think_as_reasoning() {
        let registry =
            Registry::from_parts(vec![], vec![payload_registry::Page::new("chat")], vec![]);
        let path = std::env::temp_dir().join(format!("prompted-{}.txt", std::process::id()));
        std::fs::write(
            &path,
            "Draft.\nSUGGESTED_VALUES: [{\"label\": \"No\", \"value\": \"No\"}]\n</think>\n\
             Hello.\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes\"}]",
        )
        .unwrap();
        let file = path.to_str().unwrap();
        for (flag, label, message) in [
            (true, "Yes", "Hello."),
            (false, "No", "Draft.\n\n</think>\nHello."),
        ] {
            for command in [&["parse"][..], &["stream", "--chunk", "5"]] {
                let mut args = vec!["payload"];
                args.extend_from_slice(command);
                args.extend(["--page", "chat", file]);
                if flag {
                    args.push("--reasoning-opened-by-prompt");
                }
                let mut out = Vec::new();
                crate::run(args, &registry, &mut out).unwrap();
                let out = String::from_utf8(out).unwrap();
                let json = match out.rsplit_once("event: complete\ndata: ") {
                    Some((_, data)) => data.trim_end(),
                    None => out.as_str(),
                };
                let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
                let context = format!("{command:?}, flag {flag}: {out}");
                assert_eq!(parsed["suggested_values"][0]["label"], label, "{context}");
                assert_eq!(parsed["message"], message, "{context}");
                assert_eq!(parsed["reasoning"].as_str().is_some(), flag, "{context}");
            }
        }
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn chunks_are_cut_at_char_boundaries() {
        let pieces: Vec<&str> = chunks("abcdé☕fg", 2).collect();
        assert_eq!(pieces, ["ab", "cd", "é", "☕", "fg"]);
        assert_eq!(chunks("", 7).count(), 0);
    }

    #[test]
    fn a_replay_prints_deltas_then_complete_as_sse() {
        let text = "Pick one.\n\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes\"}]";
        let mut out = Vec::new();
        replay(
            payload_core::Parser::new(&ParseOptions::new()),
            text,
            7,
            &mut out,
        )
        .unwrap();
        let sse = String::from_utf8(out).unwrap();
        let events: Vec<(&str, serde_json::Value)> = sse
            .split_terminator("\n\n")
            .map(|block| {
                let (name, data) = block.split_once('\n').unwrap();
                let data = data.strip_prefix("data: ").unwrap();
                (
                    name.strip_prefix("event: ").unwrap(),
                    serde_json::from_str(data).unwrap(),
                )
            })
            .collect();
        let shown: String = events
            .iter()
            .filter(|(name, _)| *name == "text_delta")
            .map(|(_, data)| data["text"].as_str().unwrap())
            .collect();
        assert_eq!(shown, "Pick one.");
        assert!(events.iter().any(|(name, _)| *name == "payload_start"));
        let (name, data) = events.last().unwrap();
        assert_eq!(*name, "complete");
        assert_eq!(data["message"], "Pick one.");
        assert_eq!(data["suggested_values"][0]["label"], "Yes");
    }
}
