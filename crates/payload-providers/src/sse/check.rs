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
