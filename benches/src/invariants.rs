//! The guarantees of marker mode as checks, shared by the property tests and the fuzz
//! targets so that both assert the same invariants (not only "does not panic"):
//!
//! - **stream equals one-shot**: under any chunking, the stream's final parse is the
//!   one-shot parse and its text deltas are exactly the message;
//! - **accounting** (docs/spec.md §1.13): with I the input's non-whitespace characters, the
//!   message's are a subsequence of I, every accepted and rejected block's text is a
//!   slice of the input, and I is exactly (as a multiset) the message's characters plus
//!   those of the accepted blocks and the rejected blocks — nothing lost, nothing
//!   counted twice; and what an accepted suggestion block held is in the result or
//!   quoted in a warning (an empty block, an undeclared member of an item, a dropped
//!   item), since the block's own text is not part of what the app sees;
//! - **numbers as written** (docs/spec.md §7.2): no accepted block holds a number whose digits
//!   were lost on reading (`1e-400` read as 0) — it is rejected with an error instead;
//! - **allow-lists** (docs/spec.md §1.7, §1.8, §5.5): no result and no stream event names a type
//!   the page does not offer or an action it does not register with that handler;
//! - **a block ends where the text says** (docs/spec.md §1.14): a `truncated` rejection is one
//!   the text really ended in, so its raw reaches the end of the input (trailing
//!   whitespace aside); a block cut earlier is `unclosed`, and the text after it is read.
//! - **reasoning is apart** (docs/spec.md §9.1): the reasoning is what a plain reading of the
//!   rule ([`reference_split`]) finds, the accounting above holds for the rest of the
//!   text (the answer), the stream's reasoning deltas are exactly the reasoning, and
//!   reasoning never supplies anything: `<think>X</think>` before a response changes
//!   nothing in its parse but the reasoning ([`check_reasoning_is_apart`]).
//! - **nothing removed unaccounted** (docs/spec.md §1.9, §1.13), whitespace included
//!   ([`check_spans`]): every character of the answer is in the message, in a removed
//!   span (`ParsedResponse::removed_spans`: a block's text, which is its `raw`, and its
//!   seam), or in the reasoning; the prose outside the spans is in the message byte for
//!   byte, and at each span the message puts back only whitespace of that span.
//! - **no block starts inside a string** (docs/spec.md §1.19, [`check_marker_in_string`]):
//!   a marker line written inside a JSON string of a valid value never yields a block, a
//!   suggestion or an action; the value is read with the line in its string.
//! - **previews and elements** (docs/spec.md §5.5, §5.6, [`check_streamed_blocks`]):
//!   every preview of the accepted payload is a faithful early view of its final data,
//!   the last one is that data, and each top-level list element comes once, in order,
//!   as the final data's element.
//! - **a strict read ends a value where the scanner does**: wherever serde_json reads a
//!   value from a bracket, the scanner ends that value at the same byte, and the parse
//!   that finds block ends by strict reads equals the one that scans them all
//!   ([`check_strict_reads`]).

use payload_core::ParseOptions;
use payload_core::ParsedResponse;
use payload_core::Parser;
use payload_core::stream::{Previews, StreamEvent, StreamParser};

/// Feeds `text` to a stream parser for `options` in chunks of `sizes` bytes (cycled,
/// moved forward to a character boundary), checks every event against the page's
/// allow-lists and the deltas against the message, checks that each chunk gives the
/// events it gives with no shortcut (`__internals::stream::without_shortcuts`), and
/// returns the final parse.
pub fn stream_checked(options: &ParseOptions, text: &str, sizes: &[usize]) -> ParsedResponse {
    stream_checked_with(options, text, sizes, Previews::Doubling)
}

