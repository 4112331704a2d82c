//! The answer as ordered parts (docs/spec.md §1.21), one-shot and streamed: where each
//! part stands, what its JSON holds, and that every chunking gives the one-shot parts
//! with every event naming its part.

use super::tests::{CREATE, VALUES, check, corpus, options, response, tricky_options};
use super::*;
use crate::marker::combination::Combination;
use crate::marker::count::PayloadCount;
use crate::stream::parts_check::check_parts;
use proptest::prelude::*;
use serde_json::json;

/// Each part as its JSON writes it, without its span.
fn shapes(parsed: &ParsedResponse) -> Vec<Value> {
    let json = serde_json::to_value(parsed).unwrap();
    json["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| {
            let mut part = part.clone();
            part.as_object_mut().unwrap().remove("span");
            part
        })
        .collect()
}

fn spans(parsed: &ParsedResponse) -> Vec<(usize, usize)> {
    parsed
        .parts
        .iter()
        .map(|part| (part.span.start, part.span.end))
        .collect()
}

#[test]
fn seed_000s_shape_is_text_then_the_payload_then_the_chips() {
    let text =
        format!("Here is the table.\n\nSCHEMA_PROPOSAL: {CREATE}\n\nSUGGESTED_VALUES: {VALUES}");
    let parsed = Parser::new(&options()).parse(&text);
    let create: Value = serde_json::from_str(CREATE).unwrap();
    let values: Value = serde_json::from_str(VALUES).unwrap();
    assert_eq!(
        shapes(&parsed),
        [
            json!({"text": "Here is the table."}),
            json!({"type": "schema_proposal", "data": create}),
            json!({"type": "suggested_values", "data": values}),
        ]
    );
    let block = text.find("SCHEMA").unwrap();
    let chips = text.find("SUGGESTED").unwrap();
    assert_eq!(
        spans(&parsed),
        [(0, block), (block, chips), (chips, text.len())]
    );
    assert_eq!(parsed.message, "Here is the table.");
    check_parts(&text, &parsed).unwrap();
}

#[test]
fn several_payloads_stand_where_they_were_written_and_the_extra_one_is_refused() {
    let options = options().payload_count(PayloadCount::at_most(2));
    let text = format!(
        "<think>compare</think>\nFirst:\nSCHEMA_PROPOSAL: {CREATE}\nSecond:\n\
         SCHEMA_PROPOSAL: {CREATE}\nThird:\nSCHEMA_PROPOSAL: {CREATE}\nPick one."
    );
    let parsed = Parser::new(&options).parse(&text);
    let shapes = shapes(&parsed);
    let kinds: Vec<&str> = shapes
        .iter()
        .map(|part| match part {
            _ if part.get("reasoning").is_some() => "reasoning",
            _ if part.get("text").is_some() => "text",
            _ if part.get("raw").is_some() => "refused",
            _ => "payload",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "reasoning",
            "text",
            "payload",
            "text",
            "payload",
            "text",
            "refused",
            "text"
        ]
    );
    assert_eq!(shapes[6]["errors"][0]["kind"], "extra_payload");
    assert_eq!(shapes[1], json!({"text": "First:"}));
    assert_eq!(shapes[7], json!({"text": "\n\nPick one."}));
    assert_eq!(parsed.payloads().count(), 2);
    check_parts(&text, &parsed).unwrap();
    for sizes in [&[1][..], &[5], &[2, 9, 4]] {
        check(&options, &text, sizes).unwrap();
    }
}

#[test]
fn the_json_form_reads_back_as_the_same_parse() {
    let options = options().payload_count(PayloadCount::at_most(2));
    let texts = [
        format!(
            "A\nSCHEMA_PROPOSAL: {CREATE}\nB\nSCHEMA_PROPOSAL: {CREATE}\nDATA_PROPOSAL: {{}}\nSUGGESTED_VALUES: []\nSUGGESTED_VALUES: {VALUES}"
        ),
        "<think>x</think> just text".to_string(),
        "   ".to_string(),
        String::new(),
    ];
    for text in texts {
        let parsed = Parser::new(&options).parse(&text);
        let json = serde_json::to_string(&parsed).unwrap();
        let back: ParsedResponse = serde_json::from_str(&json).unwrap();
        assert_eq!(back.parts, parsed.parts, "{json}");
        assert_eq!(back.payloads().count(), parsed.payloads().count());
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }
}

#[test]
fn a_block_the_combination_rule_takes_out_is_a_refused_part() {
    let options = options().combination(Combination::PAYLOAD_ALONE);
    let text = format!("Done.\nSCHEMA_PROPOSAL: {CREATE}\nSUGGESTED_VALUES: {VALUES}");
    let parsed = Parser::new(&options).parse(&text);
    assert_eq!(parsed.suggested_values, None);
    assert!(parsed.rejected.is_empty(), "{parsed:#?}");
    let shapes = shapes(&parsed);
    assert_eq!(shapes[2]["type"], "suggested_values");
    assert!(
        shapes[2]["raw"]
            .as_str()
            .unwrap()
            .starts_with("SUGGESTED_VALUES:")
    );
    assert_eq!(shapes[2]["errors"][0]["kind"], "extra_payload");
    for sizes in [&[1][..], &[7]] {
        check(&options, &text, sizes).unwrap();
    }
}

