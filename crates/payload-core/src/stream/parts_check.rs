//! The parts' guarantees (docs/spec.md §1.21) as checks the property tests and the fuzz
//! targets run on every parse and every stream: they say what is wrong, or nothing.

use crate::marker::parts::{PartContents, PartKind};
use crate::marker::response::ParsedResponse;
use crate::stream::StreamEvent;

/// Checks a parse of `text`: the spans cover the text in order exactly once; the text
/// parts' texts concatenated are the message; the payload parts are the accepted
/// payloads, in order, each once; every part's contents are in the parse; no text part
/// is empty unless it is the only part.
pub fn check_parts(text: &str, parsed: &ParsedResponse) -> Result<(), String> {
    let mut at = 0;
    for part in &parsed.parts {
        if part.span.start != at || part.span.end < part.span.start {
            return Err(format!(
                "part {part:?} does not start where the last ended ({at})"
            ));
        }
        at = part.span.end;
    }
    if at != text.len() && !(parsed.parts.is_empty() && text.is_empty()) {
        return Err(format!("the parts end at {at}, the text at {}", text.len()));
    }
    let mut message = String::new();
    let mut payloads = 0;
    for part in &parsed.parts {
        let contents = parsed
            .contents(part)
            .ok_or_else(|| format!("part {part:?} names what the parse lacks"))?;
        match (contents, &part.kind) {
            (PartContents::Text(piece), _) => {
                if piece.is_empty() && parsed.parts.len() > 1 {
                    return Err("an empty text part beside others".into());
                }
                message.push_str(piece);
            }
            (PartContents::Payload(payload), PartKind::Payload(index)) => {
                if *index != payloads {
                    return Err(format!("payload part {index} where {payloads} was due"));
                }
                let expected = parsed.payloads().nth(payloads);
                if expected.map(|p| (&p.kind, p.data())) != Some((&payload.kind, payload.data())) {
                    return Err(format!("payload part {index} is not the payload"));
                }
                payloads += 1;
            }
            (PartContents::Reasoning(piece), _) if piece.trim() != piece || piece.is_empty() => {
                return Err(format!("reasoning part {piece:?} is not a section's text"));
            }
            _ => {}
        }
    }
    if message != parsed.message {
        return Err(format!(
            "the text parts make {message:?}, the message is {:?}",
            parsed.message
        ));
    }
    if payloads != parsed.payloads().count() {
        return Err(format!(
            "{payloads} payload parts for {} payloads",
            parsed.payloads().count()
        ));
    }
    Ok(())
}

/// Checks a stream's events against its final parse: every event that names a part
/// names one of the right kind; each text part's deltas make its text and each
/// reasoning part's deltas its reasoning (after the blank line that joins it to the
/// section before); each `payload_end` holds what its part holds.
pub fn check_part_events(events: &[StreamEvent], parsed: &ParsedResponse) -> Result<(), String> {
    let mut texts: Vec<String> = vec![String::new(); parsed.parts.len()];
    for event in events {
        let (part, kind) = match event {
            StreamEvent::TextDelta { text, part } | StreamEvent::ReasoningDelta { text, part } => {
                texts
                    .get_mut(*part)
                    .ok_or_else(|| format!("{event:?} names no part"))?
                    .push_str(text);
                (*part, None)
            }
            StreamEvent::PayloadStart { kind, part, .. }
            | StreamEvent::PayloadProgress { kind, part, .. } => (*part, Some(kind)),
            StreamEvent::PayloadEnd {
                kind,
                part,
                data,
                errors,
            } => {
                let held = parsed.parts.get(*part).and_then(|p| parsed.contents(p));
                let matches = match held {
                    Some(PartContents::Payload(payload)) => {
                        errors.is_empty() && data.as_ref() == Some(payload.data())
                    }
                    Some(PartContents::SuggestedValues(values)) => {
                        errors.is_empty()
                            && data.as_ref() == serde_json::to_value(values).ok().as_ref()
                    }
                    Some(PartContents::SuggestedActions(actions)) => {
                        errors.is_empty()
                            && data.as_ref() == serde_json::to_value(actions).ok().as_ref()
                    }
                    Some(PartContents::Refused(rejected)) => {
                        data.is_none() && *errors == rejected.errors
                    }
                    _ => false,
                };
                if !matches {
                    return Err(format!("{event:?} is not what part {part} holds: {held:?}"));
                }
                (*part, Some(kind))
            }
            StreamEvent::Complete(_) => continue,
        };
        let held = parsed
            .parts
            .get(part)
            .and_then(|p| parsed.contents(p))
            .ok_or_else(|| format!("{event:?} names no part"))?;
        let fits = match (event, held, kind) {
            (StreamEvent::TextDelta { .. }, PartContents::Text(_), _) => true,
            (StreamEvent::ReasoningDelta { .. }, PartContents::Reasoning(_), _) => true,
            (_, PartContents::Payload(payload), Some(kind)) => payload.kind == *kind,
            (_, PartContents::SuggestedValues(_), Some(kind)) => {
                kind == crate::suggestions::SUGGESTED_VALUES_NAME
            }
            (_, PartContents::SuggestedActions(_), Some(kind)) => {
                kind == crate::suggestions::SUGGESTED_ACTIONS_NAME
            }
            (_, PartContents::Refused(rejected), Some(kind)) => rejected.kind == *kind,
            _ => false,
        };
        if !fits {
            return Err(format!("{event:?} names part {part}, which is {held:?}"));
        }
    }
    for (part, sent) in parsed.parts.iter().zip(&texts) {
        match parsed.contents(part) {
            Some(PartContents::Text(text)) if text != sent => {
                return Err(format!(
                    "the deltas of {part:?} make {sent:?}, not {text:?}"
                ));
            }
            Some(PartContents::Reasoning(text))
                if sent.strip_prefix("\n\n").unwrap_or(sent) != text =>
            {
                return Err(format!(
                    "the deltas of {part:?} make {sent:?}, not {text:?}"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