/// [`stream_checked`] with the open block previewed as `previews` says: every
/// guarantee holds whatever the cadence (a preview on every chunk is as faithful an
/// early view as one at each doubling).
pub fn stream_checked_with(
    options: &ParseOptions,
    text: &str,
    sizes: &[usize],
    previews: Previews,
) -> ParsedResponse {
    let mut stream = StreamParser::new(options).with_previews(previews);
    let mut reference = payload_core::__internals::stream::without_shortcuts(
        StreamParser::new(options).with_previews(previews),
    );
    let mut shown = String::new();
    let mut thought = String::new();
    let mut blocks: Vec<StreamedBlock> = Vec::new();
    // Every event but `complete`, for the parts' checks.
    let mut sent = Vec::new();
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            note_block_event(&mut blocks, &event);
            if !matches!(event, StreamEvent::Complete(_)) {
                sent.push(event.clone());
            }
            match event {
                StreamEvent::TextDelta { text, .. } => shown.push_str(&text),
                StreamEvent::ReasoningDelta { text, .. } => thought.push_str(&text),
                StreamEvent::PayloadEnd { kind, .. } => assert_offered(options, &kind),
                StreamEvent::PayloadStart { kind, .. } => assert_offered(options, &kind),
                StreamEvent::PayloadProgress {
                    kind,
                    partial,
                    open,
                    ..
                } => {
                    assert_offered(options, &kind);
                    assert_open_point_is_inside(&partial, open.as_deref());
                    if kind == "suggested_actions" {
                        let items = partial.as_array().expect("an actions preview is an array");
                        for item in items {
                            assert_allowed(
                                options,
                                item["action"].as_str(),
                                item["handler"].as_str(),
                            );
                        }
                    }
                }
                StreamEvent::PayloadElement { kind, .. } => assert_offered(options, &kind),
                StreamEvent::Complete(_) => {}
            }
        }
    };
    let (mut at, mut i) = (0, 0);
    while at < text.len() {
        let size = sizes
            .get(i % sizes.len().max(1))
            .copied()
            .unwrap_or(3)
            .max(1);
        i += 1;
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let events = stream.push(&text[at..end]);
        assert_eq!(
            events,
            reference.push(&text[at..end]),
            "a chunk gives the events it gives with no shortcut"
        );
        take(events);
        at = end;
    }
    // The stream ends as a relay ends it (the parse moved into `complete`), the
    // reference as `finish` does (the parse returned beside it): the same events.
    let mut events = Vec::new();
    stream.finish_into(&mut events);
    let (reference_events, parsed) = reference.finish();
    assert_eq!(
        events, reference_events,
        "the end gives the events it gives with no shortcut"
    );
    assert!(
        matches!(events.last(), Some(StreamEvent::Complete(last)) if **last == parsed),
        "the stream ends with `complete` holding the final parse"
    );
    take(events);
    check_streamed_blocks(&blocks, &parsed);
    assert_eq!(shown, parsed.message, "the deltas are the message");
    if !parsed.rejected.iter().any(|r| r.kind == "response") {
        assert_eq!(
            Some(thought).filter(|t| !t.is_empty()),
            parsed.reasoning,
            "the reasoning deltas are the reasoning"
        );
        // Each event names the part it belongs to in the final parts, and the deltas
        // of each part make its text (docs/spec.md §1.22).
        if let Err(wrong) = payload_core::__internals::parts::check_part_events(&sent, &parsed) {
            panic!("{wrong}");
        }
    }
    parsed
}

/// What the stream said about one block: its type, its previews (value and open point)
/// and its list elements (pointer, index, element), in order.
#[derive(Debug, Default)]
pub struct StreamedBlock {
    /// The type `payload_start` named.
    pub kind: String,
    /// The `payload_progress` previews.
    pub previews: Vec<(serde_json::Value, Option<String>)>,
    /// The `payload_element` events.
    pub elements: Vec<(String, usize, serde_json::Value)>,
}

/// Files a block event under the block it belongs to (the last one started).
pub fn note_block_event(blocks: &mut Vec<StreamedBlock>, event: &StreamEvent) {
    match event {
        StreamEvent::PayloadStart { kind, .. } => blocks.push(StreamedBlock {
            kind: kind.clone(),
            ..StreamedBlock::default()
        }),
        StreamEvent::PayloadProgress {
            kind,
            partial,
            open,
            ..
        } => {
            let block = blocks
                .last_mut()
                .expect("a preview follows its block's start");
            assert_eq!(&block.kind, kind, "a preview names its block's type");
            block.previews.push((partial.clone(), open.clone()));
        }
        StreamEvent::PayloadElement {
            kind,
            pointer,
            index,
            element,
            ..
        } => {
            let block = blocks
                .last_mut()
                .expect("an element follows its block's start");
            assert_eq!(&block.kind, kind, "an element names its block's type");
            block
                .elements
                .push((pointer.clone(), *index, element.clone()));
        }
        _ => {}
    }
}

