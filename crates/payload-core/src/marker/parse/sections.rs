//! Where reasoning sections stand among the parts (docs/spec.md §1.21), the same rule
//! one-shot and streamed: a section cut out of the answer at answer offset `p` is placed
//! once every piece of the answer before `p` is in (after the parts those pieces made),
//! before anything that starts at or after `p`; a section inside a block goes right
//! after the block's part. The stream places a section as soon as that is decided and
//! holds its reasoning deltas until then (the usual section, before any answer text, is
//! placed at once).

use super::Assembly;
use crate::marker::placing::{Placed, Section};
use std::ops::Range;

impl Assembly {
    /// A reasoning section cut out of the answer at answer offset `at`, opened at
    /// response offset `open`; `text` and `end` when already known (one-shot).
    pub(crate) fn section(
        &mut self,
        at: usize,
        open: usize,
        text: Option<Range<usize>>,
        end: Option<usize>,
    ) {
        self.sections.push(Section {
            at,
            open,
            end,
            text,
            part: None,
            held: String::new(),
        });
        // Everything before it is in: it goes now.
        if self.parts.open_block().is_none() && at <= self.piece_start {
            self.place_before(at);
        }
    }

    /// The section being read has closed; the answer resumes at response offset `end`.
    pub(crate) fn section_closed(&mut self, end: usize) {
        // The first close counts: a closer that opens the answer's own section (gpt-oss's
        // analysis end with the final channel's header) closes it, and that section's
        // end is notation after the answer, not this section's.
        if let Some(section) = self.sections.last_mut().filter(|s| s.end.is_none()) {
            section.end = Some(end);
            if let Some(part) = section.part {
                self.parts.ends_at(part, end);
            }
        }
    }

    /// The section being read has new text, `text` of the joined reasoning, of which
    /// `delta` went out: the delta and its part, or `None` while the section is not
    /// placed (the delta is held).
    pub(crate) fn section_text(
        &mut self,
        delta: String,
        text: Range<usize>,
    ) -> Option<(String, usize)> {
        let placed = self.sections.len() <= self.placed;
        let message = self.message.len();
        let section = self.sections.last_mut()?;
        section.text = Some(text.clone());
        if !placed {
            section.held.push_str(&delta);
            return None;
        }
        let part = match section.part {
            Some(part) => {
                self.parts.reasoning_grew(part, text);
                part
            }
            None => {
                let part = self
                    .parts
                    .reasoning(message, text, section.open, section.end);
                section.part = Some(part);
                part
            }
        };
        Some((delta, part))
    }

    /// Places every section cut out at or before answer offset `at`, in order.
    pub(crate) fn place_before(&mut self, at: usize) {
        while let Some(section) = self.sections.get(self.placed) {
            if section.at > at {
                break;
            }
            if self.streaming {
                // The text before the section goes out as its own part's first.
                if let Some((text, part)) = self.take_text() {
                    self.placed_out.push(Placed::Text(text, part));
                }
            }
            let message = self.message.len();
            let section = &mut self.sections[self.placed];
            if let Some(text) = section.text.clone() {
                let part = self
                    .parts
                    .reasoning(message, text, section.open, section.end);
                section.part = Some(part);
                if !section.held.is_empty() {
                    let held = std::mem::take(&mut section.held);
                    self.placed_out.push(Placed::Reasoning(held, part));
                }
            }
            self.placed += 1;
        }
    }

    /// Takes in a prose piece ending at `end`, placing the sections cut out inside it
    /// where they stand.
    pub(crate) fn prose(&mut self, text: &str, end: usize) {
        while let Some(at) = self
            .sections
            .get(self.placed)
            .map(|section| section.at)
            .filter(|&at| at <= end)
        {
            if at > self.piece_start {
                self.message.kept(&text[self.piece_start..at]);
                self.piece_start = at;
            }
            self.place_before(at);
        }
        if end > self.piece_start {
            self.message.kept(&text[self.piece_start..end]);
        }
        self.piece_start = end;
    }

    /// What placing sections gave the stream to send, in order.
    pub(crate) fn take_placed(&mut self) -> std::vec::Drain<'_, Placed> {
        self.placed_out.drain(..)
    }
}
