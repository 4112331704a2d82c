//! The reader's invariants as one check, shared by the property tests and the fuzz
//! target: however the bytes are cut into pieces, the reader gives what it gives for
//! them in one piece (events, or the same error), searches each byte for a line end at
//! most once, and never hands out an event larger than its cap.

use super::{Event, SseError, SseReader};

/// Reads `bytes` cut at `cuts` (taken modulo the length, in any order) under `limit`,
/// and panics when an invariant fails; returns what was read.
pub fn check_reading(bytes: &[u8], cuts: &[usize], limit: usize) -> Result<Vec<Event>, SseError> {
    let whole = read(bytes, &[], limit);
    let pieces = read(bytes, cuts, limit);
    assert_eq!(
        pieces.0, whole.0,
        "the events depend on how the bytes were cut"
    );
    for reader in [&whole.1, &pieces.1] {
        assert!(
            reader.examined() <= reader.received(),
            "a byte was searched twice: {} searched of {} received",
            reader.examined(),
            reader.received()
        );
    }
    if let Ok(events) = &whole.0 {
        for event in events {
            assert!(event.data.len() <= limit, "an event over the cap was read");
        }
    }
    whole.0
}

/// The `sse` fuzz target's body, callable on a stable compiler (the replay test runs
/// the target's seeds and saved findings through it): the first byte sets the cap,
/// the second how many cut points follow (at most 7); the rest is the stream, checked
/// by [`check_reading`].
pub fn check_bytes(data: &[u8]) {
    let [cap, count, rest @ ..] = data else {
        return;
    };
    let count = usize::from(*count % 8).min(rest.len());
    let (cuts, stream) = rest.split_at(count);
    let cuts: Vec<usize> = cuts.iter().map(|&c| usize::from(c) * 31).collect();
    let _ = check_reading(stream, &cuts, 1 + usize::from(*cap) * 4);
}

/// Every event of `bytes` fed in the pieces `cuts` makes, or the first error; and the
/// reader.
pub(super) fn read(
    bytes: &[u8],
    cuts: &[usize],
    limit: usize,
) -> (Result<Vec<Event>, SseError>, SseReader) {
    let mut reader = SseReader::new(limit);
    let mut events = Vec::new();
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.push(0);
    points.push(bytes.len());
    points.sort_unstable();
    for piece in points.windows(2) {
        if let Err(error) = reader.push(&bytes[piece[0]..piece[1]]) {
            return (Err(error), reader);
        }
        while let Some(event) = reader.next_event() {
            events.push(event);
        }
    }
    (Ok(events), reader)
}