/// The preview and element guarantees (docs/spec.md §5.5, §5.6), on what the stream
/// said about each block and the final parse:
/// - each list's elements come once each, in order (indices 0, 1, 2, ... per pointer);
/// - for the accepted custom payload (when the response held one block of its type,
///   announced, and no key was written twice): every preview is a faithful early view of the final data
///   (`preview_fits`), the last one is the final data, and the elements are exactly
///   the final data's top-level list elements.
pub fn check_streamed_blocks(blocks: &[StreamedBlock], parsed: &ParsedResponse) {
    for block in blocks {
        let mut next: std::collections::HashMap<&str, usize> = Default::default();
        for (pointer, index, _) in &block.elements {
            let expected = next.entry(pointer.as_str()).or_default();
            assert_eq!(
                *index, *expected,
                "the elements of {pointer:?} come once each, in order"
            );
            *expected += 1;
        }
    }
    let Some(payload) = &parsed.custom_payload else {
        return;
    };
    let duplicates = parsed
        .warnings
        .iter()
        .any(|w| w.kind == payload_core::WarningKind::DuplicateKey);
    // The block the payload came from: the one block of its type announced, when the
    // response held one block of that type in all.
    let written = parsed
        .accepted_blocks()
        .filter(|(kind, _)| *kind == payload.kind)
        .count()
        + parsed
            .rejected
            .iter()
            .filter(|r| r.kind == payload.kind)
            .count();
    let mut of_type = blocks.iter().filter(|b| b.kind == payload.kind);
    let (Some(block), None, 1) = (of_type.next(), of_type.next(), written) else {
        return;
    };
    if duplicates || block.previews.is_empty() {
        // A key written twice keeps its last value, which an earlier preview could not
        // know; a value held in a string has no preview.
        return;
    }
    let data = payload.data();
    for (preview, open) in &block.previews {
        if let Err(why) =
            payload_core::__internals::stream::preview_fits(preview, open.as_deref(), data)
        {
            panic!("a preview shows what the final data does not hold: {why}");
        }
    }
    assert_eq!(
        block
            .previews
            .last()
            .map(|(value, open)| (value, open.as_deref())),
        Some((data, None)),
        "the last preview before `complete` is the final data"
    );
    let mut lists: Vec<(String, &serde_json::Value)> = Vec::new();
    match data {
        serde_json::Value::Array(_) => lists.push((String::new(), data)),
        serde_json::Value::Object(members) => {
            for (key, member) in members {
                if member.is_array() {
                    lists.push((format!("/{}", escape(key)), member));
                }
            }
        }
        _ => {}
    }
    let mut expected: Vec<(String, usize, serde_json::Value)> = Vec::new();
    for (pointer, list) in lists {
        for (index, element) in list.as_array().into_iter().flatten().enumerate() {
            expected.push((pointer.clone(), index, element.clone()));
        }
    }
    let mut streamed = block.elements.clone();
    // Lists arrive in text order; the final data's members may iterate in another.
    streamed.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    expected.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    assert_eq!(
        streamed, expected,
        "the elements are the final data's top-level list elements"
    );
}

/// A JSON pointer token.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A progress event's open point leads into its partial value: every container on the
/// way exists (the last step may be a member not shown yet, such as a number still
/// being typed), so a typed reader's "complete" marks are about members it can see.
pub fn assert_open_point_is_inside(partial: &serde_json::Value, open: Option<&str>) {
    let Some(open) = open else {
        return;
    };
    assert!(
        open.is_empty() || open.starts_with('/'),
        "not a JSON pointer: {open:?}"
    );
    let parent = open.rfind('/').map_or("", |at| &open[..at]);
    assert!(
        partial.pointer(parent).is_some(),
        "the open point {open:?} is outside the preview {partial}"
    );
}

/// Every marker-mode guarantee on `text`: the one-shot parse, the stream under
/// `sizes`, accounting and allow-lists. Panics where one is broken.
pub fn check_marker_mode(parser: &Parser, options: &ParseOptions, text: &str, sizes: &[usize]) {
    let parsed = parser.parse(text);
    assert_eq!(
        stream_checked(options, text, sizes),
        parsed,
        "stream equals one-shot"
    );
    // A section the prompt opened reads as one written at the start (docs/markers.md).
    let written = if options.reasoning_opened_by_prompt {
        section_written(text)
    } else {
        text.to_string()
    };
    check_accounting(&written, &parsed);
    check_spans(&written, &parsed);
    // The parts tile the response as given (the prompt's `<think>` is not in it).
    if let Err(wrong) = payload_core::__internals::parts::check_parts(text, &parsed) {
        panic!("{wrong}: {text:?}");
    }
    check_allow_lists(options, &parsed);
    check_accepted_numbers(&parsed);
    check_block_ends(&written, &parsed);
    check_strict_reads(parser, text, &parsed);
}

/// `text` with the `<think>` a prompt opened written where it stands: after the leading
/// whitespace, unless a section's opener is written there already.
pub fn section_written(text: &str) -> String {
    if opens_with_section(text) {
        return text.to_string();
    }
    let body = text.trim_start_matches(reference_space);
    let lead = &text[..text.len() - body.len()];
    format!("{lead}<think>{body}")
}

/// The segmenter's strict reads change nothing (module docs): `parsed`, which is
/// `parser.parse(text)`, equals the parse that finds every block's end with the scanner
/// alone, and at each of the first `MAX_STARTS` brackets of `text` where a strict read
/// succeeds, the scanner ends the value at the byte the read did.
pub fn check_strict_reads(parser: &Parser, text: &str, parsed: &ParsedResponse) {
    const MAX_STARTS: usize = 64;
    use payload_core::__internals::{balanced, marker, strict};
    assert_eq!(
        *parsed,
        marker::parse_scanning_only(parser, text),
        "the parse with strict reads equals the scanning one"
    );
    let starts = text.match_indices(['{', '[']).take(MAX_STARTS);
    for (start, _) in starts {
        if let Some((_, len)) = strict::read_prefix(&text[start..]) {
            assert_eq!(
                balanced::scan(text, start),
                balanced::Balanced::Complete { end: start + len },
                "the scanner ends the value read at {start} where the read did: {text:?}"
            );
        }
    }
}

