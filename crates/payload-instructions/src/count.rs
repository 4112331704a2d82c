//! How many payloads one response may hold, in words: the one sentence that opens a
//! page's STRUCTURED RESPONSES section, and the per-type line among a type's common
//! mistakes. A page that allows one payload (seed 000's rule) reads as it always did;
//! a page that allows several says so in that same sentence, naming the per-type
//! counts that are tighter than the count in all, and no other line grows.

use payload_core::{PayloadCount, PayloadType};

/// A count as a word up to ten ("three"), as digits past it.
pub(crate) fn number(n: u32) -> String {
    const WORDS: [&str; 11] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    WORDS
        .get(n as usize)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// The opening sentence of STRUCTURED RESPONSES for a page offering `payloads` whose
/// count is `count` (no final period: the section goes on "…, each written after its
/// marker.").
///
/// One in all: "At most one of these payloads per response". Several: "Up to three of
/// these payloads per response (at most one ITINERARY), each where it belongs in your
/// reply", listing only the offered types whose own count is below the count in all.
pub fn payload_count_sentence(count: PayloadCount, payloads: &[PayloadType]) -> String {
    if !count.allows_several() {
        return format!(
            "At most {} of these payloads per response",
            number(count.in_all())
        );
    }
    let tighter: Vec<String> = payloads
        .iter()
        .filter(|p| count.of_type(p.name) < count.in_all())
        .map(|p| format!("at most {} {}", number(count.of_type(p.name)), p.marker))
        .collect();
    let per_type = if tighter.is_empty() {
        String::new()
    } else {
        format!(" ({})", tighter.join(", "))
    };
    format!(
        "Up to {} of these payloads per response{per_type}, each where it belongs in your reply",
        number(count.in_all())
    )
}

/// The common mistake of sending too many blocks of `payload` when a response may hold
/// `count` of them: "Send at most one MARKER per response." (the seed's wording), or
/// "Send at most three MARKER blocks per response."
pub(crate) fn too_many(payload: &PayloadType, count: PayloadCount) -> String {
    let n = count.of_type(payload.name);
    // A type written in tags is named by its opening tag (docs/spec.md §1.21).
    let marker = if payload.tag.is_empty() {
        payload.marker.to_string()
    } else {
        format!("<{}>", payload.tag)
    };
    if n == 1 {
        let named = if payload.tag.is_empty() {
            marker
        } else {
            format!("{marker} block")
        };
        format!("Send at most one {named} per response.")
    } else {
        format!("Send at most {} {marker} blocks per response.", number(n))
    }
}
