//! `payload eval` against the workspace's loopback server (payload-loopback) answering
//! each request, in order, with a recorded OpenAI-compatible stream: an accepted
//! payload, a rejected one the re-ask recovers, a whole response, one cut by the token
//! limit.

use payload_core::LlmPayload;
use payload_loopback::{Reply, Server};
use payload_registry::{Page, PayloadEntry, Registry};
use serde_json::Value;

mod types {
    use payload_core::LlmPayload;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A note.
    #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
    #[payload(marker = "NOTE")]
    pub struct Note {
        /// Its text.
        #[schemars(length(min = 1))]
        pub text: String,
    }
}

fn registry() -> Registry {
    Registry::from_parts(
        vec![PayloadEntry::new(types::Note::TYPE, &[])],
        vec![
            Page::new("notes")
                .instructions("Take notes.")
                .payloads(&[types::Note::TYPE]),
            Page::new("lists")
                .instructions("Offer up to three notes.")
                .payloads(&[types::Note::TYPE])
                .payload_count(payload_core::PayloadCount::at_most(3)),
        ],
        vec![],
    )
}

/// An OpenAI-compatible stream of `text` in two pieces, ending for `finish`, with usage.
fn stream(text: &str, finish: &str) -> Reply {
    let half = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    let piece = |t: &str| {
        format!(
            "data: {}\n\n",
            serde_json::json!({"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": null}]})
        )
    };
    Reply::Stream(
        format!(
            "{}{}data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
            piece(&text[..half]),
            piece(&text[half..]),
            serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
            serde_json::json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20}}),
        )
        .into_bytes(),
    )
}

/// The loopback server answering request n with `replies[n]`, and its `/v1` URL.
fn serve(replies: Vec<Reply>) -> (Server, String) {
    let server = Server::start(replies);
    let url = format!("{}/v1", server.url);
    (server, url)
}

fn eval(url: &str, file: &std::path::Path, extra: &[&str]) -> (std::process::ExitCode, String) {
    let mut args = vec![
        "payload",
        "eval",
        "--provider",
        "openai",
        "--base-url",
        url,
        "--model",
        "local",
        "--max-tokens",
        "64",
    ];
    args.extend_from_slice(extra);
    let file = file.to_str().unwrap().to_string();
    args.push(&file);
    let mut out = Vec::new();
    let code = crate::run(args, &registry(), &mut out).unwrap();
    (code, String::from_utf8(out).unwrap())
}

fn turn_file(name: &str, body: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("payload-eval-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("turns.json");
    std::fs::write(&path, body).unwrap();
    path
}

#[test]
fn each_turn_is_judged_and_the_totals_add_up() {
    let file = turn_file(
        "judged",
        r#"{"description": "notes", "turns": [
            {"page": "notes", "message": "Note milk", "expect": "note", "choice": "required"},
            {"page": "notes", "message": "Note eggs", "expect": ["note"]},
            {"page": "notes", "message": "Hello"},
            {"type": "note", "message": "Note bread"},
            {"type": "note", "message": "Note a long list"}
        ]}"#,
    );
    let (server, url) = serve(vec![
        stream("Sure.\n\nNOTE: {\"text\": \"milk\"}", "stop"),
        stream("NOTE: {\"text\": \"\"}", "stop"),
        stream("Fixed.\n\nNOTE: {\"text\": \"eggs\"}", "stop"),
        stream("Hi! How can I help?", "stop"),
        stream("{\"text\": \"bread\"}", "stop"),
        stream("{\"text\": \"bread, butter, jam, che", "length"),
    ]);
    let (code, out) = eval(&url, &file, &["--constrain", "gbnf"]);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let turns = report["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 5);
    assert_eq!(turns[0]["accepted"], true);
    assert_eq!(turns[0]["payload"], "note");
    assert_eq!(turns[0]["reasks"], 0);
    assert_eq!(turns[1]["accepted"], true);
    assert_eq!(turns[1]["reasks"], 1);
    assert_eq!(turns[1]["recovered"], true);
    assert_eq!(turns[1]["input_tokens"], 200);
    assert_eq!(turns[2]["accepted"], Value::Null, "nothing was expected");
    assert_eq!(turns[3]["accepted"], true);
    assert_eq!(turns[4]["accepted"], false);
    assert_eq!(turns[4]["truncated"], true);
    assert!(
        !turns[4]["rejected"][0]["errors"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let overall = &report["overall"];
    assert_eq!(overall["turns"], 5);
    assert_eq!(overall["expecting"], 4);
    assert_eq!(overall["accepted"], 3);
    assert_eq!(overall["reasks"], 1);
    assert_eq!(overall["recovered"], 1);
    assert_eq!(overall["truncated"], 1);
    assert_eq!(overall["output_tokens"], 120);
    assert_eq!(report["groups"][0][0], "page notes");
    assert_eq!(report["groups"][0][1]["accepted"], 2);
    assert_eq!(report["groups"][1][0], "type note");

    // What was sent: the required turn's page grammar, the page's own for the others,
    // the type's grammar for whole responses, each with bounded whitespace.
    let bodies: Vec<Value> = server.received().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 6);
    let grammar = |i: usize| bodies[i]["grammar"].as_str().unwrap().to_string();
    assert!(grammar(0).contains("choice required"), "{}", grammar(0));
    assert!(grammar(1).contains("choice auto"), "{}", grammar(1));
    assert!(grammar(4).starts_with("# A whole response: one note"));
    assert!(!grammar(4).contains("[ \\t\\n]*"));
    let system = bodies[4]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("JSON"), "{system}");
}

