//! Builds a parse's [`Part`]s as the assembly decides them (docs/spec.md §1.21), the same
//! way one-shot and streamed, so that a stream event can name its part's position the
//! moment the part begins and the final parts are the one-shot parse's.
//!
//! Parts are only ever appended. A text part is a range of the message, closed where
//! the next part begins; a block's part begins where the stream announces it (or where
//! it is decided, for a block never announced) and learns its kind when decided; a
//! reasoning part begins where the assembly places its section. Spans are worked out
//! once, at the end: each part has where it naturally starts and ends in the response
//! (text parts take what lies between), and the spans tile the response in the parts'
//! order, each starting no earlier than where the one before it ended.

use crate::marker::parts::{Part, PartKind};
use std::ops::Range;

/// Where the answer's bytes (the response without its reasoning sections) stand in the
/// response.
#[derive(Debug, Default)]
pub(crate) struct OffsetMap {
    /// `(answer offset, response offset)` where each run of contiguous answer bytes
    /// starts; empty while the answer is the response itself.
    starts: Vec<(usize, usize)>,
    /// The run the last lookup found: lookups go forward, so each costs O(1) amortized.
    at: usize,
}

impl OffsetMap {
    /// Answer bytes from answer offset `answer` stand at response offset `text` on.
    pub(crate) fn push(&mut self, answer: usize, text: usize) {
        match self.starts.last() {
            Some(&(a, t)) if text - t == answer - a => {}
            None if answer == text => {}
            _ => self.starts.push((answer, text)),
        }
    }

    /// The response offset of the answer byte at `answer` (a span's start).
    fn start(&mut self, answer: usize) -> usize {
        self.find(|start| start <= answer, answer)
    }

    /// The response offset just after the answer byte before `answer` (a span's end).
    fn end(&mut self, answer: usize) -> usize {
        self.find(|start| start < answer, answer)
    }

    fn find(&mut self, before: impl Fn(usize) -> bool, answer: usize) -> usize {
        while self.at + 1 < self.starts.len() && before(self.starts[self.at + 1].0) {
            self.at += 1;
        }
        match self.starts.get(self.at) {
            Some(&(a, t)) if before(a) || a == 0 => t + answer.saturating_sub(a),
            _ => answer,
        }
    }
}

/// A part being built: its kind once decided, and where it naturally starts and ends
/// in the response (`None`: where the part before it ended).
#[derive(Debug)]
struct Draft {
    kind: Option<PartKind>,
    start: Option<usize>,
    end: Option<usize>,
}

/// The parts of one response, as its assembly decides them.
#[derive(Debug, Default)]
pub(crate) struct PartsBuilder {
    drafts: Vec<Draft>,
    /// Where the text part being written starts in the message.
    text_from: usize,
    /// The text part being written, once it has text.
    text_part: Option<usize>,
    /// The part of the block announced and not decided yet.
    block_part: Option<usize>,
    /// Where the answer's bytes stand in the response.
    pub(crate) map: OffsetMap,
}

impl PartsBuilder {
    fn push(&mut self, kind: Option<PartKind>, start: Option<usize>) -> usize {
        self.drafts.push(Draft {
            kind,
            start,
            end: None,
        });
        self.drafts.len() - 1
    }

    /// Message text was handed out, the message being `message` bytes long before it:
    /// the position of the text part it belongs to.
    pub(crate) fn text(&mut self) -> usize {
        match self.text_part {
            Some(part) => part,
            None => {
                let from = self.text_from;
                let part = self.push(Some(PartKind::Text(from..from)), None);
                self.text_part = Some(part);
                part
            }
        }
    }

    /// Another part begins where the message is `message` bytes long: the text part
    /// being written ends there (and exists, if it has text).
    fn close_text(&mut self, message: usize) {
        if message > self.text_from {
            let part = self.text();
            self.drafts[part].kind = Some(PartKind::Text(self.text_from..message));
        }
        self.text_part = None;
        self.text_from = message;
    }

