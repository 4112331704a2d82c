//! How many custom payloads one response may hold: a page's rule (docs/spec.md §1.18),
//! stated in the prompt, applied by the parser and written into the page's grammars.
//!
//! The default, [`PayloadCount::ONE`], is seed 000's rule: one payload, a second is
//! rejected as `extra_payload`. A page that lets an answer offer alternatives (three
//! recipes to pick from) or several kinds of card (an itinerary, then hotel options)
//! raises the count in all, per type, or both.

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