/// The JSON value an accepted block's text holds, from its first opener to its last
/// closer, read as the parser reads it; `None` when it holds none.
fn block_value(
    raw: &str,
    openers: &[char],
    closers: &[char],
) -> Option<payload_core::__internals::json::Decoded> {
    let (start, end) = (raw.find(openers)?, raw.rfind(closers)?);
    if end < start {
        return None;
    }
    let origin = payload_core::Location { line: 1, column: 1 };
    payload_core::__internals::json::decode(&raw[start..=end], origin).ok()
}

/// No accepted block holds a number that differs from its literal (docs/spec.md §7.2): the
/// value of each accepted block, read again, has no number whose digits were lost.
pub fn check_accepted_numbers(parsed: &ParsedResponse) {
    for (kind, raw) in parsed.accepted_blocks() {
        let Some(decoded) = block_value(raw, &['{', '['], &['}', ']']) else {
            continue;
        };
        assert!(
            decoded.notes.imprecise_paths().is_empty() && decoded.notes.inexact_paths().is_empty(),
            "an accepted {kind} block holds a number that differs from its literal: {raw:?}"
        );
    }
}

/// What an abandoned draft is written with: JSON punctuation, digits, lower-case words,
/// spaces, line breaks and comments; nothing that opens a fence, a quote or a marker.
const DRAFT_ALPHABET: &[u8] = b"{}[]\":,'\\/*-. \n\n\t0123456789abcdeflnorstu_";

/// A valid block for the table view page, written after a draft.
pub const VALID_DATA_PROPOSAL: &str =
    r#"DATA_PROPOSAL: {"operations": [{"action": "delete", "row_id": 7}]}"#;

/// An abandoned draft made of `data` (each byte picks a character of the draft's
/// alphabet), for the fuzz targets.
pub fn draft_from_bytes(data: &[u8]) -> String {
    data.iter()
        .map(|&b| DRAFT_ALPHABET[b as usize % DRAFT_ALPHABET.len()] as char)
        .collect()
}

/// docs/spec.md §1.14, a model that abandons a draft: whatever the draft of a block holds (cut
/// anywhere, never closed, or closed), when the response goes on with prose, the
/// corrected block and closing words, a block is accepted and the closing words are the
/// end of the message; stream, accounting and allow-lists hold on it too.
pub fn check_abandoned_draft(
    parser: &Parser,
    options: &ParseOptions,
    draft: &str,
    sizes: &[usize],
) {
    let text = format!(
        "Intro.\n\nDATA_PROPOSAL: {{{draft}\n\nSome prose.\n\n{VALID_DATA_PROPOSAL}\n\nThanks."
    );
    check_marker_mode(parser, options, &text, sizes);
    let parsed = parser.parse(&text);
    assert!(
        parsed.custom_payload.is_some(),
        "the corrected block is lost after the draft {draft:?}: {parsed:#?}"
    );
    assert!(
        parsed.message.ends_with("Thanks."),
        "the closing words are lost after the draft {draft:?}: {:?}",
        parsed.message
    );
}

/// docs/spec.md §1.14 (module docs): every `truncated` rejection reaches the end of the input's
/// answer (the input without its reasoning, docs/spec.md §9.1).
pub fn check_block_ends(text: &str, parsed: &ParsedResponse) {
    let (answer, _, _) = reference_split(text);
    let text = answer.as_str();
    for block in &parsed.rejected {
        let truncated = block
            .errors
            .iter()
            .any(|e| e.kind() == payload_core::ErrorKind::Truncated);
        if truncated && block.kind != "response" {
            assert!(
                text.trim_end().ends_with(block.raw.as_str()),
                "a truncated block that the text goes on after: {:?} in {text:?}",
                block.raw
            );
        }
    }
}

fn visible(text: &str) -> Vec<char> {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// How reasoning sections open and close (docs/spec.md §9.1), lowercase: each opener
/// with its closers. Written here, not taken from the parser, so that the property tests
/// hold the parser's table to the spec's too.
const REASONING_SECTIONS: [(&str, &[&str]); 10] = [
    ("<think>", &["</think>"]),
    ("<thinking>", &["</thinking>"]),
    ("<reasoning>", &["</reasoning>"]),
    ("[think]", &["[/think]"]),
    ("\u{25C1}think\u{25B7}", &["\u{25C1}/think\u{25B7}"]),
    ("<seed:think>", &["</seed:think>"]),
    (
        "<|start|>assistant<|channel|>analysis<|message|>",
        &[
            "<|end|><|start|>assistant<|channel|>final<|message|>",
            "<|end|>",
        ],
    ),
    (
        "<|channel|>analysis<|message|>",
        &[
            "<|end|><|start|>assistant<|channel|>final<|message|>",
            "<|end|>",
        ],
    ),
    // Ollama's command line: only as the output's first visible line (below).
    ("thinking...\n", &["...done thinking."]),
    ("thinking...\r\n", &["...done thinking."]),
];

/// The sections whose openers open only before any visible answer text.
const LEADING_ONLY: [&str; 2] = ["thinking...\n", "thinking...\r\n"];

/// gpt-oss's final channel (lowercase): its headers and its end tokens are notation
/// around the answer, taken out; it is open after the analysis channel's closer that
/// holds its header.
const FINAL_HEADERS: [&str; 2] = [
    "<|start|>assistant<|channel|>final<|message|>",
    "<|channel|>final<|message|>",
];
const FINAL_ENDS: [&str; 2] = ["<|return|>", "<|end|>"];

/// The first closer in `lower` (lowercased text): where it starts and its length; at
/// one place, the longest.
fn first_closer(lower: &str, closers: &[&str]) -> Option<(usize, usize)> {
    closers
        .iter()
        .filter_map(|close| lower.find(close).map(|at| (at, close.len())))
        .min_by_key(|&(at, len)| (at, std::cmp::Reverse(len)))
}

/// Space as the reference reading of the reasoning rule counts it: any whitespace and
/// the invisible characters of docs/spec.md §9.3 (written here, not taken from the
/// parser, so the reference stays independent of what it checks).
fn reference_space(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
        )
}

