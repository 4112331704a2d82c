//! The stream's guarantee, checked on responses written the way models write them and
//! on generated ones, for every kind of chunking: the final parse is the one-shot
//! parse, and the deltas add up to its message.

use super::*;
use crate::marker::suggestions::ActionSpec;
use crate::payload::LlmPayload;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

/// A page's payload: a table schema proposal (table.that), written by hand here.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct SchemaProposal {
    mode: String,
    table_name: Option<String>,
    operations: Vec<Value>,
}

impl LlmPayload for SchemaProposal {
    const NAME: &'static str = "schema_proposal";
    const MARKER: &'static str = "SCHEMA_PROPOSAL";
    const DESCRIPTION: &'static str = "Propose a table schema.";
}

/// A registered type the page does not offer.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct DataProposal {
    operations: Vec<Value>,
}

impl LlmPayload for DataProposal {
    const NAME: &'static str = "data_proposal";
    const MARKER: &'static str = "DATA_PROPOSAL";
    const DESCRIPTION: &'static str = "Propose row changes.";
}

/// A type whose marker is a suffix of another's, to exercise leftmost-longest.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub(super) struct Proposal {
    title: String,
}

impl LlmPayload for Proposal {
    const NAME: &'static str = "proposal";
    const MARKER: &'static str = "PROPOSAL";
    const DESCRIPTION: &'static str = "A short proposal.";
}

pub(super) fn options() -> ParseOptions {
    ParseOptions::new()
        .payload(SchemaProposal::TYPE)
        .foreign(DataProposal::TYPE)
        .action(ActionSpec::client("close_chat", "Close the chat"))
}

pub(super) fn tricky_options() -> ParseOptions {
    options().payload(Proposal::TYPE)
}

pub(super) const CREATE: &str = r#"{"mode": "create", "table_name": "Books", "operations": [{"action": "add", "column": {"name": "Title", "type": "text"}}, {"action": "add", "column": {"name": "Year", "type": "number"}}]}"#;
pub(super) const VALUES: &str = r#"[{"label": "Yes", "value": "Yes, go ahead"}, {"label": "Change", "value": "Change the columns"}]"#;
const ACTIONS: &str = r#"[{"label": "Close", "action": "close_chat", "handler": "client"}]"#;
/// [`CREATE`] as a careless model writes it: comments, single quotes, bare keys, a
/// Python literal, trailing and missing commas.
const SLOPPY: &str = "{mode: 'create', // a new table\n table_name: 'Books', operations: [{'action': 'add', 'column': {name: 'Title', type: 'text'}} /* first */ {'action': 'add', 'column': {name: 'Year', type: 'number', 'required': True},},],}";

