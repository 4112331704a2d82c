//! The reader's rules, and its guarantees over generated values and text.

use super::*;
use serde_json::json;

#[test]
fn shows_finished_members_and_the_string_being_typed() {
    let text =
        r#"{"query": "statins and myopathy", "articles": [{"pmid": "123", "title": "Muscle sympt"#;
    assert_eq!(
        partial_value(text),
        Some(json!({"query": "statins and myopathy",
                    "articles": [{"pmid": "123", "title": "Muscle sympt"}]}))
    );
}

#[test]
fn numbers_and_keys_show_only_once_complete() {
    assert_eq!(partial_value(r#"{"year": 20"#), Some(json!({})));
    assert_eq!(
        partial_value(r#"{"year": 2024, "cou"#),
        Some(json!({"year": 2024}))
    );
    assert_eq!(partial_value(r#"{"ok": tru"#), Some(json!({})));
    assert_eq!(partial_value(r#"[1, 2, 3"#), Some(json!([1, 2])));
    assert_eq!(partial_value(r#"{"a": "x\u00"#), Some(json!({"a": "x"})));
    assert_eq!(partial_value(""), None);
}

#[test]
fn a_complete_value_is_itself() {
    let value = json!({"a": [1, {"b": null, "c": "\u{e9}\n"}], "d": false});
    assert_eq!(partial_value(&value.to_string()), Some(value));
    assert_eq!(partial_value(r#"["\ud83d\ude00"]"#), Some(json!(["😀"])));
}

#[test]
fn the_open_pointer_leads_to_what_is_still_arriving() {
    let open = |text: &str| partial_with_open(text).and_then(|(_, open)| open);
    assert_eq!(open(r#"{"a": [1, {"b": "gro"#), Some("/a/1/b".into()));
    assert_eq!(open(r#"{"a": [1, {"b": "done", "#), Some("/a/1".into()));
    assert_eq!(open(r#"{"a": [1, 2"#), Some("/a".into()));
    assert_eq!(open(r#"{"a/b~": "x"#), Some("/a~1b~0".into()));
    assert_eq!(open(r#""root str"#), Some("".into()));
    assert_eq!(open(r#"{"a": 1"#), Some("".into()));
    assert_eq!(
        partial_with_open(r#"{"a": [1]}"#),
        Some((json!({"a": [1]}), None))
    );
    assert_eq!(partial_with_open(""), None);
}

#[test]
fn stops_growing_at_what_the_repairer_refuses() {
    // A guessed value, `NaN`, an unquoted string: the block is rejected; the preview
    // shows what came before.
    assert_eq!(
        partial_value("{\"a\": 1, \"b\": NaN, \"c\": 2}"),
        Some(json!({"a": 1}))
    );
    assert_eq!(partial_value("{\"a\": [1,, 2]}"), Some(json!({"a": [1]})));
    assert_eq!(partial_value("{\"a\": yes, \"b\": 1}"), Some(json!({})));
    let deep = "[".repeat(10_000);
    assert!(partial_value(&deep).is_some());
}

/// The value `text` reads as (the lenient reader's), and checks that a reader fed
/// every prefix of it shows a faithful early view of that value, that the preview just
/// before the value's last closer already holds all of it, and that the reading of the
/// whole text is the value, with nothing open.
fn check_fills_in(text: &str) -> Value {
    let whole = crate::json::repair::parse_lenient(text)
        .unwrap_or_else(|e| panic!("{text:?} does not read: {e:?}"))
        .value;
    for (end, _) in text.char_indices().chain([(text.len(), ' ')]) {
        if let Some((preview, open)) = partial_with_open(&text[..end]) {
            if let Err(why) = preview_fits(&preview, open.as_deref(), &whole) {
                panic!("{:?}: {why}", &text[..end]);
            }
        }
    }
    let last = text.rfind(['}', ']']).unwrap();
    assert_eq!(
        partial_value(&text[..last]).as_ref(),
        Some(&whole),
        "the preview before the last closer of {text:?}"
    );
    let mut reader = PartialReader::default();
    reader.finish(text);
    assert_eq!(
        reader.into_snapshot(),
        Some((whole.clone(), None)),
        "{text:?}"
    );
    whole
}

#[test]
fn a_preview_keeps_filling_in_through_every_repair() {
    let cases = [
        // Comments.
        "{\"ops\": [{\"a\": 1}, // first\n {\"a\": 2} /* second */], \"note\": \"x\"}",
        // Trailing commas.
        "{\"ops\": [1, 2,], \"note\": \"x\",}",
        // Single quotes, an escaped one and an apostrophe.
        "{'ops': ['it\\'s', 'it's fine', 'b'], 'note': 'x'}",
        // Unquoted keys, a bare number as a key.
        "{ops: [1], note_2: \"x\", 5: \"five\"}",
        // Python literals.
        "{\"ops\": [True, False, None], \"note\": \"x\"}",
        // Curly quotes.
        "{\u{201C}ops\u{201D}: [\u{201C}a\u{201D}, \u{2018}b\u{2019}], \u{201C}note\u{201D}: \u{201C}x\u{201D}}",
        // A raw newline and tab in a string.
        "{\"ops\": [\"line\nline\"], \"note\": \"a\tb\"}",
        // Missing commas.
        "{\"ops\": [1 2 {\"a\": 1} {\"a\": 2}] \"note\": \"x\" next: \"y\"}",
        // Invalid escapes and a lone surrogate.
        "{\"path\": \"C:\\data\", \"odd\": \"\\ud800!\", \"note\": \"x\"}",
        // Double quotes inside a string.
        "{\"title\": \"the track \"Gemini Dream\" by them\", \"note\": \"x\"}",
        // A closer of the other kind.
        "{\"ops\": [\"x\", \"y\"}",
        // Invisible characters between tokens.
        "{\u{200B}\"ops\": [1],\u{FEFF} \"note\": \"x\"}",
        // A code fence around the value.
        "```json\n{\"ops\": [1], \"note\": \"x\"}\n```",
        "```json {\"ops\": [1], \"note\": \"x\"}```",
    ];
    for text in cases {
        check_fills_in(text);
    }
}

#[test]
fn a_quote_followed_by_a_word_waits_for_the_word() {
    // `"a" b` may be the inner quote of `"a" b c"` or a string then a key: the string
    // stays open (its text shown) until the word's end says which.
    assert_eq!(
        partial_with_open("{\"t\": \"a\" b"),
        Some((json!({"t": "a"}), Some("/t".into())))
    );
    assert_eq!(
        partial_with_open("{\"t\": \"a\" b c\"}"),
        Some((json!({"t": "a\" b c"}), None))
    );
    assert_eq!(
        partial_with_open("{\"t\": \"a\" b: 1}"),
        Some((json!({"t": "a", "b": 1}), None))
    );
}

#[test]
fn a_long_undecided_stretch_is_read_in_linear_time() {
    // A quote followed by 128 KiB of spaces, fed a byte at a time: the decision is
    // retried only as the stretch doubles (retried on every byte, it reads 8 GiB).
    let spaces = 1 << 17;
    let text = format!("{{\"t\": \"a\"{}", " ".repeat(spaces));
    let mut reader = PartialReader::default();
    let started = std::time::Instant::now();
    for end in (text.len() - spaces)..=text.len() {
        reader.advance(&text[..end]);
    }
    assert!(started.elapsed().as_secs() < 3, "{:?}", started.elapsed());
    assert_eq!(
        reader.snapshot(),
        Some((json!({"t": "a"}), Some("/t".into())))
    );
}

/// Where the chunks of `text` end when it is cut into pieces of `sizes` bytes (cycled,
/// each end moved forward to a character boundary), the last at its end.
fn chunk_ends(text: &str, sizes: &[usize]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut end = 0;
    let mut sizes = sizes.iter().cycle();
    while end < text.len() {
        end = (end + sizes.next().copied().unwrap_or(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        ends.push(end);
    }
    ends
}

/// The elements a reader gives for `text` fed in chunks of `sizes` (cycled), ending
/// with [`PartialReader::finish`].
fn elements(text: &str, sizes: &[usize]) -> Vec<ListElement> {
    let mut reader = PartialReader::with_elements();
    let mut given = Vec::new();
    for end in chunk_ends(text, sizes) {
        reader.advance(&text[..end]);
        given.extend(reader.take_elements());
    }
    reader.finish(text);
    given.extend(reader.take_elements());
    given
}

fn element(pointer: &str, index: usize, value: Value) -> ListElement {
    ListElement {
        pointer: pointer.to_string(),
        index,
        value,
    }
}

#[test]
fn top_level_list_elements_come_once_each_as_they_complete() {
    let text = "{\"ops\": [{\"a\": [1, 2]}, 'two', // c\n 3,], \"inner\": {\"x\": [9]}, \"ops\": [7], \"tags\": [True]}";
    let expected = vec![
        element("/ops", 0, json!({"a": [1, 2]})),
        element("/ops", 1, json!("two")),
        element("/ops", 2, json!(3)),
        // Nested lists are not top-level; the second `ops` is a name written twice.
        element("/tags", 0, json!(true)),
    ];
    for sizes in [&[usize::MAX][..], &[1], &[2], &[3, 1, 7], &[13]] {
        assert_eq!(elements(text, sizes), expected, "{sizes:?}");
    }
    assert_eq!(
        elements("[1, [2], \"x\"]", &[1]),
        vec![
            element("", 0, json!(1)),
            element("", 1, json!([2])),
            element("", 2, json!("x")),
        ]
    );
    // An element is given on the text that completes it, not later.
    let mut reader = PartialReader::with_elements();
    reader.advance("{\"ops\": [{\"a\": 1}");
    assert_eq!(
        reader.take_elements(),
        vec![element("/ops", 0, json!({"a": 1}))]
    );
    reader.advance("{\"ops\": [{\"a\": 1}, 12");
    assert_eq!(reader.take_elements(), vec![]);
    reader.advance("{\"ops\": [{\"a\": 1}, 12 ");
    assert_eq!(reader.take_elements(), vec![element("/ops", 1, json!(12))]);
}

use crate::json::repair::proptests::{json_value, sloppy, token_soup};
use proptest::prelude::*;

/// Feeds `text` in chunks of the given sizes (cycled) to one reader; after each
/// chunk its snapshot is that of a fresh reader given the whole text so far.
fn check_resumable(text: &str, sizes: &[usize]) -> Result<(), TestCaseError> {
    let mut reader = PartialReader::default();
    for end in chunk_ends(text, sizes) {
        let before = reader.version();
        let shown = reader.snapshot();
        // A reader waiting for a long stretch to double skips a text shorter than
        // that (module docs); it reads all of the next one it does not skip.
        let skipped = end < reader.resume_at;
        reader.advance(&text[..end]);
        let now = reader.snapshot();
        if !skipped {
            prop_assert_eq!(&now, &partial_with_open(&text[..end]), "at {}", end);
        }
        if reader.version() == before {
            prop_assert_eq!(now, shown, "unchanged version, changed value at {}", end);
        }
    }
    let mut whole = PartialReader::default();
    whole.finish(text);
    reader.finish(text);
    prop_assert_eq!(
        reader.snapshot(),
        whole.snapshot(),
        "the whole of {:?}",
        text
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn reading_in_chunks_is_reading_at_once(
        value in json_value(),
        pretty in any::<bool>(),
        sizes in prop::collection::vec(1usize..9, 1..5),
    ) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        check_resumable(&text, &sizes)?;
        check_resumable(&text, &[1])?;
        // A complete value is itself, with nothing open (a root scalar only once
        // something follows it: `12` may become `120`, a quote may be followed by
        // more of its string).
        if value.is_object() || value.is_array() {
            prop_assert_eq!(partial_with_open(&text), Some((value.clone(), None)));
        }
        let mut reader = PartialReader::default();
        reader.finish(&text);
        prop_assert_eq!(reader.into_snapshot(), Some((value, None)));
    }

    /// What a careless model writes (any mix of the repaired mistakes), fed in any
    /// chunks: every preview is a faithful early view of the value the repairer reads,
    /// the preview once the whole text is in is that value, and the top-level list
    /// elements come once each, in order, the same at every chunking.
    #[test]
    fn sloppy_writing_previews_fill_in_to_the_value(
        value in json_value().prop_filter("a payload", |v| v.is_object() || v.is_array()),
        choices in prop::collection::vec(any::<u8>(), 1..64),
        fenced in any::<bool>(),
        sizes in prop::collection::vec(1usize..9, 1..5),
    ) {
        let text = sloppy(&value, &choices, fenced);
        for sizes in [&sizes[..], &[1]] {
            let mut reader = PartialReader::with_elements();
            let mut given = Vec::new();
            for end in chunk_ends(&text, sizes) {
                reader.advance(&text[..end]);
                given.extend(reader.take_elements());
                if let Some((preview, open)) = reader.snapshot() {
                    if let Err(why) = preview_fits(&preview, open.as_deref(), &value) {
                        prop_assert!(false, "{:?}: {}", &text[..end], why);
                    }
                }
            }
            // The last preview before the end: the value, nothing open.
            prop_assert_eq!(reader.snapshot(), Some((value.clone(), None)), "{:?}", text);
            reader.finish(&text);
            given.extend(reader.take_elements());
            prop_assert_eq!(given, list_elements(&value), "{:?}", text);
        }
    }

    #[test]
    fn broken_text_in_chunks_is_broken_text_at_once(
        text in prop_oneof![any::<String>(), token_soup()],
        sizes in prop::collection::vec(1usize..9, 1..5),
    ) {
        check_resumable(&text, &sizes)?;
    }
}

/// The elements of `value`'s top-level lists, in text order (as the sloppy writer
/// writes members in the map's order).
fn list_elements(value: &Value) -> Vec<ListElement> {
    let mut out = Vec::new();
    let mut list = |pointer: String, items: &Vec<Value>| {
        for (index, item) in items.iter().enumerate() {
            out.push(element(&pointer, index, item.clone()));
        }
    };
    match value {
        Value::Array(items) => list(String::new(), items),
        Value::Object(members) => {
            for (key, member) in members {
                if let Value::Array(items) = member {
                    list(format!("/{}", pointer::escape_token(key)), items);
                }
            }
        }
        _ => {}
    }
    out
}