/// A plain, whole-text reading of the reasoning rule (docs/spec.md §9.1), independent of the
/// parser's incremental one: `(answer, sections, unclosed)`. A section opens with
/// one of the openers of `REASONING_SECTIONS` (any case) where only whitespace (or an
/// invisible character, docs/spec.md §9.3) stands between it and the start of the text or of a
/// line (a `LEADING_ONLY` one only while the answer so far is all space), and closes at
/// the first of its closers. gpt-oss's final channel (`FINAL_HEADERS` where a section
/// may open, or after a closer that ends with one) is answer text up to the first of
/// `FINAL_ENDS`; its header and end are in neither.
pub fn reference_split(text: &str) -> (String, Vec<String>, bool) {
    // ASCII lowercasing keeps every byte offset.
    let lower = text.to_ascii_lowercase();
    let space = reference_space;
    let (mut answer, mut sections) = (String::new(), Vec::new());
    let (mut pos, mut line) = (0, Some(0));
    // Inside the final channel from `pos`: read its answer up to its end.
    let final_channel = |answer: &mut String, body: usize| -> usize {
        match first_closer(&lower[body..], &FINAL_ENDS) {
            Some((n, len)) => {
                answer.push_str(&text[body..body + n]);
                body + n + len
            }
            None => {
                answer.push_str(&text[body..]);
                text.len()
            }
        }
    };
    while let Some(start) = line {
        let first = text[start..]
            .find(|c: char| !space(c))
            .map_or(text.len(), |n| start + n);
        let blank_so_far =
            !answer.chars().any(|c| !space(c)) && !text[pos..first].chars().any(|c| !space(c));
        if let Some(header) = FINAL_HEADERS
            .iter()
            .find(|h| lower[first..].starts_with(*h))
        {
            answer.push_str(&text[pos..first]);
            pos = final_channel(&mut answer, first + header.len());
            line = text[pos..].find('\n').map(|n| pos + n + 1);
            continue;
        }
        let opened = REASONING_SECTIONS.iter().find(|(open, _)| {
            lower[first..].starts_with(open) && (blank_so_far || !LEADING_ONLY.contains(open))
        });
        let Some((open, closers)) = opened else {
            line = text[first..].find('\n').map(|n| first + n + 1);
            continue;
        };
        answer.push_str(&text[pos..first]);
        let body = first + open.len();
        match first_closer(&lower[body..], closers) {
            Some((n, len)) => {
                sections.push(text[body..body + n].to_string());
                pos = body + n + len;
                let closer = &lower[body + n..pos];
                if FINAL_HEADERS.iter().any(|h| closer.ends_with(h)) {
                    pos = final_channel(&mut answer, pos);
                }
                line = text[pos..].find('\n').map(|n| pos + n + 1);
            }
            None => {
                sections.push(text[body..].to_string());
                return (answer, sections, true);
            }
        }
    }
    answer.push_str(&text[pos..]);
    (answer, sections, false)
}

/// The reasoning a response with these sections has: each trimmed, the empty ones
/// dropped, the rest joined with a blank line; `None` when nothing is left.
pub fn joined_reasoning<S: AsRef<str>>(sections: &[S]) -> Option<String> {
    let kept: Vec<&str> = sections
        .iter()
        .map(|s| s.as_ref().trim())
        .filter(|s| !s.is_empty())
        .collect();
    (!kept.is_empty()).then(|| kept.join("\n\n"))
}