/// Responses as models write them (docs/spec.md §1's cases and more).
pub(super) fn corpus() -> Vec<String> {
    let mut texts: Vec<String> = vec![
        format!("Here is the table.\n\nSCHEMA_PROPOSAL: {CREATE}\n\nSUGGESTED_VALUES: {VALUES}\n\nSUGGESTED_ACTIONS: {ACTIONS}"),
        "Just a plain answer.".to_string(),
        format!("schema_proposal: {CREATE}"),
        "You wrote:\n\n> SCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": []}\n\nThat isn't valid yet.".to_string(),
        format!("MY_SCHEMA_PROPOSAL: {CREATE}"),
        "I'll send a SCHEMA_PROPOSAL: once you confirm the columns {and the name}.".to_string(),
        format!("Here you go:\n\nSCHEMA_PROPOSAL:\n```json\n{CREATE}\n```\n\nLet me know."),
        format!("Here you go:\n\n```json\nSCHEMA_PROPOSAL: {CREATE}\n```\n\nLet me know."),
        format!("Here you go:\n\n```json\nSCHEMA_PROPOSAL: {CREATE}\n\nNo closing fence."),
        format!("SCHEMA_PROPOSAL: ```json ```json\n{CREATE}"),
        r#"SCHEMA_PROPOSAL: {"mode": "create", "reasoning": "Use } and ] freely, even \"quoted}\"", "operations": []} trailing words"#.to_string(),
        "Proposal:\n\nSCHEMA_PROPOSAL: {\"mode\": \"create\" \"operations\" [}\n\nDone.".to_string(),
        "Here is the table:\n\nSCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": [{\"action\": \"add\", \"column\": {\"name\": \"Ti".to_string(),
        "SCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": [{\"action\": \"add\"},],}".to_string(),
        format!("First:\nSCHEMA_PROPOSAL: {CREATE}\nSecond:\nSCHEMA_PROPOSAL: {CREATE}\nEnd."),
        format!("Not here:\n\nDATA_PROPOSAL: {{\"operations\": []}}\n\nBut {CREATE} is prose."),
        format!("Intro.\n\n## SCHEMA_PROPOSAL: {CREATE}\n\nOutro."),
        format!("Intro.\n\n- **SUGGESTED_VALUES:** {VALUES}\n\n1. SUGGESTED_ACTIONS: {ACTIONS}"),
        format!("Inline: SCHEMA_PROPOSAL: {CREATE} and more text."),
        format!("SUGGESTED_VALUES: {VALUES}\nSUGGESTED_VALUES: {VALUES}"),
        "SUGGESTED_VALUES: {\"label\": \"x\"}".to_string(),
        "SUGGESTED_ACTIONS: [{\"label\": \"Boom\", \"action\": \"self_destruct\", \"handler\": \"client\"}]".to_string(),
        "Ends mid marker: **SCHEMA_PROP".to_string(),
        "Ends after the colon: SCHEMA_PROPOSAL:".to_string(),
        "Ends after the fence: SCHEMA_PROPOSAL:\n```json\n".to_string(),
        "Quote \u{201C}SCHEMA_PROPOSAL: {\u{201C}mode\u{201D}: \u{201C}create\u{201D}, \u{201C}operations\u{201D}: []}".to_string(),
        "Café ☕ — SCHEMA_PROPOSAL: {\"mode\": \"create\", \"table_name\": \"Café ☕\", \"operations\": []}\n\n• done".to_string(),
        "   \n\n  SCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": []}   \n\n\n\n  tail  ".to_string(),
        "a\n\n\nSUGGESTED_VALUES: []\n\n\nSUGGESTED_ACTIONS: []\n\n\nb".to_string(),
        "PROPOSAL: {\"title\": \"x\"} and SCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": []}".to_string(),
        "*** SCHEMA_PROPOSAL: {} ***SCHEMA_PROPOSAL: {}".to_string(),
        format!("<think>\nDraft:\nSCHEMA_PROPOSAL: {{\"mode\": \"create\", \"operations\": []}}\n</think>\n\nHere.\n\nSCHEMA_PROPOSAL: {CREATE}"),
        format!("<THINKING>plan</Thinking>Intro\n  <reasoning>\nmore SUGGESTED_VALUES: {VALUES}\n</REASONING>\nOutro\n<think>still going"),
        "Stray </think> tag and <think> mid-line.\r\n<think>\r\nx\r\n</think>\r\nDone.".to_string(),
        format!("Here it is.\n\nSCHEMA_PROPOSAL: {SLOPPY}\n\nThoughts?"),
        format!("SCHEMA_PROPOSAL:\n```json\n{SLOPPY}\n```\nDone."),
    ];
    texts.push(big_response(64 * 1024));
    texts
}

/// A long response: paragraphs with every kind of block in between.
fn big_response(size: usize) -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < size {
        text.push_str("The **analysis** of the table continues here; see the notes below.\n\n");
        match i % 6 {
            0 => text.push_str(&format!("SCHEMA_PROPOSAL: {CREATE}\n\n")),
            1 => text.push_str(&format!("- **SUGGESTED_VALUES:** {VALUES}\n\n")),
            2 => text.push_str("> SCHEMA_PROPOSAL: {\"quoted\": true}\n\n"),
            3 => text.push_str(&format!("```json\nSCHEMA_PROPOSAL: {CREATE}\n```\n\n")),
            4 => text.push_str("I'll send a SCHEMA_PROPOSAL: once you confirm.\n\n"),
            _ => text.push_str("DATA_PROPOSAL: {\"operations\": [1, 2, 3]}\n\n"),
        }
        i += 1;
    }
    text
}

/// The one-shot parse the stream must reproduce.
fn one_shot(options: &ParseOptions, text: &str) -> ParsedResponse {
    Parser::new(options).parse(text)
}

/// Feeds `text` in chunks of the given sizes (in chars, cycled); checks the guarantee.
pub(super) fn check(
    options: &ParseOptions,
    text: &str,
    sizes: &[usize],
) -> Result<(), TestCaseError> {
    let expected = one_shot(options, text);
    let mut stream = StreamParser::new(options);
    let mut events = Vec::new();
    for chunk in chunks(text, sizes) {
        events.extend(stream.push(chunk));
    }
    let (tail, parsed) = stream.finish();
    events.extend(tail);
    prop_assert_eq!(&parsed, &expected, "final parse of {:?}", text);
    let shown: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    prop_assert_eq!(
        &shown,
        &expected.message,
        "deltas of {:?} in {:?}",
        text,
        sizes
    );
    let thought: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    prop_assert_eq!(
        Some(thought).filter(|t| !t.is_empty()),
        expected.reasoning.clone(),
        "reasoning deltas of {:?} in {:?}",
        text,
        sizes
    );
    let empty_delta = events.iter().any(|e| {
        matches!(e, StreamEvent::TextDelta { text, .. } | StreamEvent::ReasoningDelta { text, .. } if text.is_empty())
    });
    prop_assert!(!empty_delta, "an empty delta");
    let parts = crate::stream::parts_check::check_parts(text, &expected);
    prop_assert!(
        parts.is_ok(),
        "{:?}: {:?}\n{:#?}",
        text,
        parts,
        expected.parts
    );
    let placed = crate::stream::parts_check::check_part_events(&events, &expected);
    prop_assert!(placed.is_ok(), "{:?} in {:?}: {:?}", text, sizes, placed);
    prop_assert!(matches!(events.last(), Some(StreamEvent::Complete(p)) if **p == expected));
    check_block_events(&events, &expected)
}

