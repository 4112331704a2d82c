//! How many custom payloads one response may hold: a page's rule (docs/spec.md §1.18),
//! stated in the prompt, applied by the parser and written into the page's grammars.
//!
//! The default, [`PayloadCount::ONE`], is seed 000's rule: one payload, a second is
//! rejected as `extra_payload`. A page that lets an answer offer alternatives (three
//! recipes to pick from) or several kinds of card (an itinerary, then hotel options)
//! raises the count in all, per type, or both.

use crate::error::{ErrorKind, PayloadError};

/// How many custom payloads one response may hold, in all and per type.
///
/// A block past the count is rejected as `extra_payload` with the rest of the answer
/// intact; the blocks before it are kept. Per-type counts narrow the count in all,
/// never widen it: a type with no count of its own is bounded by the count in all.
///
/// ```
/// use payload_core::PayloadCount;
///
/// // Up to three blocks, of which at most one itinerary.
/// const COUNT: PayloadCount = PayloadCount::at_most(3).per_type(&[("itinerary", 1)]);
/// assert_eq!(COUNT.of_type("itinerary"), 1);
/// assert_eq!(COUNT.of_type("hotel_options"), 3);
/// assert!(COUNT.admits("hotel_options", 0, 2));
/// assert!(!COUNT.admits("itinerary", 1, 1));
/// assert!(!COUNT.admits("hotel_options", 0, 3));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PayloadCount {
    in_all: u32,
    per_type: &'static [(&'static str, u32)],
}

impl PayloadCount {
    /// One payload per response, of any type the page offers (the default).
    pub const ONE: PayloadCount = PayloadCount::at_most(1);

    /// At most `n` payloads per response in all (`0` offers none: every block is
    /// rejected as `extra_payload`).
    pub const fn at_most(n: u32) -> PayloadCount {
        PayloadCount {
            in_all: n,
            per_type: &[],
        }
    }

    /// The same count, with at most `n` blocks of each named type for each
    /// `(type name, n)`; the count in all still applies. A name listed twice keeps
    /// its first count.
    pub const fn per_type(mut self, counts: &'static [(&'static str, u32)]) -> PayloadCount {
        self.per_type = counts;
        self
    }

    /// How many payloads one response may hold in all.
    pub const fn in_all(self) -> u32 {
        self.in_all
    }

    /// The per-type counts as declared.
    pub const fn per_type_counts(self) -> &'static [(&'static str, u32)] {
        self.per_type
    }

    /// How many payloads of type `name` one response may hold: its own count, bounded
    /// by the count in all.
    pub fn of_type(self, name: &str) -> u32 {
        self.per_type
            .iter()
            .find(|(listed, _)| *listed == name)
            .map_or(self.in_all, |&(_, n)| n.min(self.in_all))
    }

    /// Whether one more payload of type `name` may be accepted when `of_type` of that
    /// type and `in_all` of every type were accepted before it.
    pub fn admits(self, name: &str, of_type: u32, in_all: u32) -> bool {
        in_all < self.in_all && of_type < self.of_type(name)
    }

    /// Whether a response may hold more than one payload.
    pub fn allows_several(self) -> bool {
        self.in_all > 1
    }
}

/// The custom payloads one response has had accepted so far, in all and per type: what
/// the parser holds a block against ([`PayloadCount::admits`]).
#[derive(Debug, Default)]
pub(crate) struct Counted {
    in_all: u32,
    /// Per type, only for a count that names types: with none, the count in all bounds
    /// every type and is the only one to keep. One entry per type accepted, so the list
    /// is never longer than the page's list of types.
    per_type: Vec<(&'static str, u32)>,
}

impl Counted {
    /// The `extra_payload` error for one more block of type `name`, naming the count it
    /// is past; `None` when `count` admits it.
    pub(crate) fn refusal(&self, count: PayloadCount, name: &str) -> Option<PayloadError> {
        let of_type = self.of_type(name);
        if count.admits(name, of_type, self.in_all) {
            return None;
        }
        let (message, suggestion) = if self.in_all >= count.in_all() {
            match count.in_all() {
                0 => (
                    "no structured payload is accepted on this page".to_string(),
                    "answer in prose only".to_string(),
                ),
                // Seed 000's wording, unchanged.
                1 => (
                    "only one structured payload is accepted per response; an earlier one was"
                        .to_string(),
                    "send one payload per response".to_string(),
                ),
                n => (
                    format!(
                        "at most {n} structured payloads are accepted per response; \
                         {n} earlier ones were"
                    ),
                    format!("send at most {n} payloads per response"),
                ),
            }
        } else {
            match count.of_type(name) {
                0 => (
                    format!("no `{name}` payload is accepted on this page"),
                    format!("do not send a `{name}` payload"),
                ),
                1 => (
                    format!(
                        "only one `{name}` payload is accepted per response; an earlier one was"
                    ),
                    format!("send at most one `{name}` payload per response"),
                ),
                n => (
                    format!(
                        "at most {n} `{name}` payloads are accepted per response; \
                         {n} earlier ones were"
                    ),
                    format!("send at most {n} `{name}` payloads per response"),
                ),
            }
        };
        Some(PayloadError::new(ErrorKind::ExtraPayload, "", message).with_suggestion(suggestion))
    }

    /// Counts one more accepted payload of type `name`, for a `count` that admitted it.
    pub(crate) fn accept(&mut self, count: PayloadCount, name: &'static str) {
        self.in_all += 1;
        if count.per_type_counts().is_empty() {
            return;
        }
        match self.per_type.iter_mut().find(|(listed, _)| *listed == name) {
            Some((_, n)) => *n += 1,
            None => self.per_type.push((name, 1)),
        }
    }

    /// How many payloads were accepted in all.
    pub(crate) fn in_all(&self) -> u32 {
        self.in_all
    }

    /// How many payloads of type `name` were accepted (with no per-type count kept,
    /// the count in all, which bounds it).
    fn of_type(&self, name: &str) -> u32 {
        self.per_type
            .iter()
            .find(|(listed, _)| *listed == name)
            .map_or(0, |&(_, n)| n)
    }
}

impl Default for PayloadCount {
    fn default() -> Self {
        PayloadCount::ONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_admits_exactly_one_payload() {
        let one = PayloadCount::default();
        assert!(one.admits("any", 0, 0));
        assert!(!one.admits("any", 0, 1));
        assert!(!one.admits("other", 1, 1));
        assert!(!one.allows_several());
    }

    #[test]
    fn a_per_type_count_narrows_and_never_widens_the_count_in_all() {
        let count = PayloadCount::at_most(2).per_type(&[("a", 5), ("b", 1), ("b", 2)]);
        assert_eq!(count.of_type("a"), 2);
        assert_eq!(count.of_type("b"), 1);
        assert_eq!(count.of_type("c"), 2);
        assert!(count.admits("b", 0, 1));
        assert!(!count.admits("b", 1, 1));
        assert!(!count.admits("a", 1, 2));
    }

    #[test]
    fn zero_admits_nothing() {
        assert!(!PayloadCount::at_most(0).admits("a", 0, 0));
    }
}