/// Reasoning never supplies anything (docs/spec.md §9.1): `<think>` + `x` + `</think>` before
/// `y` parses as `y` does, with `x` (trimmed) as its reasoning, however `x` looks; and
/// with a line break after the closing tag, the message, payload and suggestions are
/// still `y`'s (locations then count one more line). `x` must not hold `</think>`.
pub fn check_reasoning_is_apart(parser: &Parser, x: &str, y: &str) {
    assert!(!x.to_ascii_lowercase().contains("</think>"));
    let plain = parser.parse(y);
    if plain.rejected.iter().any(|r| r.kind == "response") {
        return;
    }
    // A section that opens `y` (even an empty one) would be glued after `</think>`
    // here, where it is not at a line start: compare only when none does.
    let expected =
        joined_reasoning(&[Some(x), plain.reasoning.as_deref()].map(|s| s.unwrap_or("")));
    if !opens_with_section(y) {
        let glued_text = format!("<think>{x}</think>{y}");
        let mut glued = parser.parse(&glued_text);
        assert_eq!(glued.reasoning, expected, "the reasoning is x, then y's");
        glued.reasoning = plain.reasoning.clone();
        assert_same_answer_parts(&plain, &glued, glued_text.len() - y.len());
        glued.parts = plain.parts.clone();
        assert_eq!(glued, plain, "reasoning changed the parse");
    }
    let broken = parser.parse(&format!("<think>{x}</think>\n{y}"));
    assert_eq!(broken.message, plain.message);
    assert_eq!(broken.custom_payload, plain.custom_payload);
    assert_eq!(broken.suggested_values, plain.suggested_values);
    assert_eq!(broken.suggested_actions, plain.suggested_actions);
    let raws = |p: &ParsedResponse| p.rejected.iter().map(|r| r.raw.clone()).collect::<Vec<_>>();
    assert_eq!(raws(&broken), raws(&plain));
    assert_eq!(broken.reasoning, expected);
}

/// The parts of `a` and `b` other than reasoning (and an empty text part) are the
/// same, those of `b` ending
/// `shift` bytes later (`b`'s response is `a`'s with `shift` bytes of reasoning written
/// before its answer).
pub fn assert_same_answer_parts(a: &ParsedResponse, b: &ParsedResponse, shift: usize) {
    use payload_core::response::PartKind;
    let answer = |p: &ParsedResponse, shift: usize| {
        p.parts
            .iter()
            // A response of nothing but space is one empty text part; beside reasoning
            // it has none.
            .filter(|part| match &part.kind {
                PartKind::Reasoning(_) => false,
                PartKind::Text(range) => !range.is_empty(),
                _ => true,
            })
            .map(|part| (part.kind.clone(), part.span.end - shift))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        answer(a, 0),
        answer(b, shift),
        "reasoning changed the parts"
    );
}

/// Whether a reasoning section opens `text` (after whitespace), by the rule's tags.
fn opens_with_section(text: &str) -> bool {
    let start = text
        .trim_start_matches(reference_space)
        .to_ascii_lowercase();
    REASONING_SECTIONS
        .iter()
        .map(|(open, _)| *open)
        .chain(FINAL_HEADERS)
        .any(|open| start.starts_with(open))
}

/// `x` with every `</think>` (in any case) taken out, for [`check_reasoning_is_apart`].
pub fn without_close_tag(x: &str) -> String {
    let mut x = x.to_string();
    while let Some(at) = x.to_ascii_lowercase().find("</think>") {
        x.replace_range(at..at + "</think>".len(), "");
    }
    x
}

/// The accounting invariant (module docs), and that the reasoning is what the rule
/// says; a marker removed for having no value (docs/spec.md §1.17) counts with its missed block.
/// A response over the size cap is refused unread and exempt.
pub fn check_accounting(text: &str, parsed: &ParsedResponse) {
    if parsed.rejected.iter().any(|r| r.kind == "response") {
        return;
    }
    let (answer, sections, _) = reference_split(text);
    assert_eq!(
        parsed.reasoning,
        joined_reasoning(&sections),
        "the reasoning is what the rule finds in {text:?}"
    );
    let text = answer.as_str();
    let input = visible(text);
    let message = visible(&parsed.message);
    let mut rest = input.iter();
    for c in &message {
        assert!(
            rest.any(|i| i == c),
            "the message is not a subsequence of the input at {c:?}: {:?}",
            parsed.message
        );
    }
    let mut accounted = message;
    for block in &parsed.rejected {
        assert!(
            text.contains(&block.raw),
            "a raw is not from the input: {block:?}"
        );
        accounted.extend(visible(&block.raw));
    }
    for missed in parsed.missed_blocks() {
        assert!(
            text.contains(&missed.raw),
            "a missed block's text is not from the input: {missed:?}"
        );
        accounted.extend(visible(&missed.raw));
    }
    for (kind, raw) in parsed.accepted_blocks() {
        assert!(
            text.contains(raw),
            "accepted {kind} text is not from the input: {raw:?}"
        );
        accounted.extend(visible(raw));
    }
    let mut expected = input;
    expected.sort_unstable();
    accounted.sort_unstable();
    assert!(
        expected == accounted,
        "characters lost or counted twice: {text:?} -> {parsed:#?}"
    );
    check_suggestions_visible(parsed);
}