/// One announced block as the stream showed it: its type, its previews (value and open
/// point) and its elements (pointer, index, element).
type StreamedBlock<'e> = (
    &'e str,
    Vec<(&'e Value, Option<&'e str>)>,
    Vec<(&'e str, usize, &'e Value)>,
);

/// The preview and element guarantees (docs/spec.md §5.5, §5.6) on one stream's
/// events: each list's elements come once each, in order; and for the accepted custom
/// payload, when it is the only block of its type announced, every preview is a
/// faithful early view of its data, the last one is its data, and the elements are
/// exactly its top-level list elements.
fn check_block_events(
    events: &[StreamEvent],
    parsed: &ParsedResponse,
) -> Result<(), TestCaseError> {
    // Per block announced: its type, previews and elements.
    let mut blocks: Vec<StreamedBlock<'_>> = Vec::new();
    for event in events {
        match event {
            StreamEvent::PayloadStart { kind, .. } => blocks.push((kind, Vec::new(), Vec::new())),
            StreamEvent::PayloadProgress { partial, open, .. } => {
                blocks
                    .last_mut()
                    .unwrap()
                    .1
                    .push((partial, open.as_deref()));
            }
            StreamEvent::PayloadElement {
                pointer,
                index,
                element,
                ..
            } => blocks
                .last_mut()
                .unwrap()
                .2
                .push((pointer, *index, element)),
            _ => {}
        }
    }
    for (_, _, elements) in &blocks {
        let mut next = std::collections::HashMap::new();
        for (pointer, index, _) in elements {
            let expected = next.entry(*pointer).or_insert(0);
            prop_assert_eq!(
                *index,
                *expected,
                "elements of {:?} once each, in order",
                pointer
            );
            *expected += 1;
        }
    }
    let Some(payload) = &parsed.custom_payload else {
        return Ok(());
    };
    // The block the payload came from: the one block of its type announced, when the
    // response held one block of that type in all.
    let written = parsed
        .book
        .accepted
        .iter()
        .filter(|(kind, _)| *kind == payload.kind)
        .count()
        + parsed
            .rejected
            .iter()
            .filter(|r| r.kind == payload.kind)
            .count();
    let mut of_type = blocks.iter().filter(|b| b.0 == payload.kind);
    let (Some((_, previews, elements)), None, 1) = (of_type.next(), of_type.next(), written) else {
        return Ok(());
    };
    if previews.is_empty() {
        return Ok(());
    }
    let data = payload.data();
    for (preview, open) in previews {
        if let Err(why) = preview_fits(preview, *open, data) {
            prop_assert!(false, "{}", why);
        }
    }
    prop_assert_eq!(
        previews.last().copied(),
        Some((data, None)),
        "the last preview"
    );
    let lists: Vec<(String, &Vec<Value>)> = match data {
        Value::Array(items) => vec![(String::new(), items)],
        Value::Object(members) => members
            .iter()
            .filter_map(|(key, member)| {
                let pointer = format!("/{}", payload_schema::pointer::escape_token(key));
                member.as_array().map(|items| (pointer, items))
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut expected: Vec<(String, usize, &Value)> = Vec::new();
    for (pointer, items) in lists {
        for (index, item) in items.iter().enumerate() {
            expected.push((pointer.clone(), index, item));
        }
    }
    let mut streamed: Vec<(String, usize, &Value)> = elements
        .iter()
        .map(|(p, i, e)| (p.to_string(), *i, *e))
        .collect();
    streamed.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    expected.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    prop_assert_eq!(
        streamed,
        expected,
        "the elements are the data's list elements"
    );
    Ok(())
}

/// Cuts `text` into chunks of the given sizes (in chars, cycled).
fn chunks<'t>(text: &'t str, sizes: &[usize]) -> Vec<&'t str> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .skip(1)
        .chain([text.len()])
        .collect();
    let mut out = Vec::new();
    let (mut from, mut at, mut turn) = (0, 0, 0);
    while at < bounds.len() {
        at = (at + sizes[turn % sizes.len()].max(1)).min(bounds.len());
        turn += 1;
        out.push(&text[from..bounds[at - 1]]);
        from = bounds[at - 1];
    }
    out
}

/// The shortcuts skip only what cannot change: fed the same chunks, the stream and the
/// stream with no shortcut give the same events for every chunk and at the end.
fn check_shortcuts(
    options: &ParseOptions,
    text: &str,
    sizes: &[usize],
) -> Result<(), TestCaseError> {
    let mut stream = StreamParser::new(options);
    let mut reference = StreamParser::new(options).without_shortcuts();
    for (i, chunk) in chunks(text, sizes).into_iter().enumerate() {
        prop_assert_eq!(
            stream.push(chunk),
            reference.push(chunk),
            "chunk {} ({:?}) of {:?}",
            i,
            chunk,
            text
        );
    }
    prop_assert_eq!(stream.finish(), reference.finish(), "the end of {:?}", text);
    Ok(())
}

/// [`Segmenter::idle_below`] says what `advance` does: on any longer text still below
/// it (and not ended), `advance` gives no piece and leaves the segmenter as it was.
/// And [`Segmenter::waits_for_line`], where it says it waits, leaves the segmenter as
/// `advance` does, with no piece (and changes nothing where it says it does not).
fn check_idle_below(
    options: &ParseOptions,
    text: &str,
    sizes: &[usize],
) -> Result<(), TestCaseError> {
    let parser = Parser::new(options);
    let mut segmenter = Segmenter::new(crate::json::reads);
    let mut pieces = Vec::new();
    let mut len = 0;
    for chunk in chunks(text, sizes) {
        len += chunk.len();
        // The shortcut past a line still arriving does what `advance` does.
        let mut shortcut = segmenter.clone();
        let waits = shortcut.waits_for_line(&text[..len]);
        let unchanged = format!("{segmenter:?}");
        let given = pieces.len();
        segmenter.advance(parser.table(), &text[..len], false, &mut pieces);
        if waits {
            prop_assert!(
                pieces.len() == given,
                "{:?} gave {:?}",
                &text[..len],
                &pieces[given..]
            );
            prop_assert_eq!(
                format!("{shortcut:?}"),
                format!("{segmenter:?}"),
                "waits_for_line on {:?}",
                &text[..len]
            );
        } else {
            prop_assert_eq!(
                format!("{shortcut:?}"),
                unchanged,
                "waits_for_line changed nothing on {:?}",
                &text[..len]
            );
        }
        let idle = segmenter.idle_below();
        let before = format!("{segmenter:?}");
        for longer in (len + 1..idle.min(text.len() + 1)).filter(|&at| text.is_char_boundary(at)) {
            let mut probe = segmenter.clone();
            let mut out = Vec::new();
            probe.advance(parser.table(), &text[..longer], false, &mut out);
            prop_assert!(
                out.is_empty(),
                "{:?} below {} gave {:?}",
                &text[..longer],
                idle,
                out
            );
            prop_assert_eq!(
                &format!("{probe:?}"),
                &before,
                "{:?} below {}",
                &text[..longer],
                idle
            );
        }
    }
    Ok(())
}

#[test]
fn the_corpus_in_one_piece_one_char_and_odd_chunks() {
    for opts in [options(), tricky_options(), ParseOptions::default()] {
        for text in corpus() {
            for sizes in [&[usize::MAX][..], &[1], &[7], &[2, 3, 5], &[13, 1, 1]] {
                check(&opts, &text, sizes).unwrap();
            }
        }
    }
}

#[test]
fn text_is_shown_as_soon_as_it_cannot_be_a_block() {
    let mut stream = StreamParser::new(&options());
    let deltas = |events: Vec<StreamEvent>| -> String {
        events
            .into_iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text, .. } => Some(text),
                _ => None,
            })
            .collect()
    };
    assert_eq!(deltas(stream.push("Hello there")), "Hello there");
    // A partial marker is held, and so is the space before it (it may be trimmed).
    assert_eq!(
        deltas(stream.push(", I'll send a SCHEMA_PRO")),
        ", I'll send a"
    );
    assert_eq!(deltas(stream.push("POSAL: once")), " SCHEMA_PROPOSAL: once");
    // A bullet that may precede a marker is held until it is known not to.
    assert_eq!(deltas(stream.push("\n- ")), "");
    assert_eq!(deltas(stream.push("**")), "");
    assert_eq!(deltas(stream.push("Bold")), "\n- **Bold");
    // A fence line is held while a block could follow it.
    assert_eq!(deltas(stream.push("\n```json\n")), "");
    assert_eq!(deltas(stream.push("let x = 1;")), "\n```json\nlet x = 1;");
    // A quoted line is shown at once, marker and all.
    assert_eq!(
        deltas(stream.push("\n> SCHEMA_PROPOSAL: {")),
        "\n> SCHEMA_PROPOSAL: {"
    );
}