#[test]
fn the_markdown_report_has_a_row_per_page_or_type_and_per_turn() {
    let file = turn_file(
        "markdown",
        r#"{"turns": [
            {"page": "notes", "message": "Note | milk", "expect": "note"},
            {"type": "note", "message": "Note bread"}
        ]}"#,
    );
    let (_server, url) = serve(vec![
        stream("Just prose, no note.", "stop"),
        stream("{\"text\": \"bread\"}", "stop"),
    ]);
    let (code, out) = eval(&url, &file, &["--markdown"]);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{out}");
    assert!(out.contains("| page notes | 1 | 0/1 (0%) |"), "{out}");
    assert!(out.contains("| type note | 1 | 1/1 (100%) |"), "{out}");
    assert!(out.contains("| **all** | 2 | 1/2 (50%) |"), "{out}");
    assert!(
        out.contains("Note \\| milk"),
        "a | in a message is escaped: {out}"
    );
    assert!(out.contains("no grammar"), "{out}");
}

#[test]
fn a_failed_turn_is_reported_and_the_command_exits_1() {
    let file = turn_file(
        "failed",
        r#"{"turns": [{"page": "notes", "message": "Hi", "expect": "note"}]}"#,
    );
    let body = r#"{"error": {"message": "model not loaded"}}"#;
    let (_server, url) = serve(vec![Reply::Status(400, vec![], body.into())]);
    let (code, out) = eval(&url, &file, &[]);
    assert_eq!(code, std::process::ExitCode::from(1));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["overall"]["errors"], 1);
    assert!(
        report["turns"][0]["error"]
            .as_str()
            .unwrap()
            .contains("model not loaded"),
        "{out}"
    );
}