/// Nothing removed unaccounted (module docs), every character counted, whitespace
/// included: the removed spans are disjoint and in order, each one's text trimmed is
/// the text of one block (accepted, rejected or missed, each used once), and the
/// message is the answer outside the spans, trimmed, with only whitespace taken from
/// each span put back at it. A response over the size cap is refused unread and exempt.
pub fn check_spans(text: &str, parsed: &ParsedResponse) {
    if parsed.rejected.iter().any(|r| r.kind == "response") {
        return;
    }
    let (answer, _, _) = reference_split(text);
    let spans = parsed.removed_spans();
    let mut raws: Vec<&str> = parsed
        .rejected
        .iter()
        .map(|r| r.raw.as_str())
        .chain(parsed.missed_blocks().iter().map(|m| m.raw.as_str()))
        .chain(parsed.accepted_blocks().map(|(_, raw)| raw))
        .filter(|raw| !raw.is_empty())
        .collect();
    let mut from = 0;
    for span in spans {
        assert!(
            from <= span.start && span.start < span.end && span.end <= answer.len(),
            "spans out of order or outside the answer: {spans:?} in {answer:?}"
        );
        from = span.end;
        let removed = answer[span.clone()].trim();
        let at = raws.iter().position(|raw| *raw == removed);
        let at = at.unwrap_or_else(|| {
            panic!("a removed span is no block's text: {removed:?} (blocks {raws:?})")
        });
        raws.swap_remove(at);
    }
    assert!(
        raws.is_empty(),
        "a block's text is in no removed span: {raws:?} in {answer:?}"
    );
    // The message, read piece by piece: the prose between spans byte for byte, and at
    // each span (or run of spans with nothing between) only whitespace it held.
    let mut message = parsed.message.as_str();
    let mut prose_from = 0;
    let mut seam: Option<std::ops::Range<usize>> = None;
    let mut started = false;
    let pieces = spans
        .iter()
        .map(|span| (span.start, Some(span.clone())))
        .chain(std::iter::once((answer.len(), None)));
    for (prose_to, span) in pieces {
        let mut prose = &answer[prose_from..prose_to];
        if !started {
            prose = prose.trim_start();
        }
        if span.is_none() {
            prose = prose.trim_end();
        }
        if !prose.is_empty() {
            if let Some(removed) = seam.take().filter(|_| started) {
                let removed = &answer[removed];
                let put_back = message.len() - message.trim_start().len();
                for c in message[..put_back].chars() {
                    assert!(
                        removed.contains(c),
                        "the seam put back {c:?}, which its span does not hold: {removed:?} in {answer:?} -> {:?}",
                        parsed.message
                    );
                }
                message = &message[put_back..];
            }
            seam = None;
            assert!(
                message.starts_with(prose),
                "prose outside the removed spans is not in the message as written: {prose:?} in {answer:?} -> {:?}",
                parsed.message
            );
            message = &message[prose.len()..];
            started = true;
        }
        if let Some(span) = span {
            prose_from = span.end;
            seam = Some(seam.map_or(span.start, |s| s.start)..span.end);
        }
    }
    assert!(
        message.is_empty(),
        "the message holds text the answer outside the spans does not: {message:?} in {answer:?}"
    );
}

/// Where [`check_marker_in_string`] writes its line, inside a string of a block.
pub const LINE_SLOT: &str = "@LINE@";

/// A data proposal for the table view page with [`LINE_SLOT`] inside a cell's string.
pub const BLOCK_WITH_LINE_SLOT: &str =
    r#"DATA_PROPOSAL: {"operations": [{"action": "add", "data": {"Notes": "before@LINE@after"}}]}"#;

/// The markers a line inside a string starts with, for [`marker_line_from_bytes`].
const LINE_MARKERS: [&str; 6] = [
    "SUGGESTED_ACTIONS: ",
    "SUGGESTED_VALUES: ",
    "DATA_PROPOSAL: ",
    "**SCHEMA_PROPOSAL:** ",
    "- SUGGESTED_ACTIONS: ",
    "### DATA_PROPOSAL:\n",
];

/// A line that starts with a marker of the table view page (the first byte picks it)
/// and goes on with the rest of `data`, escaped as JSON writes it inside a string, for
/// [`check_marker_in_string`]: `SUGGESTED_ACTIONS: [{\"label\": ...` and anything else.
pub fn marker_line_from_bytes(data: &[u8]) -> String {
    let Some((&first, rest)) = data.split_first() else {
        return LINE_MARKERS[0].to_string();
    };
    let marker = LINE_MARKERS[first as usize % LINE_MARKERS.len()];
    let line = format!("{marker}{}", String::from_utf8_lossy(rest));
    let escaped = serde_json::to_string(&line).expect("a string serializes");
    escaped[1..escaped.len() - 1].to_string()
}