#[test]
fn reasoning_is_its_own_channel_and_never_a_block() {
    let text = format!(
        "<think>\nA draft: SCHEMA_PROPOSAL: {{\"mode\": \"update\", \"operations\": []}}\n</think>\n\nHere it is.\n\nSCHEMA_PROPOSAL: {CREATE}"
    );
    let mut stream = StreamParser::new(&options());
    let mut events = Vec::new();
    for chunk in text.as_bytes().chunks(5) {
        events.extend(stream.push(std::str::from_utf8(chunk).unwrap()));
    }
    let (tail, parsed) = stream.finish();
    events.extend(tail);
    assert_eq!(parsed.custom_payload.unwrap().data()["mode"], "create");
    assert_eq!(
        parsed.reasoning.as_deref(),
        Some("A draft: SCHEMA_PROPOSAL: {\"mode\": \"update\", \"operations\": []}")
    );
    assert_eq!(parsed.message, "Here it is.");
    // Only the answer's block is announced; the reasoning arrives before the answer.
    let starts = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::PayloadStart { .. }))
        .count();
    assert_eq!(starts, 1);
    let first_text = events
        .iter()
        .position(|e| e.name() == "text_delta")
        .unwrap();
    let first_thought = events
        .iter()
        .position(|e| e.name() == "reasoning_delta")
        .expect("the reasoning is streamed");
    assert!(first_thought < first_text, "{events:?}");
}

