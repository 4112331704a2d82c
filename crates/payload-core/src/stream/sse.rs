//! Server-Sent Events encoding (docs/spec.md §5): an `event:` line, one `data:` line of
//! JSON, a blank line.
//!
//! JSON written by `serde_json` never holds a raw newline (newlines in strings are
//! escaped), so one `data:` line always carries the whole value and a client's
//! `EventSource` gets it back with one `JSON.parse`.

use crate::stream::StreamEvent;
use serde::Serialize;
use std::io::{self, Write};

/// An event that goes out as SSE: a name from the chat vocabulary (`status`,
/// `text_delta`, `reasoning_delta`, `tool_start`, `tool_progress`, `tool_complete`,
/// `complete`, `error`,
/// and the parser's `payload_start` / `payload_progress` / `payload_element` /
/// `payload_end`) and a JSON body.
pub trait ServerSentEvent {
    /// The `event:` name.
    fn event_name(&self) -> &'static str;
    /// The `data:` body, serialized as JSON.
    fn write_data(&self, out: &mut dyn Write) -> io::Result<()>;

    /// The event as SSE text.
    fn to_sse(&self) -> String {
        let mut out = Vec::new();
        self.write_sse(&mut out)
            .expect("writing to a Vec and serializing plain data cannot fail");
        String::from_utf8(out).expect("event names and JSON are UTF-8")
    }

    /// Writes the event as SSE.
    fn write_sse(&self, out: &mut dyn Write) -> io::Result<()> {
        write!(out, "event: {}\ndata: ", self.event_name())?;
        self.write_data(out)?;
        out.write_all(b"\n\n")
    }
}

/// Writes `data` as one line of JSON (the shared body of every [`ServerSentEvent`]).
pub fn write_json(out: &mut dyn Write, data: &(impl Serialize + ?Sized)) -> io::Result<()> {
    serde_json::to_writer(out, data).map_err(io::Error::other)
}

/// One SSE event named `event` carrying `data`.
pub fn encode(event: &str, data: &(impl Serialize + ?Sized)) -> String {
    let body = serde_json::to_string(data).unwrap_or_else(|_| "null".to_string());
    format!("event: {event}\ndata: {body}\n\n")
}

impl ServerSentEvent for StreamEvent {
    fn event_name(&self) -> &'static str {
        self.name()
    }

    fn write_data(&self, out: &mut dyn Write) -> io::Result<()> {
        // `StreamEvent` serializes untagged: `{"text", "part"}`, `{"type", "marker",
        // "part"}`, `{"type", "partial", "part"}`, `{"type", "part", "data" or
        // "errors"}`, or the ParsedResponse itself.
        write_json(out, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marker::response::ParsedResponse;
    use serde_json::{Value, json};

    fn parts(sse: &str) -> (String, Value) {
        let lines: Vec<&str> = sse.strip_suffix("\n\n").unwrap().split('\n').collect();
        assert_eq!(lines.len(), 2, "{sse:?}");
        let name = lines[0].strip_prefix("event: ").unwrap().to_string();
        let data = serde_json::from_str(lines[1].strip_prefix("data: ").unwrap()).unwrap();
        (name, data)
    }

    #[test]
    fn a_text_delta_is_one_data_line_even_with_newlines() {
        let event = StreamEvent::TextDelta {
            text: "Line one.\n\nLine two: \"quoted\"".to_string(),
            part: 2,
        };
        let (name, data) = parts(&event.to_sse());
        assert_eq!(name, "text_delta");
        assert_eq!(
            data,
            json!({"text": "Line one.\n\nLine two: \"quoted\"", "part": 2})
        );
    }

    #[test]
    fn complete_carries_the_parsed_response_itself() {
        let parsed = ParsedResponse {
            message: "Done.".to_string(),
            ..ParsedResponse::default()
        };
        let (name, data) = parts(&StreamEvent::Complete(Box::new(parsed.clone())).to_sse());
        assert_eq!(name, "complete");
        assert_eq!(data, serde_json::to_value(&parsed).unwrap());
    }

    #[test]
    fn payload_events_carry_type_and_marker_or_partial() {
        let start = StreamEvent::PayloadStart {
            kind: "schema_proposal".to_string(),
            marker: "SCHEMA_PROPOSAL".to_string(),
            part: 1,
        };
        assert_eq!(
            parts(&start.to_sse()),
            (
                "payload_start".to_string(),
                json!({"type": "schema_proposal", "marker": "SCHEMA_PROPOSAL", "part": 1})
            )
        );
        let progress = StreamEvent::PayloadProgress {
            kind: "schema_proposal".to_string(),
            partial: json!({"mode": "create"}),
            open: Some("".to_string()),
            part: 1,
        };
        let (name, data) = parts(&progress.to_sse());
        assert_eq!(name, "payload_progress");
        assert_eq!(data["partial"], json!({"mode": "create"}));
        assert_eq!(data["open"], json!(""));
        assert_eq!(data["part"], json!(1));
        let end = StreamEvent::PayloadEnd {
            kind: "schema_proposal".to_string(),
            part: 1,
            data: Some(json!({"mode": "create"})),
            errors: Vec::new(),
        };
        assert_eq!(
            parts(&end.to_sse()),
            (
                "payload_end".to_string(),
                json!({"type": "schema_proposal", "part": 1, "data": {"mode": "create"}})
            )
        );
        assert_eq!(
            encode("status", &json!({"message": "Thinking..."})),
            "event: status\ndata: {\"message\":\"Thinking...\"}\n\n"
        );
    }
}
