//! The guarantees of marker mode as checks, shared by the property tests and the fuzz
//! targets so that both assert the same invariants (not only "does not panic"):
//!
//! - **stream equals one-shot**: under any chunking, the stream's final parse is the
//!   one-shot parse and its text deltas are exactly the message;
//! - **accounting** (SPEC 7.5): with I the input's non-whitespace characters, the
//!   message's are a subsequence of I, every accepted and rejected block's text is a
//!   slice of the input, and I is exactly (as a multiset) the message's characters plus
//!   those of the accepted blocks and the rejected blocks — nothing lost, nothing
//!   counted twice;
//! - **allow-lists** (SPEC 1.7, 1.8, 7.6): no result and no stream event names a type
//!   the page does not offer or an action it does not register with that handler;
//! - **a block ends where the text says** (SPEC 8.2): a `truncated` rejection is one
//!   the text really ended in, so its raw reaches the end of the input (trailing
//!   whitespace aside); a block cut earlier is `unclosed`, and the text after it is read.

use payload_core::ParseOptions;
use payload_core::ParsedResponse;
use payload_core::Parser;
use payload_core::{StreamEvent, StreamParser};

/// Feeds `text` to a stream parser for `options` in chunks of `sizes` bytes (cycled,
/// moved forward to a character boundary), checks every event against the page's
/// allow-lists and the deltas against the message, and returns the final parse.
pub fn stream_checked(options: &ParseOptions, text: &str, sizes: &[usize]) -> ParsedResponse {
    let mut stream = StreamParser::new(options);
    let mut shown = String::new();
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            match event {
                StreamEvent::TextDelta { text } => shown.push_str(&text),
                StreamEvent::PayloadStart { kind, .. } => assert_offered(options, &kind),
                StreamEvent::PayloadProgress {
                    kind,
                    partial,
                    open,
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
        take(stream.push(&text[at..end]));
        at = end;
    }
    let (events, parsed) = stream.finish();
    take(events);
    assert_eq!(shown, parsed.message, "the deltas are the message");
    parsed
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
    check_accounting(text, &parsed);
    check_allow_lists(options, &parsed);
    check_block_ends(text, &parsed);
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

/// SPEC 8.2, a model that abandons a draft: whatever the draft of a block holds (cut
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

/// SPEC 8.2 (module docs): every `truncated` rejection reaches the end of the input.
pub fn check_block_ends(text: &str, parsed: &ParsedResponse) {
    for block in &parsed.rejected {
        let truncated = block
            .errors
            .iter()
            .any(|e| e.kind == payload_core::ErrorKind::Truncated);
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

/// The accounting invariant (module docs); a marker removed for having no value
/// (SPEC 8.10) counts with its missed block. A response over the size cap is refused
/// unread and exempt.
pub fn check_accounting(text: &str, parsed: &ParsedResponse) {
    if parsed.rejected.iter().any(|r| r.kind == "response") {
        return;
    }
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
}

/// The allow-lists (module docs) on a final result.
pub fn check_allow_lists(options: &ParseOptions, parsed: &ParsedResponse) {
    if let Some(payload) = &parsed.custom_payload {
        assert_offered(options, &payload.kind);
    }
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