#[test]
fn reasoning_is_shown_as_it_arrives_and_a_split_tag_is_held() {
    let mut stream = StreamParser::new(&options());
    let names = |events: &[StreamEvent]| -> Vec<(String, String)> {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text, .. } => Some(("text".to_string(), text.clone())),
                StreamEvent::ReasoningDelta { text, .. } => {
                    Some(("reasoning".to_string(), text.clone()))
                }
                _ => None,
            })
            .collect()
    };
    assert_eq!(names(&stream.push("<thi")), []);
    assert_eq!(
        names(&stream.push("nk>Let me")),
        [("reasoning".into(), "Let me".into())]
    );
    assert_eq!(
        names(&stream.push(" see.</th")),
        [("reasoning".into(), " see.".into())]
    );
    assert_eq!(
        names(&stream.push("ink>\n\nAnswer")),
        [("text".into(), "Answer".into())]
    );
    // A line start that cannot be a tag is shown at once.
    assert_eq!(
        names(&stream.push("\n<b")),
        [("text".into(), "\n<b".into())]
    );
    let (_, parsed) = stream.finish();
    assert_eq!(parsed.reasoning.as_deref(), Some("Let me see."));
    assert_eq!(parsed.message, "Answer\n<b");
}

#[test]
fn an_unclosed_section_is_reasoning_to_the_end_with_a_warning() {
    let text = "<think>\nSCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": []}";
    let parsed = one_shot(&options(), text);
    assert_eq!(parsed.message, "");
    assert!(parsed.custom_payload.is_none() && parsed.rejected.is_empty());
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(
        parsed.warnings[0].kind,
        crate::WarningKind::UnclosedReasoning
    );
    check(&options(), text, &[1]).unwrap();
}

#[test]
fn blocks_are_announced_previewed_and_never_shown() {
    let text = format!("Here it is:\n\nSCHEMA_PROPOSAL: {CREATE}\n\nThoughts?");
    let mut stream = StreamParser::new(&options());
    let mut events = Vec::new();
    for c in text.chars() {
        events.extend(stream.push(c.encode_utf8(&mut [0; 4])));
    }
    events.extend(stream.finish().0);
    let names: Vec<&str> = events.iter().map(StreamEvent::name).collect();
    let start = names.iter().position(|n| *n == "payload_start").unwrap();
    assert!(names[..start].iter().all(|n| *n == "text_delta"));
    assert!(names[start + 1..].contains(&"payload_progress"));
    let previews: Vec<&Value> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::PayloadProgress { partial, .. } => Some(partial),
            _ => None,
        })
        .collect();
    // Previews only grow towards the final value, and end with it.
    let last: Value = serde_json::from_str(CREATE).unwrap();
    assert_eq!(*previews.last().unwrap(), &last);
    assert!(previews.len() >= 3, "{previews:?}");
    assert!(
        previews
            .iter()
            .all(|p| p.get("mode").is_none_or(|m| m == "create"
                || m == "c"
                || m.as_str().is_some_and(|s| "create".starts_with(s))))
    );
}

#[test]
fn not_on_page_blocks_are_neither_shown_nor_announced() {
    let text = "Done.\n\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"add\"}]}\n\nBye.";
    let mut stream = StreamParser::new(&options());
    let mut events = stream.push(text);
    events.extend(stream.finish().0);
    assert!(
        events
            .iter()
            .all(|e| matches!(e, StreamEvent::TextDelta { .. } | StreamEvent::Complete(_)))
    );
    let StreamEvent::Complete(parsed) = events.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(parsed.rejected[0].kind, "data_proposal");
}

