//! Properties every provider's decoder keeps, over arbitrary input and over the
//! recorded streams of `tests/fixtures/`:
//!
//! - whatever an event's data is, decoding it returns chunks or an error (never a
//!   panic), and data that is not the provider's wire format is a `Protocol` error;
//! - a member the provider adds to an event later changes nothing read from it;
//! - an event type the client does not know is named, whatever its name.

use crate::anthropic::decode::AnthropicDecoder;
use crate::gemini::decode::GeminiDecoder;
use crate::openai::decode::OpenAiDecoder;
use crate::responses::decode::ResponsesDecoder;
use crate::sse::{Event, SseReader};
use crate::transport::Decoder;
use crate::wire::{Wire, read_tagged};
use payload_agent::{ModelChunk, ModelError, ModelErrorKind};
use proptest::prelude::*;
use serde_json::Value;

/// Makes a fresh decoder.
type NewDecoder = Box<dyn Fn() -> Box<dyn Decoder>>;

/// Each provider's recordings: its streams, each as its events' data.
type Recordings = Vec<(&'static str, Vec<Vec<String>>)>;

/// A fresh decoder of each provider, by the fixture directory its recordings are in.
fn decoders() -> Vec<(&'static str, NewDecoder)> {
    vec![
        ("openai", Box::new(|| Box::new(OpenAiDecoder::new(None)))),
        (
            "anthropic",
            Box::new(|| Box::new(AnthropicDecoder::new(None))),
        ),
        (
            "responses",
            Box::new(|| Box::new(ResponsesDecoder::new(None))),
        ),
        ("gemini", Box::new(|| Box::new(GeminiDecoder::new(None)))),
    ]
}

impl Decoder for Box<dyn Decoder> {
    fn event(&mut self, event: &Event) -> Result<Vec<ModelChunk>, ModelError> {
        (**self).event(event)
    }
    fn done(&self) -> bool {
        (**self).done()
    }
    fn may_end(&self) -> bool {
        (**self).may_end()
    }
    fn response_model(&self) -> Option<&str> {
        (**self).response_model()
    }
}

fn event(data: &str) -> Event {
    Event {
        event: "message".into(),
        data: data.into(),
        id: String::new(),
        retry: None,
    }
}

/// The events of every recording of `provider`, read once.
fn recorded(provider: &str) -> &'static [Vec<String>] {
    static READ: std::sync::OnceLock<Recordings> = std::sync::OnceLock::new();
    let all = READ.get_or_init(|| {
        ["openai", "anthropic", "responses", "gemini"]
            .into_iter()
            .map(|provider| (provider, read_recordings(provider)))
            .collect()
    });
    all.iter()
        .find(|(name, _)| *name == provider)
        .map(|(_, streams)| streams.as_slice())
        .unwrap_or_default()
}

fn read_recordings(provider: &str) -> Vec<Vec<String>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(provider);
    let mut streams = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the fixtures") {
        let bytes = std::fs::read(entry.expect("an entry").path()).expect("a fixture");
        let mut reader = SseReader::new(1 << 20);
        reader
            .push(&bytes)
            .expect("a recording is a valid event stream");
        let mut events = Vec::new();
        while let Some(event) = reader.next_event() {
            events.push(event.data);
        }
        streams.push(events);
    }
    streams
}

/// The chunks (or error kinds) a fresh decoder gives for `events`.
fn decode(
    new: &dyn Fn() -> Box<dyn Decoder>,
    events: &[String],
) -> Vec<Result<Vec<ModelChunk>, ModelErrorKind>> {
    let mut decoder = new();
    events
        .iter()
        .map(|data| decoder.event(&event(data)).map_err(|e| e.kind))
        .collect()
}

/// Where a new member is added: the event object itself.
fn with_member(data: &str, name: &str, value: &Value) -> String {
    match serde_json::from_str::<Value>(data) {
        Ok(Value::Object(mut map)) => {
            map.insert(name.to_string(), value.clone());
            Value::Object(map).to_string()
        }
        _ => data.to_string(),
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn any_data_is_chunks_or_an_error_never_a_panic(data in any::<String>()) {
        for (_, new) in decoders() {
            let mut decoder = new();
            if let Err(error) = decoder.event(&event(&data)) {
                // Garbage is a wire-format error; JSON that happens to be an error
                // object is the provider's failure.
                prop_assert!(matches!(
                    error.kind,
                    ModelErrorKind::Protocol
                        | ModelErrorKind::Server
                        | ModelErrorKind::RateLimited
                        | ModelErrorKind::Rejected
                ));
            }
        }
    }

    #[test]
    fn any_json_object_is_chunks_or_an_error_never_a_panic(value in json_value()) {
        let data = value.to_string();
        for (_, new) in decoders() {
            let _ = new().event(&event(&data));
        }
    }

    #[test]
    fn an_unknown_event_type_is_named(kind in "[a-z_.]{1,24}") {
        let data = serde_json::json!({"type": kind, "sequence_number": 3}).to_string();
        let known_responses = kind.starts_with("response.") || kind == "error";
        if !known_responses {
            let read = read_tagged::<crate::responses::wire::StreamEvent>(&data);
            let named = matches!(read, Ok(Wire::Unknown { kind: ref named }) if *named == kind);
            prop_assert!(named, "responses: {}", kind);
        }
        let anthropic_known = [
            "message_start", "content_block_start", "content_block_delta",
            "content_block_stop", "message_delta", "message_stop", "ping", "error",
        ];
        if !anthropic_known.contains(&kind.as_str()) {
            let read = read_tagged::<crate::anthropic::wire::StreamEvent>(&data);
            let named = matches!(read, Ok(Wire::Unknown { kind: ref named }) if *named == kind);
            prop_assert!(named, "anthropic: {}", kind);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_member_added_later_changes_nothing_read(name in "x_[a-z]{1,8}", value in json_value()) {
        for (provider, new) in decoders() {
            for events in recorded(provider) {
                let widened: Vec<String> =
                    events.iter().map(|d| with_member(d, &name, &value)).collect();
                prop_assert_eq!(decode(&*new, events), decode(&*new, &widened), "{}", provider);
            }
        }
    }

}

#[test]
fn every_recording_decodes_without_a_protocol_error() {
    for (provider, new) in decoders() {
        for events in recorded(provider) {
            for result in decode(&*new, events) {
                assert!(
                    !matches!(result, Err(ModelErrorKind::Protocol)),
                    "{provider}: {events:?}"
                );
            }
        }
    }
}