/// No block starts inside a string (docs/spec.md §1.19): `block` (a marker, `: ` and a
/// valid value, written with [`LINE_SLOT`] inside one of its strings), with `line`
/// written in that slot on a line of its own between raw line breaks, parses as that
/// one block with the line in its string: no other block, no suggestion, no action,
/// nothing rejected, whatever marker of the page `line` starts with. Stream,
/// accounting and allow-lists hold on it too.
pub fn check_marker_in_string(
    parser: &Parser,
    options: &ParseOptions,
    (before, block, after): (&str, &str, &str),
    line: &str,
    sizes: &[usize],
) {
    let written = block.replacen(LINE_SLOT, &format!("\n{line}\n"), 1);
    let text = format!("{before}{written}{after}");
    check_marker_mode(parser, options, &text, sizes);
    let parsed = parser.parse(&text);
    assert_eq!(
        parsed.removed_spans().len(),
        1,
        "a marker line inside a string made a block of its own: {text:?} -> {parsed:#?}"
    );
    assert!(
        parsed.suggested_values.is_none() && parsed.suggested_actions.is_none(),
        "a marker line inside a string gave suggestions: {text:?} -> {parsed:#?}"
    );
    assert!(
        parsed.rejected.is_empty(),
        "the block holding a marker line in a string was not read: {text:?} -> {parsed:#?}"
    );
    let value = &written[written.find(": ").expect("a marker, then `: `") + 2..];
    let expected = payload_core::__internals::json::decode(
        value,
        payload_core::Location { line: 1, column: 1 },
    )
    .expect("the value with the line in its string reads")
    .value;
    let payload = parsed
        .custom_payload
        .as_ref()
        .expect("the block is accepted");
    assert_eq!(payload.data(), &expected, "{text:?}");
}

/// An accepted suggestion block's text is counted above, but the block itself is not
/// part of the result an app sees: what it held must be. Every member of every item is
/// in a kept item (the same key with the same value) or quoted in a warning
/// (`"key":value`), every item that is not an object is quoted in a warning, and a
/// block with no items is quoted whole in a warning (docs/spec.md §1.13, §7.1).
pub fn check_suggestions_visible(parsed: &ParsedResponse) {
    if parsed
        .warnings
        .iter()
        .any(|w| w.kind == payload_core::WarningKind::Omitted)
    {
        return;
    }
    let quoted = |text: &str| parsed.warnings.iter().any(|w| w.message.contains(text));
    for (kind, raw) in parsed.accepted_blocks() {
        let kept: Vec<serde_json::Value> = match kind {
            "suggested_values" => serde_json::to_value(&parsed.suggested_values),
            "suggested_actions" => serde_json::to_value(&parsed.suggested_actions),
            _ => continue,
        }
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
        let Some(decoded) = block_value(raw, &['['], &[']']) else {
            continue;
        };
        let Some(items) = decoded.value.as_array() else {
            continue;
        };
        if items.is_empty() {
            assert!(
                quoted(raw),
                "an empty {kind} block left no warning that quotes it: {raw:?} -> {parsed:#?}"
            );
        }
        for item in items {
            let Some(members) = item.as_object() else {
                assert!(
                    quoted(&item.to_string()),
                    "a {kind} item vanished: {item} -> {parsed:#?}"
                );
                continue;
            };
            for (key, value) in members {
                let in_kept = kept.iter().any(|k| k.get(key) == Some(value));
                let member = format!("{}:{value}", serde_json::Value::String(key.clone()));
                assert!(
                    in_kept || quoted(&member),
                    "the member {member} of a {kind} item vanished: {raw:?} -> {parsed:#?}"
                );
            }
        }
    }
}

/// The allow-lists (module docs) on a final result, and the page's combination rule:
/// beside an accepted custom payload, only the suggestion blocks the rule allows, each
/// one taken out named in a `combination` warning.
pub fn check_allow_lists(options: &ParseOptions, parsed: &ParsedResponse) {
    if let Some(payload) = &parsed.custom_payload {
        assert_offered(options, &payload.kind);
        let combination = options.combination;
        assert!(
            combination.values_with_payload || parsed.suggested_values.is_none(),
            "chips beside a payload on a page whose rule refuses them: {parsed:#?}"
        );
        assert!(
            combination.actions_with_payload || parsed.suggested_actions.is_none(),
            "buttons beside a payload on a page whose rule refuses them: {parsed:#?}"
        );
    }
    let taken_out = parsed
        .warnings
        .iter()
        .filter(|w| w.kind == payload_core::WarningKind::Combination)
        .count();
    assert!(
        taken_out == 0 || parsed.custom_payload.is_some(),
        "a combination warning with no payload to combine with: {parsed:#?}"
    );
    for action in parsed.suggested_actions.iter().flatten() {
        assert_allowed(options, Some(&action.action), Some(action.handler.as_str()));
    }
}

/// `kind` is a type the page offers, or a suggestion kind.
fn assert_offered(options: &ParseOptions, kind: &str) {
    let offered = options.payloads.iter().any(|p| p.name == kind)
        || (options.suggestions && matches!(kind, "suggested_values" | "suggested_actions"));
    assert!(offered, "{kind} is not offered on the page");
}

/// `action` is registered on the page with `handler`.
fn assert_allowed(options: &ParseOptions, action: Option<&str>, handler: Option<&str>) {
    let allowed = options
        .actions
        .iter()
        .any(|spec| action == Some(spec.action) && handler == Some(spec.handler.as_str()));
    assert!(
        allowed,
        "{action:?} ({handler:?}) is not allowed on the page"
    );
}