#[test]
fn a_64_kb_response_one_char_at_a_time() {
    let text = big_response(64 * 1024);
    check(&options(), &text, &[1]).unwrap();
    // Hostile text: long runs that keep a decision open.
    let hostile = [
        format!("SCHEMA_PROPOSAL{}", " ".repeat(64 * 1024)),
        format!("SCHEMA_PROPOSAL: ```{}", "json".repeat(16 * 1024)),
        format!("SCHEMA_PROPOSAL: {{\"a\": \"{}", "x".repeat(64 * 1024)),
        "SUGGESTED_".repeat(6 * 1024),
        format!("{}SCHEMA_PROPOSAL: {{}}", "\n".repeat(64 * 1024)),
        format!("SCHEMA_PROPOSAL: {}", "[".repeat(64 * 1024)),
    ];
    for text in hostile {
        check(&options(), &text, &[1]).unwrap();
    }
}

/// Long blocks written over many lines, as a proposal of many rows is: the segmenter
/// waits for each line's end, so most chunks change nothing, while previews come due.
fn long_blocks() -> Vec<String> {
    let column = r#"{"action": "add", "column": {"name": "Title", "type": "text"}}"#;
    let columns = vec![column; 60].join(",\n    ");
    let value = r#"{"label": "Change", "value": "Change the columns of the table"}"#;
    let values = vec![value; 40].join(",\n  ");
    vec![
        format!(
            "Here it is.\n\n**SCHEMA_PROPOSAL:**\n```json\n{{\"mode\": \"create\", \"operations\": [\n    {columns}\n]}}\n```\n\nDone."
        ),
        format!("Pick one.\n\nSUGGESTED_VALUES: [\n  {values}\n]\n\nOr not."),
        format!(
            "SCHEMA_PROPOSAL: {{\"mode\": \"create\", \"operations\": [{}]}}",
            vec![column; 60].join(", ")
        ),
        format!(
            "SCHEMA_PROPOSAL: {{mode: 'create', operations: [\n  // the columns\n  {},\n]}}",
            vec![column; 60].join(",\n  ")
        ),
        // Elements that a `]` completes, deep in the value: lists as elements, and an
        // object closed by the other kind's closer (the repairer reads it), with
        // strings holding `}` and `]` on the way.
        format!(
            "SCHEMA_PROPOSAL: {{\"mode\": \"create\", \"operations\": [\n  {}\n]}}",
            vec![r#"[1, "a}", [2, "b]"]]"#; 30].join(",\n  ")
        ),
        format!(
            "SCHEMA_PROPOSAL: {{\"mode\": \"create\", \"operations\": [\n  {}\n]}}",
            vec![r#"{"action": "add", "column": {"name": "T]}", "type": "text"}]"#; 30]
                .join(",\n  ")
        ),
    ]
}

#[test]
fn the_shortcuts_change_no_event_on_the_corpus() {
    for opts in [options(), tricky_options()] {
        for text in corpus().into_iter().chain(long_blocks()) {
            for sizes in [&[1][..], &[7], &[2, 3, 5], &[64]] {
                check_shortcuts(&opts, &text, sizes).unwrap();
            }
        }
    }
}

/// A preview on every chunk stays linear: every chunk while the value is small, then
/// each time it has grown by an eighth, so a long block streamed a byte at a time gets
/// a bounded number of previews whose copies add up to a bounded multiple of its size,
/// and the last one is still the final data.
#[test]
fn previews_on_every_chunk_stay_linear_on_a_long_block() {
    let column = r#"{"action": "add", "column": {"name": "Title", "type": "text"}}"#;
    let text = format!(
        "SCHEMA_PROPOSAL: {{\"mode\": \"create\", \"operations\": [\n  {}\n]}}",
        vec![column; 600].join(",\n  ")
    );
    let mut stream = StreamParser::new(&options()).with_previews(Previews::EveryChunk);
    let (mut previews, mut copied, mut last) = (0usize, 0usize, None);
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            if let StreamEvent::PayloadProgress { partial, .. } = event {
                previews += 1;
                copied += partial.to_string().len();
                last = Some(partial);
            }
        }
    };
    for at in 0..text.len() {
        take(stream.push(&text[at..at + 1]));
    }
    let (events, parsed) = stream.finish();
    take(events);
    // A byte a time below 4 KiB (each byte of the value a preview at most), then
    // growth by an eighth: about 20 more for this block of about 40 KB.
    assert!(previews < 4096 + 40, "{previews} previews");
    assert!(
        copied < 4096 * 4096 / 2 + 10 * text.len(),
        "{copied} bytes copied"
    );
    assert_eq!(last.as_ref(), parsed.payloads().next().map(|p| p.data()));
}

