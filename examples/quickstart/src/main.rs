//! A payload type, a page offering it, one response parsed, then streamed. Offline.

use payload_core::LlmPayload;
use payload_core::stream::{StreamEvent, StreamParser};
use payload_registry::{Page, Registry, register_page};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Proposes a meeting time to the user.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "MEETING_PROPOSAL", register, partial)]
struct MeetingProposal {
    /// ISO date, e.g. 2024-05-01.
    date: String,
    /// Who is invited.
    attendees: Vec<String>,
}

register_page!(Page::new("calendar").payloads(&[MeetingProposal::TYPE]));

// A model's answer as it arrives, in pieces that cut the marker and the value.
const CHUNKS: [&str; 4] = [
    "Does Wednesday work?\n\nMEETING_PRO",
    "POSAL: {\"date\": \"2024-05",
    "-01\", \"attendees\": [\"Ana\", ",
    "\"Bo\"]}",
];

fn main() {
    // One shot: the prose, and the block read, repaired if need be, validated and typed.
    let parsed = payload_registry::parse_response("calendar", &CHUNKS.concat()).unwrap();
    println!("message: {:?}", parsed.message);
    println!("payload: {:?}", parsed.payload::<MeetingProposal>());

    // Streamed: the same page's parser, fed the pieces; the card fills in as they come.
    let page = Registry::global().page("calendar").unwrap();
    let mut stream = StreamParser::with_parser(page.parser().clone());
    for chunk in CHUNKS {
        for event in stream.push(chunk) {
            if let Some(card) = event.partial::<MeetingProposal>() {
                println!("card so far: {:?}", card.value);
            } else if let StreamEvent::TextDelta { text, .. } = event {
                println!("text: {text:?}");
            }
        }
    }
    let streamed = stream.finish().1;
    assert_eq!(streamed, parsed, "the stream ends with the one-shot parse");
    println!("streamed: {:?}", streamed.payload::<MeetingProposal>());
}
