use super::*;
use proptest::prelude::*;

use super::check::read;

/// The standard's algorithm over the whole text at once, as plainly as it can be
/// written: the reference the streaming reader must agree with.
fn reference(text: &str) -> Vec<(String, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut lines: Vec<&str> = normalized.split('\n').collect();
    lines.pop(); // the text after the last line end is no line yet
    let (mut kind, mut data, mut events) = (String::new(), String::new(), Vec::new());
    for line in lines {
        if line.is_empty() {
            if !data.is_empty() {
                data.pop();
                let name = if kind.is_empty() { "message" } else { &kind };
                events.push((name.to_string(), std::mem::take(&mut data)));
            }
            kind.clear();
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match name {
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "event" => kind = value.to_string(),
            _ => {}
        }
    }
    events
}

fn pairs(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .map(|e| (e.event.clone(), e.data.clone()))
        .collect()
}

/// Event-stream text built from the pieces a stream is made of.
fn stream_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("data: ".to_string()),
        Just("data:".to_string()),
        Just("event: ping".to_string()),
        Just(": keep-alive".to_string()),
        Just("id: 7".to_string()),
        Just("retry: 100".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\r".to_string()),
        Just("\n\n".to_string()),
        Just(" ".to_string()),
        Just("{\"choices\":[]}".to_string()),
        "[a-z :é]{0,6}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    /// However the bytes are cut, the reader gives the events the standard gives for
    /// the whole text, and searches each byte for a line end at most once.
    #[test]
    fn any_cutting_reads_the_standards_events_in_linear_work(
        text in stream_text(),
        bom in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let text = if bom { format!("\u{feff}{text}") } else { text };
        let events = super::check::check_reading(text.as_bytes(), &cuts, usize::MAX);
        prop_assert_eq!(pairs(&events.unwrap()), reference(&text));
    }

    /// Streams under small caps, cut anywhere (a `\r\n` split between two pieces
    /// included): the cap is met at the same byte however the stream is cut.
    #[test]
    fn the_cap_does_not_depend_on_the_cutting(
        text in stream_text(),
        limit in 1usize..48,
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let _ = super::check::check_reading(text.as_bytes(), &cuts, limit);
    }

    /// Any bytes at all, cut anywhere, under any cap: the shared check holds (the fuzz
    /// target runs the same check).
    #[test]
    fn any_bytes_keep_the_readers_invariants(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        limit in 1usize..64,
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let _ = super::check::check_reading(&bytes, &cuts, limit);
    }

    /// An event over the cap is refused however it is cut, and one within it is read.
    #[test]
    fn the_cap_holds_under_any_cutting(
        size in 1usize..300,
        limit in 8usize..200,
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let text = format!("data: {}\n\n", "x".repeat(size));
        // The event's bytes: its line with its end, then the empty line.
        let event_bytes = text.len();
        let (events, _) = read(text.as_bytes(), &cuts, limit);
        if event_bytes <= limit {
            prop_assert_eq!(events.unwrap().len(), 1);
        } else {
            prop_assert_eq!(events.unwrap_err(), SseError::TooLarge { limit });
        }
    }
}

#[test]
fn a_long_event_in_small_pieces_is_searched_once() {
    let data = "y".repeat(2_500_000);
    let text = format!("data: {data}\n\n");
    let mut reader = SseReader::new(16 << 20);
    for piece in text.as_bytes().chunks(1000) {
        reader.push(piece).unwrap();
    }
    let event = reader.next_event().unwrap();
    assert_eq!(event.data.len(), data.len());
    // Linear: each byte searched once, whatever the number of pieces.
    assert_eq!(reader.examined(), text.len() as u64);
}

#[test]
fn fields_comments_ids_and_line_ends() {
    let text = "\u{feff}: hello\r\nevent: ping\rdata: {\"type\":\"ping\"}\r\n\r\nid: 4\ndata:a\ndata: b\nretry: 30\n\ndata\n\n";
    let (events, _) = read(text.as_bytes(), &[1, 20, 21, 40], 1 << 20);
    let events = events.unwrap();
    assert_eq!(
        pairs(&events),
        [
            ("ping".into(), "{\"type\":\"ping\"}".into()),
            ("message".into(), "a\nb".into()),
            // `data` with no colon is a data line with an empty value.
            ("message".into(), String::new()),
        ]
    );
    assert_eq!(events[1].id, "4");
    assert_eq!(events[1].retry, Some(Duration::from_millis(30)));
    assert_eq!(events[2].retry, None);
}

#[test]
fn a_lone_cr_at_the_end_of_a_piece_ends_one_line_with_the_lf_after_it() {
    let (events, _) = read(b"data: a\r\n\r\ndata: b\n\n", &[8], 1 << 10);
    assert_eq!(
        pairs(&events.unwrap()),
        [
            ("message".into(), "a".into()),
            ("message".into(), "b".into())
        ]
    );
}

#[test]
fn a_crlf_split_between_pieces_counts_against_the_cap_as_in_one_piece() {
    // The event is 9 bytes (a line end counts one), over a cap of 8, whatever the cut.
    for cut in 0..12 {
        assert_eq!(
            super::check::check_reading(b"data: x\r\n\r\n", &[cut], 8),
            Err(SseError::TooLarge { limit: 8 })
        );
        assert!(super::check::check_reading(b"data: x\r\n\r\n", &[cut], 9).is_ok());
    }
}

#[test]
fn bytes_that_are_not_utf8_are_an_error() {
    let (events, _) = read(b"data: \xff\xfe\n\n", &[], 1 << 10);
    assert_eq!(events.unwrap_err(), SseError::NotUtf8);
}

#[test]
fn a_line_that_never_ends_is_refused_once_it_passes_the_cap() {
    let mut reader = SseReader::new(1000);
    let mut refused = None;
    for n in 0..100 {
        if let Err(error) = reader.push(&[b' '; 100]) {
            refused = Some((n, error));
            break;
        }
    }
    assert_eq!(refused, Some((10, SseError::TooLarge { limit: 1000 })));
}

/// The `sse` fuzz target's body on its seeds (`fuzz/corpus/sse`) and on every saved
/// finding (`fuzz/artifacts-replay`), as the target reads them (cap and cut bytes
/// first), and on each seed read as one stream with a few cuts: what a fuzzer checks
/// on a machine with a nightly compiler, checked by `cargo test` everywhere.
#[test]
fn the_fuzz_seeds_and_findings_hold_the_targets_checks() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut replayed = 0;
    for dir in ["corpus/sse", "artifacts-replay"] {
        let entries = std::fs::read_dir(fuzz.join(dir)).expect("the fuzz folders are checked in");
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path()).unwrap();
            check::check_bytes(&bytes);
            let mut framed = vec![255, 3, 1, 7, 40];
            framed.extend_from_slice(&bytes);
            check::check_bytes(&framed);
            replayed += 1;
        }
    }
    assert!(replayed >= 2, "the seeds are checked in");
}