#[test]
fn the_segmenter_is_idle_below_where_it_says_in_long_blocks() {
    for text in long_blocks() {
        for sizes in [&[1][..], &[7]] {
            check_idle_below(&options(), &text, sizes).unwrap();
        }
    }
}

/// Pieces of model text, chosen to sit next to each other in every order.
fn piece() -> impl Strategy<Value = String> {
    let prose = prop::sample::select(vec![
        "Here is the table.",
        "Let me know",
        " ",
        "\n",
        "\n\n",
        "\n\n\n",
        "**",
        "*",
        "_",
        "## ",
        "- ",
        "1. ",
        "> ",
        "```json\n",
        "```\n",
        "```",
        "`",
        "Note: ",
        ":",
        "{",
        "}",
        "[",
        "]",
        "\"",
        "\\",
        "é",
        "•",
        "\t",
        "\r\n",
        "SCHEMA_PRO",
        "SCHEMA_PROPOSAL",
        "SUGGESTED_VALUES:",
        "MY_SCHEMA_PROPOSAL: {}",
        "I'll send a SCHEMA_PROPOSAL: once you confirm",
        "DATA_PROPOSAL",
        "PROPOSAL",
        "  ",
    ])
    .prop_map(str::to_string);
    let marker = prop::sample::select(vec![
        "SCHEMA_PROPOSAL: ",
        "**SCHEMA_PROPOSAL:** ",
        "*SCHEMA_PROPOSAL*: ",
        "## SCHEMA_PROPOSAL: ",
        "- **SUGGESTED_VALUES**: ",
        "SUGGESTED_ACTIONS:\n",
        "DATA_PROPOSAL: ",
        "SCHEMA_PROPOSAL:\n```json\n",
        "```json\nSCHEMA_PROPOSAL: ",
        "> SCHEMA_PROPOSAL: ",
        "\n\nSUGGESTED_VALUES:\n\n",
        "__SCHEMA_PROPOSAL__ : ",
        "PROPOSAL: ",
    ]);
    let value = prop::sample::select(vec![
        CREATE,
        VALUES,
        ACTIONS,
        "{\"mode\": \"create\"}",
        "{\"mode\": \"create\" \"operations\" [}",
        "{\"mode\": \"create\", \"operations\": [1,],}",
        "{\"title\": \"}]\\\"\"}",
        "[]",
        "{}",
        "{'title': 'it''s'}",
        SLOPPY,
        "{mode: 'create', operations: [{'action': 'add'} // more\n",
        "<think>",
        "\n<Thinking>\n",
        "</think>",
        "</THINKING>\n",
    ]);
    let close = prop::sample::select(vec!["", "\n```", " ```", "\n\n", "\n```\n\n"]);
    let block = (marker, value, close).prop_map(|(m, v, c)| format!("{m}{v}{c}"));
    prop_oneof![3 => prose, 2 => block]
}

/// A response of pieces, sometimes cut short (a stream that ends mid-block).
pub(super) fn response() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(piece(), 0..12),
        any::<prop::sample::Index>(),
        any::<bool>(),
    )
        .prop_map(|(pieces, cut, truncate)| {
            let text = pieces.concat();
            if !truncate || text.is_empty() {
                return text;
            }
            let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            text[..bounds[cut.index(bounds.len())]].to_string()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1200))]

    /// Every chunking gives the one-shot parse; and the segmenter decides nothing below
    /// where it says, and the stream that skips those chunks gives every event the
    /// stream with no shortcut gives.
    #[test]
    fn every_chunking_gives_the_one_shot_parse_and_skipping_changes_no_event(
        text in response(),
        sizes in prop::collection::vec(1usize..12, 1..6),
        tricky in any::<bool>(),
    ) {
        let page = if tricky { tricky_options() } else { options() };
        for chunking in [&sizes[..], &[1]] {
            check(&page, &text, chunking)?;
            check_idle_below(&page, &text, chunking)?;
            check_shortcuts(&page, &text, chunking)?;
        }
    }

    #[test]
    fn corpus_responses_under_random_chunkings(
        pick in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(1usize..40, 1..8),
    ) {
        let corpus = corpus();
        let text = &corpus[pick.index(corpus.len() - 1)];
        check(&options(), text, &sizes)?;
    }
}

