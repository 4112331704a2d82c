//! Where each stream event falls in the answer's parts: its position, which is also
//! the part's id within its answer (parts are only ever appended). The stream events
//! will carry this position themselves (`part`); until they do, it is derived here,
//! and only here, from the order of the events: a text or reasoning delta continues
//! the part before it when that part is of its kind, and every block begins a part.

use payload_core::stream::StreamEvent;

/// What kind of part is being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Reasoning,
    Block,
}

/// The positions of one answer's parts, read from its events in order.
#[derive(Debug, Default)]
pub(crate) struct Positions {
    /// The kind and position of the part being written.
    current: Option<(Kind, usize)>,
    /// How many parts have begun.
    count: usize,
}

impl Positions {
    /// The position of the part `event` belongs to, `None` for `complete` (whose
    /// parts are whole).
    pub(crate) fn of(&mut self, event: &StreamEvent) -> Option<usize> {
        let kind = match event {
            StreamEvent::TextDelta { .. } => Kind::Text,
            StreamEvent::ReasoningDelta { .. } => Kind::Reasoning,
            StreamEvent::PayloadStart { .. } => return Some(self.begin(Kind::Block)),
            StreamEvent::PayloadProgress { .. } => Kind::Block,
            StreamEvent::Complete(_) => return None,
        };
        match self.current {
            Some((current, position)) if current == kind => Some(position),
            _ => Some(self.begin(kind)),
        }
    }

    /// How many parts have begun: the position the next new part takes.
    pub(crate) fn next(&self) -> usize {
        self.count
    }

    fn begin(&mut self, kind: Kind) -> usize {
        let position = self.count;
        self.count += 1;
        self.current = Some((kind, position));
        position
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_around_a_block_is_two_parts_and_each_block_its_own() {
        let mut p = Positions::default();
        let text = |t: &str| StreamEvent::TextDelta { text: t.into() };
        let start = || StreamEvent::PayloadStart {
            kind: "note".into(),
            marker: "NOTE".into(),
        };
        let progress = || StreamEvent::PayloadProgress {
            kind: "note".into(),
            partial: json!({}),
            open: None,
        };
        let seen: Vec<Option<usize>> = [
            StreamEvent::ReasoningDelta { text: "hm".into() },
            text("a"),
            text("b"),
            start(),
            progress(),
            start(),
            progress(),
            text("c"),
        ]
        .iter()
        .map(|e| p.of(e))
        .collect();
        assert_eq!(
            seen,
            [0, 1, 1, 2, 2, 3, 3, 4].map(Some).to_vec(),
            "positions only grow, each block is a part"
        );
        assert_eq!(p.next(), 5);
    }
}
