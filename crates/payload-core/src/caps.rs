//! Bounded reports (docs/spec.md §8.1): at most [`MAX_ERRORS`] errors per payload and
//! [`MAX_WARNINGS`] warnings per response are kept; the rest are counted in one final
//! entry.
//!
//! A hostile response can make a problem repeat without end (400,000 empty objects in an
//! array, a million chips with no label). Listing every one would cost memory in
//! proportion to the problems, not to the text, and no model acts on the 101st error
//! anyway. Sources push into a [`Capped`] collector, which keeps the first entries and
//! only counts the others, so nothing past the cap is ever built into a message.

use crate::error::PayloadError;
use crate::warning::{Warning, WarningKind};

pub(crate) use crate::limits::{MAX_ERRORS, MAX_WARNINGS};

/// A list that keeps its first `cap` entries and counts the others.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Capped<T> {
    items: Vec<T>,
    omitted: usize,
    cap: usize,
}

impl<T> Capped<T> {
    /// An empty collector keeping at most `cap` entries.
    pub fn new(cap: usize) -> Self {
        Capped {
            items: Vec::new(),
            omitted: 0,
            cap,
        }
    }

    /// Whether the next entry would only be counted: a source can skip building it.
    pub fn is_full(&self) -> bool {
        self.items.len() >= self.cap
    }

    /// Keeps `item`, or counts it when the collector is full.
    pub fn push(&mut self, item: T) {
        if self.is_full() {
            self.omitted += 1;
        } else {
            self.items.push(item);
        }
    }

    /// Counts `count` entries past the cap without building them (call when
    /// [`Self::is_full`]).
    pub fn count_omitted(&mut self, count: usize) {
        self.omitted += count;
    }

    /// Drops the kept entries `keep` refuses. Entries already counted past the cap stay
    /// counted: they were never built, so they cannot take the freed places.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.items.retain(keep);
    }

    /// Takes in another collector's entries, and its count of the entries it did not
    /// keep.
    pub fn absorb(&mut self, other: Capped<T>) {
        let (items, omitted) = other.into_parts();
        self.extend(items);
        self.omitted += omitted;
    }

    /// Whether nothing was kept or counted.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.omitted == 0
    }

    /// The entries kept so far.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// How many entries were counted but not kept.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// The kept entries and the count of the others.
    pub fn into_parts(self) -> (Vec<T>, usize) {
        (self.items, self.omitted)
    }
}

impl<T> Extend<T> for Capped<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl Capped<PayloadError> {
    /// A collector for one payload's errors.
    pub fn errors() -> Self {
        Capped::new(MAX_ERRORS)
    }

    /// The errors kept, followed by one error that counts the others, if any.
    pub fn finish(self) -> Vec<PayloadError> {
        let (mut errors, omitted) = self.into_parts();
        if omitted > 0 {
            let kind = errors
                .last()
                .map_or(crate::ErrorKind::Validation, |e| e.kind());
            errors.push(
                PayloadError::new(
                    kind,
                    "",
                    format!("{omitted} more problems with this value were not listed"),
                )
                .with_suggestion(
                    "fix the problems listed above, then check the rest of the value the same way",
                ),
            );
        }
        errors
    }
}

impl Capped<Warning> {
    /// A collector for one response's warnings.
    pub fn warnings() -> Self {
        Capped::new(MAX_WARNINGS)
    }

    /// The warnings kept, followed by one `omitted` warning that counts the others.
    pub fn finish(self) -> Vec<Warning> {
        let (mut warnings, omitted) = self.into_parts();
        if omitted > 0 {
            warnings.push(Warning::new(
                WarningKind::Omitted,
                format!("{omitted} more warnings were not listed"),
            ));
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_cap_and_counts_the_rest() {
        let mut errors = Capped::errors();
        for i in 0..250 {
            errors.push(PayloadError::validation(format!("/{i}"), "bad"));
        }
        let errors = errors.finish();
        assert_eq!(errors.len(), MAX_ERRORS + 1);
        assert_eq!(errors[99].path(), "/99");
        assert!(errors[100].message().starts_with("150 more"));

        let mut warnings = Capped::warnings();
        warnings.extend((0..3).map(|_| Warning::new(WarningKind::Repaired, "x")));
        assert_eq!(warnings.finish().len(), 3, "under the cap nothing is added");
    }

    #[test]
    fn absorbing_keeps_the_cap_and_adds_the_counts() {
        let mut first = Capped::new(3);
        first.extend([1, 2]);
        let mut second = Capped::new(1);
        second.extend([3, 4, 5]);
        first.absorb(second);
        assert_eq!(first.items(), [1, 2, 3]);
        assert_eq!(first.omitted(), 2);
        first.retain(|n| *n != 2);
        assert_eq!(first.items(), [1, 3]);
        assert!(!first.is_empty() && Capped::<u8>::new(1).is_empty());
    }
}