#[test]
fn a_sloppy_block_keeps_filling_in_and_ends_at_its_data() {
    let text = format!("Here it is.\n\nSCHEMA_PROPOSAL: {SLOPPY}\n\nThoughts?");
    let mut stream = StreamParser::new(&options());
    let mut events = Vec::new();
    for c in text.chars() {
        events.extend(stream.push(c.encode_utf8(&mut [0; 4])));
    }
    let (tail, parsed) = stream.finish();
    events.extend(tail);
    let data = parsed.custom_payload.as_ref().unwrap().data().clone();
    assert_eq!(
        data,
        serde_json::from_str::<Value>(CREATE)
            .unwrap()
            .as_object()
            .map(|m| {
                let mut m = m.clone();
                m["operations"][1]["column"]["required"] = Value::Bool(true);
                Value::Object(m)
            })
            .unwrap()
    );
    // Past the comment, the single quotes and the bare keys, a preview still open
    // already holds the first operation (a strict reading stopped at the first bare
    // key, showing `{}` until `complete`).
    let first = events.iter().any(|e| {
        matches!(e, StreamEvent::PayloadProgress { partial, open: Some(_), .. }
            if partial["table_name"] == "Books"
                && partial["operations"].as_array().is_some_and(|ops| ops.len() == 1))
    });
    assert!(first, "{events:?}");
    check(&options(), &text, &[1]).unwrap();
}

/// The `payload_element` events of `text` fed in chunks of `sizes`.
fn element_events(text: &str, sizes: &[usize]) -> Vec<StreamEvent> {
    let mut stream = StreamParser::new(&options());
    let mut events = Vec::new();
    for chunk in chunks(text, sizes) {
        events.extend(stream.push(chunk));
    }
    events.extend(stream.finish().0);
    events.retain(|e| matches!(e, StreamEvent::PayloadElement { .. }));
    events
}

#[test]
fn each_element_comes_once_as_it_completes_whatever_the_chunking() {
    let text = format!("Here it is.\n\nSCHEMA_PROPOSAL: {SLOPPY}\n\nThoughts?");
    let expected = element_events(&text, &[usize::MAX]);
    assert_eq!(expected.len(), 2, "{expected:?}");
    let StreamEvent::PayloadElement {
        kind,
        pointer,
        index,
        element,
        ..
    } = &expected[1]
    else {
        unreachable!()
    };
    assert_eq!(
        (kind.as_str(), pointer.as_str(), *index),
        ("schema_proposal", "/operations", 1)
    );
    assert_eq!(element["column"]["name"], "Year");
    for sizes in [&[1][..], &[2], &[7], &[2, 3, 5], &[13, 1, 1]] {
        assert_eq!(element_events(&text, sizes), expected, "{sizes:?}");
    }
    // An element is reported on the chunk that completes it, before the block ends.
    let mut stream = StreamParser::new(&options());
    stream.push("SCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": [{\"action\": \"add\"");
    let events = stream.push("}, ");
    assert!(
        matches!(&events[..], [StreamEvent::PayloadElement { index: 0, .. }]),
        "{events:?}"
    );
    // Suggestion blocks show kept items in their previews instead.
    assert!(element_events(&format!("SUGGESTED_VALUES: {VALUES}"), &[1]).is_empty());
    // The SSE name and body.
    let sse = crate::stream::sse::ServerSentEvent::to_sse(&expected[0]);
    assert!(sse.starts_with("event: payload_element\ndata: {\"type\":\"schema_proposal\",\"pointer\":\"/operations\",\"index\":0,\"element\":{"), "{sse}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The elements do not depend on how the text is cut.
    #[test]
    fn elements_are_the_same_at_random_cuts(
        sizes in prop::collection::vec(1usize..20, 1..8),
        which in 0usize..3,
    ) {
        let text = [
            format!("Here it is.\n\nSCHEMA_PROPOSAL: {SLOPPY}\n\nThoughts?"),
            format!("SCHEMA_PROPOSAL:\n```json\n{SLOPPY}\n```\nDone."),
            long_blocks().swap_remove(3),
        ][which].clone();
        prop_assert_eq!(element_events(&text, &sizes), element_events(&text, &[usize::MAX]));
    }
}

/// A value that closes inside a fence, the fence's closer cut across chunks: the
/// stream without its shortcuts gives the closed value's last preview on the same
/// chunk (a proptest case, kept).
#[test]
fn a_closed_value_in_a_fence_previews_on_the_same_chunk() {
    let text = "`SCHEMA_PROPOSAL: [{\"label\": \"Close\", \"action\": \"close_chat\", \"handler\": \"client\"}]**PROPOSAL: {\"mode\": \"create\", \"table_name\": \"Books\", \"operations\": [{\"action\": \"add\", \"column\": {\"name\": \"Title\", \"type\": \"text\"}}, {\"action\": \"add\", \"column\": {\"name\": \"Year\", \"type\": \"number\"}}]}\n\n : \n\n\nSCHEMA_PROPOSAL:\n```json\n{mode: 'create', // a new table\n table_name: 'Books', operations: [{'action': 'add', 'column': {name: 'Title', type: 'text'}} /* first */ {'action': 'add', 'column': {name: 'Year', type: 'number', 'required': True},},],}\n```";
    check_shortcuts(&options(), text, &[8]).unwrap();
}