    /// A block's value has begun arriving (the stream announces it): its part.
    pub(crate) fn opened(&mut self, message: usize) -> usize {
        self.close_text(message);
        let part = self.push(None, None);
        self.block_part = Some(part);
        part
    }

    /// A block is decided: its part's kind (`None`: it is no part, its text staying in
    /// the text part around it) and its span in the answer. Returns its part.
    pub(crate) fn block(
        &mut self,
        message: usize,
        kind: Option<PartKind>,
        span: Range<usize>,
    ) -> Option<usize> {
        let kind = kind?;
        let part = match self.block_part.take() {
            Some(part) => part,
            None => {
                self.close_text(message);
                self.push(None, None)
            }
        };
        let start = self.map.start(span.start);
        let end = self.map.end(span.end);
        let draft = &mut self.drafts[part];
        draft.kind = Some(kind);
        draft.start = Some(start);
        draft.end = Some(end);
        Some(part)
    }

    /// A reasoning section's part begins, the message being `message` bytes long: its
    /// text is `range` of the reasoning, it opened at response offset `open` and the
    /// answer resumes at `end` (when known).
    pub(crate) fn reasoning(
        &mut self,
        message: usize,
        range: Range<usize>,
        open: usize,
        end: Option<usize>,
    ) -> usize {
        self.close_text(message);
        let part = self.push(Some(PartKind::Reasoning(range)), Some(open));
        self.drafts[part].end = end;
        part
    }

    /// Reasoning part `part` has grown to `range` of the reasoning.
    pub(crate) fn reasoning_grew(&mut self, part: usize, range: Range<usize>) {
        self.drafts[part].kind = Some(PartKind::Reasoning(range));
    }

    /// Part `part` ends, naturally, at response offset `end`.
    pub(crate) fn ends_at(&mut self, part: usize, end: usize) {
        self.drafts[part].end = Some(end);
    }

    /// How many parts have begun.
    pub(crate) fn len(&self) -> usize {
        self.drafts.len()
    }

    /// The part of the block announced and not decided yet, if one is.
    pub(crate) fn open_block(&self) -> Option<usize> {
        self.block_part
    }

    /// Makes the last part whose kind `which` picks a `kind` part instead.
    pub(crate) fn replace(&mut self, which: impl Fn(&PartKind) -> bool, kind: PartKind) {
        let found = self
            .drafts
            .iter_mut()
            .rev()
            .find(|draft| draft.kind.as_ref().is_some_and(&which));
        if let Some(draft) = found {
            draft.kind = Some(kind);
        }
    }

    /// The parts of a response `len` bytes long whose message is `message` bytes long.
    pub(crate) fn finish(mut self, message: usize, len: usize) -> Vec<Part> {
        self.close_text(message);
        if self.drafts.is_empty() && len > 0 {
            // Nothing but space (or blocks that stay in no part): one empty text part
            // holds the response.
            self.push(Some(PartKind::Text(message..message)), None);
        }
        let count = self.drafts.len();
        let mut parts = Vec::with_capacity(count);
        let mut cursor = 0;
        let mut starts = Vec::with_capacity(count);
        for (at, draft) in self.drafts.iter().enumerate() {
            let start = if at == 0 {
                0
            } else {
                draft
                    .start
                    .map_or(cursor, |start| start.max(cursor))
                    .min(len)
            };
            starts.push(start);
            cursor = draft.end.map_or(start, |end| end.max(start)).min(len);
        }
        for (at, draft) in self.drafts.into_iter().enumerate() {
            let end = starts.get(at + 1).copied().unwrap_or(len);
            parts.push(Part {
                span: starts[at]..end,
                // A block announced and never decided cannot happen (the segmenter
                // decides every block it opens); were it to, it would hold no text.
                kind: draft.kind.unwrap_or(PartKind::Text(message..message)),
            });
        }
        parts
    }
}
