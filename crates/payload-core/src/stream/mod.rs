//! Streaming marker-mode parsing (SPEC section 5): a response fed in chunks, events out.
//!
//! ```
//! use payload_core::ParseOptions;
//! use payload_core::stream::{StreamEvent, StreamParser};
//!
//! let mut stream = StreamParser::new(&ParseOptions::new());
//! let mut shown = String::new();
//! for chunk in ["Pick one.\n\nSUGGESTED_VA", "LUES: [{\"label\": \"Yes\", ", "\"value\": \"Yes\"}]"] {
//!     for event in stream.push(chunk) {
//!         if let StreamEvent::TextDelta { text } = event {
//!             shown.push_str(&text);
//!         }
//!     }
//! }
//! let (_, parsed) = stream.finish();
//! assert_eq!(shown, "Pick one.");
//! assert_eq!(parsed.message, shown);
//! assert_eq!(parsed.suggested_values.unwrap()[0].label, "Yes");
//! ```
//!
//! **Guarantee.** However the text is cut into chunks, the `ParsedResponse` of
//! [`StreamParser::finish`] is the one-shot [`Parser::parse`] of the whole text, and the
//! `text_delta`s concatenated are its `message` (exactly: this implementation folds the
//! seam whitespace as the one-shot message does, where SPEC only asks for equality up to
//! whitespace). No delta holds a byte of a marker, a block, a fence or a prefix that the
//! final parse removes.
//!
//! **Design.** The final result is the one-shot parse of the accumulated text at
//! `finish` (one linear pass), so it cannot drift from SPEC section 1. The deltas come
//! from a state machine that replays the one-shot parser's decisions as soon as the
//! text received decides them, using the same recognisers ([`crate::marker`],
//! [`crate::balanced`]), and releases text only once no later marker can claim it
//! ([`hold`] says what may still be claimed: a partial marker name, emphasis, a heading
//! or bullet prefix, a blank line start, a fence line above one). Work is linear in
//! the response for any chunking: the marker search re-reads at most the longest
//! marker's length per push; a pending marker is re-examined at geometrically growing
//! lengths; a block is scanned once by a resumable scanner; progress previews are
//! taken at geometrically growing sizes.

#[cfg(feature = "stream")]
pub mod adapter;
mod emit;
mod hold;
pub mod partial;
mod scanner;
#[cfg(test)]
mod tests;

use crate::balanced::{self, Balanced};
use crate::limits::Limits;
use crate::marker::{self, LineTracker, Occurrence};
use crate::parse::{ParseOptions, Parser};
use crate::response::ParsedResponse;
use crate::suggestions::{
    SUGGESTED_ACTIONS_MARKER, SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_MARKER,
    SUGGESTED_VALUES_NAME,
};
use aho_corasick::{AhoCorasick, Input, MatchKind};
use emit::TextEmitter;
use hold::CurrentLine;
use scanner::ValueScanner;
use serde::Serialize;
use serde_json::Value;

pub use partial::partial_value;

/// What the stream reports as the response arrives.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StreamEvent {
    /// Text that is safe to show: it is part of the final message.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A block of a type the page offers (or a suggestion block) has begun.
    PayloadStart {
        /// The payload type's name, or `suggested_values` / `suggested_actions`.
        #[serde(rename = "type")]
        kind: String,
        /// The marker the model wrote (without emphasis or colon).
        marker: String,
    },
    /// The value of the block being written, so far (rules in [`partial`]).
    PayloadProgress {
        /// The payload type's name, as in `PayloadStart`.
        #[serde(rename = "type")]
        kind: String,
        /// The partial value.
        partial: Value,
    },
    /// The whole response has arrived: its parse.
    Complete(ParsedResponse),
}

impl StreamEvent {
    /// The event's Server-Sent Events name.
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::TextDelta { .. } => "text_delta",
            StreamEvent::PayloadStart { .. } => "payload_start",
            StreamEvent::PayloadProgress { .. } => "payload_progress",
            StreamEvent::Complete(_) => "complete",
        }
    }
}

/// What a marker stands for, for the stream's events.
#[derive(Debug, Clone)]
struct Role {
    name: &'static str,
    marker: &'static str,
    /// Blocks of types the page does not offer are never announced.
    shown: bool,
}

/// A marker name whose block-or-prose decision awaits more text.
#[derive(Debug, Clone, Copy)]
struct Pending {
    start: usize,
    end: usize,
    role: usize,
    /// Re-examine once the text is this long (doubling the look-ahead each time).
    next_try: usize,
}

/// A block being received.
#[derive(Debug)]
struct Block {
    role: usize,
    match_end: usize,
    at: Occurrence,
    scanner: ValueScanner,
    value_end: Option<usize>,
    /// How far the whitespace after the value has been skipped (fenced blocks).
    ws_to: usize,
    /// Value size at which the next progress preview is taken.
    next_preview: usize,
    last_preview: Option<Value>,
}