#[test]
fn a_marker_with_no_value_and_a_near_miss_stay_in_their_text_part() {
    let text = format!("Intro\nSCHEMA_PROPOSAL:\nthen schema_proposal: {CREATE} end");
    let parsed = Parser::new(&options()).parse(&text);
    assert_eq!(parsed.missed_blocks().len(), 2, "{parsed:#?}");
    let shapes = shapes(&parsed);
    assert_eq!(shapes.len(), 1, "{shapes:?}");
    assert_eq!(shapes[0]["text"], json!(parsed.message));
    check_parts(&text, &parsed).unwrap();
}

#[test]
fn tool_payloads_turn_the_parsed_payload_parts_into_refused_ones() {
    let text = format!("Here.\nSCHEMA_PROPOSAL: {CREATE}");
    let mut parsed = Parser::new(&options()).parse(&text);
    let tool = crate::CustomPayload::new("schema_proposal", json!({"mode": "edit"}));
    parsed.apply_tool_payloads(&[tool]);
    let shapes = shapes(&parsed);
    assert_eq!(shapes[1]["errors"][0]["kind"], "superseded_by_tool");
    assert_eq!(
        parsed.custom_payload.unwrap().data(),
        &json!({"mode": "edit"})
    );
}

#[test]
fn reasoning_after_answer_text_goes_where_the_text_says() {
    let page = options();
    for text in [
        "Intro.\n<think>mid</think>\nOutro.".to_string(),
        "Intro.\nSCHEMA_PROPOSAL: {\"mode\": \"create\",\n<think>inside</think>\n\"operations\": []}\nOutro.".to_string(),
        "Intro.\n<think>a</think>\n<think>b</think>\n<think>\n</think>\nEnd <think> not a tag".to_string(),
        "```json\n<think>before a fence's block</think>\nSCHEMA_PROPOSAL: {\"mode\": \"create\", \"operations\": []}\n```".to_string(),
        // An invisible character counts as space before a tag but is message text.
        "\u{200b}\n<think>r</think>\nrest".to_string(),
    ] {
        let parsed = Parser::new(&page).parse(&text);
        check_parts(&text, &parsed).unwrap();
        for sizes in [&[usize::MAX][..], &[1], &[3], &[2, 7, 1]] {
            check(&page, &text, sizes).unwrap();
        }
    }
    let parsed = Parser::new(&page).parse("Intro.\n<think>mid</think>\nOutro.");
    assert_eq!(
        shapes(&parsed),
        [
            json!({"text": "Intro."}),
            json!({"reasoning": "mid"}),
            json!({"text": "\n\nOutro."})
        ]
    );
    assert_eq!(spans(&parsed), [(0, 7), (7, 25), (25, 32)]);
}

#[test]
fn events_name_their_parts_as_they_stream() {
    let text = format!("Intro.\n\nSCHEMA_PROPOSAL: {CREATE}\n\nOutro.");
    let mut stream = StreamParser::new(&options());
    let mut events = Vec::new();
    for chunk in text.as_bytes().chunks(9) {
        events.extend(stream.push(std::str::from_utf8(chunk).unwrap()));
    }
    let (tail, parsed) = stream.finish();
    events.extend(tail);
    let named: Vec<(&str, usize)> = events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::TextDelta { part, .. } => Some(("text", *part)),
            StreamEvent::PayloadStart { part, .. } => Some(("start", *part)),
            StreamEvent::PayloadEnd { part, .. } => Some(("end", *part)),
            _ => None,
        })
        .collect();
    assert_eq!(named.first(), Some(&("text", 0)));
    assert!(
        named.contains(&("start", 1)) && named.contains(&("end", 1)),
        "{named:?}"
    );
    assert_eq!(named.last(), Some(&("text", 2)));
    let end = events
        .iter()
        .find(|event| matches!(event, StreamEvent::PayloadEnd { .. }))
        .unwrap();
    assert!(
        matches!(end, StreamEvent::PayloadEnd { data: Some(data), .. } if data == parsed.custom_payload.as_ref().unwrap().data())
    );
}

#[test]
fn a_response_of_nothing_but_space_is_one_empty_text_part() {
    let parsed = Parser::new(&options()).parse(" \n ");
    assert_eq!(shapes(&parsed), [json!({"text": ""})]);
    assert_eq!(spans(&parsed), [(0, 3)]);
    assert!(Parser::new(&options()).parse("").parts.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// With several payloads allowed, every chunking gives the one-shot parts, the
    /// parts tile the response and every event names its part.
    #[test]
    fn parts_hold_at_every_count_and_chunking(
        text in response(),
        sizes in prop::collection::vec(1usize..12, 1..6),
        count in 0u32..4,
        tricky in any::<bool>(),
    ) {
        let page = if tricky { tricky_options() } else { options() };
        let page = page.payload_count(PayloadCount::at_most(count));
        for chunking in [&sizes[..], &[1]] {
            check(&page, &text, chunking)?;
        }
    }

    #[test]
    fn corpus_parts_under_random_chunkings(
        pick in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(1usize..40, 1..8),
    ) {
        let corpus = corpus();
        let text = &corpus[pick.index(corpus.len() - 1)];
        let page = options().payload_count(PayloadCount::at_most(3));
        check(&page, text, &sizes)?;
    }
}

#[test]
fn reasoning_joined_with_another_channel_keeps_its_parts() {
    let text = "<think>from the text</think>\nThe answer.";
    let mut parsed = Parser::new(&options()).parse(text);
    parsed.set_reasoning(Some("from the provider\n\nfrom the text".to_string()));
    assert_eq!(
        shapes(&parsed),
        [
            json!({"reasoning": "from the text"}),
            json!({"text": "The answer."})
        ]
    );
    check_parts(text, &parsed).unwrap();
}
