//! A payload is decoded into its Rust type once: validation keeps the value it decoded,
//! and asking for it (`ParsedResponse::payload`, `extract`, the manifest summary) is a
//! lookup, never a second `Deserialize`.

use payload_core::{CustomPayload, LlmPayload, ParseOptions, Parser};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many times a `Counted` was deserialized, per test (each test owns one counter).
static PARSE_COUNT: AtomicUsize = AtomicUsize::new(0);
static EXTRACT_COUNT: AtomicUsize = AtomicUsize::new(0);
static CHANGED_COUNT: AtomicUsize = AtomicUsize::new(0);

fn counted<'de, D: Deserializer<'de>>(
    deserializer: D,
    counter: &AtomicUsize,
) -> Result<String, D::Error> {
    counter.fetch_add(1, Ordering::SeqCst);
    String::deserialize(deserializer)
}

macro_rules! counted_type {
    ($name:ident, $payload:literal, $marker:literal, $counter:ident) => {
        /// A note whose title counts its decodes.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
        #[payload(name = $payload, marker = $marker)]
        struct $name {
            #[serde(deserialize_with = "count")]
            title: String,
        }

        fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
            counted(deserializer, &$counter)
        }
    };
}

mod parse_case {
    use super::*;
    counted_type!(Note, "note", "NOTE", PARSE_COUNT);

    #[test]
    fn a_parsed_payload_is_decoded_once() {
        let parser = Parser::new(&ParseOptions::new().payload(Note::TYPE));
        let parsed = parser.parse("Here.\n\nNOTE: {\"title\": \"Milk\"}");
        assert_eq!(
            PARSE_COUNT.load(Ordering::SeqCst),
            1,
            "validation decodes once"
        );
        assert_eq!(parsed.payload::<Note>().unwrap().title, "Milk");
        assert_eq!(parsed.payload::<Note>().unwrap().title, "Milk");
        let summary = Note::TYPE.summarize(parsed.custom_payload.as_ref().unwrap());
        assert!(summary.is_some());
        assert_eq!(PARSE_COUNT.load(Ordering::SeqCst), 1, "asking is a lookup");
        let owned: Note = parsed.into_payload().unwrap();
        assert_eq!(owned.title, "Milk");
        assert_eq!(PARSE_COUNT.load(Ordering::SeqCst), 1, "taking it is a move");
    }
}

mod extract_case {
    use super::*;
    counted_type!(Note, "note", "NOTE", EXTRACT_COUNT);

    #[test]
    fn an_extracted_value_is_decoded_once() {
        let (note, result) = payload_core::extract::<Note>("```json\n{\"title\": \"Milk\"}\n```");
        assert!(result.success);
        assert_eq!(note.unwrap().title, "Milk");
        assert_eq!(EXTRACT_COUNT.load(Ordering::SeqCst), 1);
    }
}

mod changed_case {
    use super::*;
    counted_type!(Note, "note", "NOTE", CHANGED_COUNT);

    #[test]
    fn changing_the_json_forgets_the_decoded_value() {
        let parser = Parser::new(&ParseOptions::new().payload(Note::TYPE));
        let mut parsed = parser.parse("NOTE: {\"title\": \"Milk\"}");
        let payload = parsed.custom_payload.as_mut().unwrap();
        payload.data_mut()["title"] = "Bread".into();
        assert_eq!(payload.get::<Note>().unwrap().title, "Bread");
        assert_eq!(
            CHANGED_COUNT.load(Ordering::SeqCst),
            2,
            "decoded again after the change"
        );
        // A payload built by hand decodes on first request, then keeps it.
        let built = CustomPayload::new("note", serde_json::json!({"title": "Eggs"}));
        assert_eq!(built.get::<Note>().unwrap().title, "Eggs");
        assert_eq!(built.get::<Note>().unwrap().title, "Eggs");
        assert_eq!(CHANGED_COUNT.load(Ordering::SeqCst), 3);
    }
}