#[test]
fn bad_turn_files_are_refused_with_the_turn_named() {
    for (name, body, needle) in [
        (
            "both",
            r#"{"turns": [{"page": "notes", "type": "note", "message": "x"}]}"#,
            "turn 1",
        ),
        (
            "choice",
            r#"{"turns": [{"page": "notes", "message": "x", "choice": "always"}]}"#,
            "auto, required or none",
        ),
        ("unknown", r#"{"turns": [], "extra": 1}"#, "not a turn file"),
    ] {
        let file = turn_file(name, body);
        let mut out = Vec::new();
        let args = [
            "payload",
            "eval",
            "--provider",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            file.to_str().unwrap(),
        ];
        let error = crate::run(args, &registry(), &mut out).unwrap_err();
        assert!(error.to_string().contains(needle), "{name}: {error}");
    }
}

/// A refusal and a content filter's stop are outcomes counted apart: not a rejected
/// payload (the note the filter cut is not a validation error), not re-asked, not a
/// failed turn (the command exits 0, as for a rejected payload).
#[test]
fn refused_and_filtered_turns_are_counted_apart_and_never_reasked() {
    let file = turn_file(
        "refused",
        r#"{"turns": [
            {"page": "notes", "message": "Note milk", "expect": "note"},
            {"page": "notes", "message": "Note eggs", "expect": "note"},
            {"type": "note", "message": "Note bread"}
        ]}"#,
    );
    let refusal = Reply::Stream(
        concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I can't help with that.\"},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
        )
        .into(),
    );
    let (server, url) = serve(vec![
        refusal,
        stream("Sure.\n\nNOTE: {\"text\": \"eg", "content_filter"),
        stream("{\"text\": \"bre", "content_filter"),
    ]);
    let (code, out) = eval(&url, &file, &[]);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{out}");
    assert_eq!(server.received().len(), 3, "nothing was re-asked");
    let report: Value = serde_json::from_str(&out).unwrap();
    let turns = report["turns"].as_array().unwrap();
    let filtered = serde_json::json!({
        "message": "The provider's content filter stopped the answer.",
        "reason": "content_filter",
    });
    assert_eq!(
        turns[0]["refusal"],
        serde_json::json!({"message": "I can't help with that.", "reason": "refusal"})
    );
    assert_eq!(turns[1]["refusal"], filtered);
    assert_eq!(turns[2]["refusal"], filtered);
    for turn in turns {
        assert_eq!(turn["accepted"], false, "{turn}");
        assert_eq!(turn["rejected"], serde_json::json!([]), "{turn}");
        assert_eq!(turn["reasks"], 0, "{turn}");
        assert_eq!(turn["error"], Value::Null, "{turn}");
    }
    let overall = &report["overall"];
    assert_eq!(overall["refused"], 1);
    assert_eq!(overall["filtered"], 2);
    assert_eq!(overall["errors"], 0);
    assert_eq!(overall["rejected_by_kind"], serde_json::json!({}));

    let (_server, url) = serve(vec![stream("{\"text\": \"bre", "content_filter")]);
    let file = turn_file(
        "filtered-md",
        r#"{"turns": [{"type": "note", "message": "x"}]}"#,
    );
    let (_, out) = eval(&url, &file, &["--markdown"]);
    assert!(out.contains("| 0 / 1 |"), "{out}");
    assert!(
        out.contains("filtered: The provider's content filter stopped the answer."),
        "{out}"
    );
}

/// Each payload block is its own count: an answer on a page that allows three notes,
/// written with four (the fourth past the count, re-asked and written again with four),
/// counts three accepted blocks of four, per turn, per page and overall, and names each
/// accepted one in the Markdown.
#[test]
fn payload_blocks_are_counted_one_by_one() {
    let file = turn_file(
        "blocks",
        r#"{"turns": [{"page": "lists", "message": "Three notes", "expect": "note"}]}"#,
    );
    let four = "A\nNOTE: {\"text\": \"a\"}\nB\nNOTE: {\"text\": \"b\"}\nC\nNOTE: {\"text\": \"c\"}\nD\nNOTE: {\"text\": \"d\"}";
    let (server, url) = serve(vec![stream(four, "stop"), stream(four, "stop")]);
    let (code, out) = eval(&url, &file, &[]);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{out}");
    assert_eq!(
        server.received().len(),
        2,
        "the block past the count was re-asked"
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    let turn = &report["turns"][0];
    assert_eq!(
        turn["payloads"],
        serde_json::json!(["note", "note", "note"])
    );
    assert_eq!(
        turn["rejected"][0]["errors"],
        serde_json::json!(["extra_payload"])
    );
    assert_eq!(turn["accepted"], true);
    for summary in [&report["overall"], &report["groups"][0][1]] {
        assert_eq!(summary["blocks"], 4, "{summary}");
        assert_eq!(summary["blocks_accepted"], 3, "{summary}");
        assert_eq!(summary["accepted_by_type"], serde_json::json!({"note": 3}));
    }

    let (_server, url) = serve(vec![stream(four, "stop"), stream(four, "stop")]);
    let (_, out) = eval(&url, &file, &["--markdown"]);
    assert!(
        out.contains("| page lists | 1 | 1/1 (100%) | 3/4 |"),
        "{out}"
    );
    assert!(out.contains("accepted note, note, note"), "{out}");
}