#[derive(Debug)]
enum Mode {
    Scanning,
    Pending(Pending),
    Block(Box<Block>),
}

/// What a step of the state machine asks for.
enum Step {
    Continue,
    Wait,
}

/// Parses a response as it streams in. Build one per response.
#[derive(Debug)]
pub struct StreamParser {
    parser: Parser,
    automaton: AhoCorasick,
    roles: Vec<Role>,
    markers: Vec<&'static str>,
    longest: usize,
    first_bytes: [bool; 256],
    buf: String,
    /// Everything before this offset has been shown or removed.
    done: usize,
    /// Where the next marker search starts.
    search_from: usize,
    /// End of the last block (the one-shot parser's `consumed`).
    consumed: usize,
    lines: LineTracker,
    line: CurrentLine,
    mode: Mode,
    text: TextEmitter,
    /// Bytes received past the size limit (then nothing more is kept or shown).
    overflow: usize,
}

impl StreamParser {
    /// A stream parser for a page offering what `options` says.
    pub fn new(options: &ParseOptions) -> StreamParser {
        let parser = Parser::new(options);
        // The same markers in the same order as `Parser::new`, so that pattern ids
        // and leftmost-longest choices agree.
        let mut roles: Vec<Role> = Vec::new();
        let mut markers: Vec<&'static str> = Vec::new();
        let mut add = |marker: &'static str, name: &'static str, shown: bool| {
            if !marker.is_empty() && !markers.contains(&marker) {
                markers.push(marker);
                roles.push(Role {
                    name,
                    marker,
                    shown,
                });
            }
        };
        if options.suggestions {
            add(SUGGESTED_VALUES_MARKER, SUGGESTED_VALUES_NAME, true);
            add(SUGGESTED_ACTIONS_MARKER, SUGGESTED_ACTIONS_NAME, true);
        }
        for payload in &options.payloads {
            add(payload.marker, payload.name, true);
        }
        for payload in &options.foreign {
            add(payload.marker, payload.name, false);
        }
        debug_assert_eq!(markers, parser.markers());
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&markers)
            .expect("a handful of short literal markers always compiles");
        let mut first_bytes = [false; 256];
        for marker in &markers {
            first_bytes[marker.as_bytes()[0] as usize] = true;
        }
        StreamParser {
            parser,
            automaton,
            roles,
            longest: markers.iter().map(|m| m.len()).max().unwrap_or(0),
            markers,
            first_bytes,
            buf: String::new(),
            done: 0,
            search_from: 0,
            consumed: 0,
            lines: LineTracker::default(),
            line: CurrentLine::default(),
            mode: Mode::Scanning,
            text: TextEmitter::default(),
            overflow: 0,
        }
    }

    /// The same stream parser with other limits (the default caps a response at
    /// 16 MiB). Past the cap the stream keeps nothing and shows nothing more, and its
    /// final parse is the one-shot parser's refusal of the whole response (the deltas
    /// already shown are then the one exception to the guarantee above).
    pub fn with_limits(mut self, limits: Limits) -> StreamParser {
        self.parser = self.parser.with_limits(limits);
        self
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        &self.buf
    }

    /// Takes in the next chunk of the response; the events it decides.
    pub fn push(&mut self, chunk: &str) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        self.push_into(chunk, &mut events);
        events
    }

    /// [`StreamParser::push`] appending to the caller's `events`, so that a caller
    /// feeding many small chunks reuses one vector instead of allocating one per chunk.
    pub fn push_into(&mut self, chunk: &str, events: &mut Vec<StreamEvent>) {
        if chunk.is_empty() {
            return;
        }
        if self.overflow > 0 || self.buf.len() + chunk.len() > self.parser.limits().max_input_bytes
        {
            self.overflow += chunk.len();
            return;
        }
        let from = self.buf.len();
        self.buf.push_str(chunk);
        self.line.advance(&self.buf, from);
        self.run(false, events);
        self.flush(events);
    }

    /// Ends the response: the last events (ending with [`StreamEvent::Complete`]) and
    /// the final parse, which is the one-shot parse of the whole text.
    pub fn finish(mut self) -> (Vec<StreamEvent>, ParsedResponse) {
        let mut events = Vec::new();
        if let Some(refused) = self.parser.refuse(self.buf.len() + self.overflow) {
            events.push(StreamEvent::Complete(refused.clone()));
            return (events, refused);
        }
        self.run(true, &mut events);
        self.release_to(self.buf.len());
        self.flush(&mut events);
        let parsed = self.parser.parse(&self.buf);
        events.push(StreamEvent::Complete(parsed.clone()));
        (events, parsed)
    }

    /// Advances the state machine as far as the text decides (everything, when
    /// `last`).
    fn run(&mut self, last: bool, events: &mut Vec<StreamEvent>) {
        loop {
            let step = match std::mem::replace(&mut self.mode, Mode::Scanning) {
                Mode::Scanning => self.scan(last),
                Mode::Pending(pending) => self.decide(pending, last, events),
                Mode::Block(block) => self.receive(block, last, events),
            };
            if let Step::Wait = step {
                return;
            }
        }
    }

    /// Looks for the next marker name.
    fn scan(&mut self, last: bool) -> Step {
        let len = self.buf.len();
        if self.search_from >= len {
            let point = if last { len } else { self.hold_point(len) };
            self.release_to(point);
            return Step::Wait;
        }
        let input = Input::new(&self.buf).range(self.search_from..);
        let found = self.automaton.find(input);
        let partial = if last { None } else { self.tail_partial() };
        match found {
            Some(m) if last || partial.is_none_or(|p| p > m.start()) => {
                self.mode = Mode::Pending(Pending {
                    start: m.start(),
                    end: m.end(),
                    role: m.pattern().as_usize(),
                    next_try: 0,
                });
                Step::Continue
            }
            _ => {
                let next = [found.map(|m| m.start()), partial]
                    .into_iter()
                    .flatten()
                    .min()
                    .unwrap_or(len);
                if last {
                    self.release_to(len);
                } else {
                    let point = self.hold_point(next);
                    self.release_to(point);
                    let settled = len.saturating_sub(self.longest.saturating_sub(1));
                    self.search_from = self.search_from.max(next.min(settled));
                }
                Step::Wait
            }
        }
    }

    /// The first offset near the end where a marker name may be arriving: the rest of
    /// the text from there is a proper prefix of a marker, not glued to a word.
    fn tail_partial(&self) -> Option<usize> {
        let bytes = self.buf.as_bytes();
        let len = bytes.len();
        let low = self
            .search_from
            .max(len.saturating_sub(self.longest.saturating_sub(1)));
        (low..len).find(|&p| {
            self.first_bytes[bytes[p] as usize]
                && self
                    .markers
                    .iter()
                    .any(|m| m.len() > len - p && m.as_bytes().starts_with(&bytes[p..]))
                && hold::can_start(&self.buf, p)
        })
    }

    /// The first offset that a block whose marker name starts at `next` or later may
    /// still remove: text before it can be shown.
    fn hold_point(&mut self, next: usize) -> usize {
        let bytes = self.buf.as_bytes();
        let len = bytes.len();
        let limit = hold::skip_back_emphasis(bytes, next).max(self.done);
        let start = self.line.start;
        let point = if limit < start {
            // Only markers that span lines get here; hold everything.
            self.done
        } else if self.line.quoted() {
            // No marker on a quoted line starts a block.
            len
        } else if self.line.blank_before(limit) {
            self.line.fence_above(bytes).unwrap_or(start).min(start)
        } else {
            let prefix = &self.buf[start..limit];
            if hold::heading_viable(prefix) || hold::fence_viable(prefix) {
                start
            } else {
                limit
            }
        };
        point.max(self.done)
    }

    /// Decides whether a marker name starts a block, once the text says.
    fn decide(&mut self, mut pending: Pending, last: bool, events: &mut Vec<StreamEvent>) -> Step {
        let len = self.buf.len();
        let quoted = pending.start >= self.line.start && self.line.quoted();
        if !quoted && hold::can_start(&self.buf, pending.start) {
            if !last && len < pending.next_try {
                return self.wait_on(pending);
            }
            let found = marker::recognise(&self.buf, pending.start, pending.end, &mut self.lines);
            match found {
                Some(mut at) if at.remove_start >= self.consumed => {
                    // A fence line that an earlier block already consumed (its closing
                    // fence) does not enclose this one.
                    if at
                        .enclosing_fence
                        .is_some_and(|fence| fence < self.consumed)
                    {
                        at.enclosing_fence = None;
                    }
                    self.open(pending, at, events);
                    return Step::Continue;
                }
                Some(_) => {}
                None if !last && hold::needs_more(self.buf.as_bytes(), pending.end) => {
                    pending.next_try = pending.end + 2 * (len - pending.end) + 1;
                    return self.wait_on(pending);
                }
                None => {}
            }
        }
        // Prose: the one-shot search goes on after the name.
        self.search_from = pending.end;
        Step::Continue
    }

    fn wait_on(&mut self, pending: Pending) -> Step {
        let point = self.hold_point(pending.start);
        self.release_to(point);
        self.mode = Mode::Pending(pending);
        Step::Wait
    }

    /// A block begins.
    fn open(&mut self, pending: Pending, at: Occurrence, events: &mut Vec<StreamEvent>) {
        // A fence above is removed only if a closing fence follows the value: hold it.
        self.release_to(at.enclosing_fence.unwrap_or(at.remove_start));
        let role = &self.roles[pending.role];
        if role.shown {
            let event = StreamEvent::PayloadStart {
                kind: role.name.to_string(),
                marker: role.marker.to_string(),
            };
            self.emit(event, events);
        }
        self.mode = Mode::Block(Box::new(Block {
            role: pending.role,
            match_end: pending.end,
            at,
            scanner: ValueScanner::new(at.value_start),
            value_end: None,
            ws_to: at.value_start,
            next_preview: 0,
            last_preview: None,
        }));
    }

    /// Receives a block's value, then what may close it.
    fn receive(
        &mut self,
        mut block: Box<Block>,
        last: bool,
        events: &mut Vec<StreamEvent>,
    ) -> Step {
        let len = self.buf.len();
        let start = block.at.value_start;
        let value_end = match block.value_end {
            Some(end) => end,
            None => {
                let scanned = block.scanner.advance(&self.buf);
                // The one-shot scan has the last word; it agrees with the resumable one
                // (property-tested), and runs once per block.
                let confirmed = scanned.and_then(|_| match balanced::scan(&self.buf, start) {
                    Balanced::Complete { end } => Some(end),
                    Balanced::Truncated => None,
                });
                match confirmed {
                    Some(end) => {
                        block.value_end = Some(end);
                        self.preview(&mut block, end, true, events);
                        end
                    }
                    None if last => {
                        // Truncated: removed to the end, never accepted.
                        self.release_to(block.at.remove_start);
                        self.remove_to(len);
                        return Step::Continue;
                    }
                    None => {
                        self.preview(&mut block, len, false, events);
                        self.mode = Mode::Block(block);
                        return Step::Wait;
                    }
                }
            }
        };
        let at = block.at;
        let fenced = at.fence_after_marker || at.enclosing_fence.is_some();
        if fenced && !last {
            let bytes = self.buf.as_bytes();
            block.ws_to = hold::skip_whitespace(bytes, block.ws_to.max(value_end));
            let rest = &bytes[block.ws_to..];
            if rest.len() < 3 && b"```".starts_with(rest) {
                self.mode = Mode::Block(block);
                return Step::Wait;
            }
        }
        // Exactly the one-shot parser's range.
        let (begin, end) = marker::removal_range(&self.buf, &at, value_end);
        // A block that fills its lines takes the line break after it: wait for it.
        let after = &self.buf.as_bytes()[end..];
        if !last
            && marker::starts_line(self.buf.as_bytes(), begin)
            && (after.is_empty() || after == b"\r")
        {
            self.mode = Mode::Block(block);
            return Step::Wait;
        }
        self.release_to(begin);
        self.remove_to(end);
        self.search_from = block.match_end.max(end);
        Step::Continue
    }

    /// Emits a progress preview when the value has grown enough (always at its end).
    fn preview(
        &mut self,
        block: &mut Block,
        to: usize,
        closed: bool,
        events: &mut Vec<StreamEvent>,
    ) {
        let role = &self.roles[block.role];
        let size = to - block.at.value_start;
        if !role.shown || (!closed && size < block.next_preview) {
            return;
        }
        // Doubling the threshold keeps all previews together within twice the block's
        // size (each preview re-reads the block so far), while small blocks still get
        // a preview every 64 bytes.
        block.next_preview = size + size.max(64);
        let Some(value) = partial_value(&self.buf[block.at.value_start..to]) else {
            return;
        };
        if block.last_preview.as_ref() == Some(&value) {
            return;
        }
        block.last_preview = Some(value.clone());
        let event = StreamEvent::PayloadProgress {
            kind: role.name.to_string(),
            partial: value,
        };
        self.emit(event, events);
    }

    /// Shows the text up to `to` (if not shown yet).
    fn release_to(&mut self, to: usize) {
        let mut to = to.min(self.buf.len());
        while !self.buf.is_char_boundary(to) {
            to -= 1;
        }
        if to > self.done {
            self.text.kept(&self.buf[self.done..to]);
            self.done = to;
        }
    }

    /// Removes the text from `done` up to `to`: a block.
    fn remove_to(&mut self, to: usize) {
        if to > self.done {
            self.text.removed();
            self.done = to;
        }
        self.consumed = to;
    }

    fn flush(&mut self, events: &mut Vec<StreamEvent>) {
        if let Some(text) = self.text.take() {
            events.push(StreamEvent::TextDelta { text });
        }
    }

    /// Emits a payload event after the text released before it.
    fn emit(&mut self, event: StreamEvent, events: &mut Vec<StreamEvent>) {
        self.flush(events);
        events.push(event);
    }
}
