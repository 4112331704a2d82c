//! Streaming marker-mode parsing (docs/spec.md §5): a response fed in chunks, events out.
//!
//! ```
//! use payload_core::ParseOptions;
//! use payload_core::stream::{StreamEvent, StreamParser};
//!
//! let mut stream = StreamParser::new(&ParseOptions::new());
//! let mut shown = String::new();
//! for chunk in ["Pick one.\n\nSUGGESTED_VA", "LUES: [{\"label\": \"Yes\", ", "\"value\": \"Yes\"}]"] {
//!     for event in stream.push(chunk) {
//!         if let StreamEvent::TextDelta { text, .. } = event {
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
//! `text_delta`s concatenated are its `message` exactly. No delta holds a byte of a
//! marker, a block, a fence or a prefix that the final parse removes. A
//! `payload_progress` preview never shows what the final result would drop (docs/spec.md §5.5):
//! blocks of types the page does not offer are never announced, and a suggestion
//! preview lists only complete items that the page's rules keep (registered actions
//! with their handler, chips with a label and a value). Previews read the block by the
//! repairer's rules, so they keep filling in through what it repairs, and each preview
//! of an accepted block is an early view of its final data, the last one that data
//! (docs/spec.md §5.5). Each element of a custom payload's top-level lists comes once,
//! in order, as a `payload_element` event on the chunk that completes it, the same
//! events for every chunking (docs/spec.md §5.6).
//!
//! **Design.** There is no second parser here. The stream runs the one-shot parser's
//! segmenter (`crate::scan`) on the text so far after every chunk; the segmenter
//! decides only what no later text can change and resumes where it stopped, and the
//! pieces it gives out go into the same assembly (message builder, block validation)
//! as the one-shot parse. So the final result is equal by construction, and deltas are
//! the message builder's output as it grows. Total work is linear in the response for
//! any chunking. A block's progress previews come from one resumable reader
//! (`partial::PartialReader`) that reads each byte of the block once, on every chunk
//! (so that an element is reported on the chunk that completes it); a preview is a
//! copy of the value read so far, taken each time the block has doubled (at least every
//! 64 bytes), which keeps the copies within twice the block's size.
//!
//! **Per chunk**, the work is what the chunk can change. Most chunks of a long block
//! change nothing: the segmenter waits for more text (the end of a line, the byte after
//! a closing quote) and says until which length it will decide nothing, and the next
//! preview is not due. Such a chunk is copied onto the text and the open block's reader
//! reads it, and nothing else runs; text
//! that cannot hold a reasoning section's opener (no line break, on a line that has
//! begun with answer text) does not go through the splitter either, and a chunk that
//! would only let the segmenter wait for a line of the block still arriving sets when it
//! looks again and nothing more. These shortcuts change no
//! event, chunk for chunk: the tests and the `stream` fuzz target run each stream beside
//! one without them (`without_shortcuts`) and compare.
//!
//! **The end.** [`StreamParser::finish_into`] moves the final parse into the `complete`
//! event, as a relay needs it; [`StreamParser::finish`] also returns it beside the
//! event, which is one copy of it.
//!
//! **Reasoning** (docs/spec.md §9.1) is cut out before the segmenter sees the text, by the same
//! rule as the one-shot parser (`crate::scan::reasoning`): its text goes out as
//! `reasoning_delta` events as soon as it is final, and the `reasoning_delta`s
//! concatenated are the final parse's `reasoning`. Only a line start that may still
//! become an opening tag (at most the length of `<reasoning>`) is held back.
//!
//! Blocks inside a fence that opens on a line of its own are announced only once the
//! fence closes: until then the fence could turn out to be a code sample.

#[cfg(feature = "stream")]
mod adapter;
#[cfg(test)]
mod count_tests;
mod partial;
#[cfg(any(test, feature = "__internals"))]
pub(crate) mod parts_check;
#[cfg(test)]
mod parts_tests;
pub mod sse;
#[cfg(test)]
mod tests;

use crate::caps::Capped;
use crate::limits::Limits;
use crate::marker::parse::{Assembly, BlockKind, ParseOptions, Parser};
use crate::marker::parts::{Part as AnswerPart, PartContents, PartKind};
use crate::marker::placing::Placed;
use crate::marker::response::ParsedResponse;
use crate::marker::suggestions;
use crate::partial::{Cursor, PartialType};
use crate::payload::LlmPayload;
use crate::scan::reasoning::{Part, Scope, Splitter};
use crate::scan::segmenter::{Ending, Piece, Segmenter};
use serde::Serialize;
use serde_json::Value;
use std::hash::{Hash, Hasher};

pub use crate::scan::reasoning::ReasoningText;
#[cfg(feature = "stream")]
pub use adapter::events;
#[cfg(any(test, feature = "__internals"))]
pub(crate) use partial::preview_fits;
use partial::{PartialReader, Wake, held_back};
pub use partial::{partial_value, partial_with_open};

/// What the stream reports as the response arrives.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
// Not `#[non_exhaustive]` on purpose: a relay (the agent's events, an SSE bridge) must
// handle every event, and a new one must fail to compile there rather than be dropped.
pub enum StreamEvent {
    /// Text that is safe to show: it is part of the final message.
    TextDelta {
        /// The new text.
        text: String,
        /// The position of its text part in the final `parts` (docs/spec.md §1.22).
        part: usize,
    },
    /// A block of a type the page offers (or a suggestion block) has begun.
    PayloadStart {
        /// The payload type's name, or `suggested_values` / `suggested_actions`.
        #[serde(rename = "type")]
        kind: String,
        /// The marker the model wrote (without emphasis or colon), or the name of the
        /// tag it wrote the block in (docs/spec.md §1.21).
        marker: String,
        /// The position of the block's part in the final `parts`.
        part: usize,
    },
    /// The value of the block being written, so far (rules in [`partial_value`]).
    /// Read it typed with [`StreamEvent::partial`].
    PayloadProgress {
        /// The payload type's name, as in `PayloadStart`.
        #[serde(rename = "type")]
        kind: String,
        /// The partial value.
        partial: Value,
        /// The JSON pointer of what is still arriving (`""`: the value itself), `None`
        /// once the value has closed; everything else in `partial` is complete.
        #[serde(skip_serializing_if = "Option::is_none")]
        open: Option<String>,
        /// The position of the block's part in the final `parts`.
        part: usize,
    },
    /// A block announced by `payload_start` is decided, as the final parse decides it:
    /// accepted, with the value the parse holds (`data`), or refused, with why
    /// (`errors`). A suggestion block is decided by the page's combination rule only
    /// once the response has ended, so its `payload_end` comes just before `complete`.
    PayloadEnd {
        /// The payload type's name, as in `PayloadStart`.
        #[serde(rename = "type")]
        kind: String,
        /// The position of the block's part in the final `parts`.
        part: usize,
        /// The accepted value (a suggestion block's: the items kept); `None` when the
        /// block was refused.
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
        /// Why the block was refused; empty when it was accepted.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        errors: Vec<crate::error::PayloadError>,
    },
    /// An element of a top-level list of the custom payload being written, once it has
    /// arrived whole (docs/spec.md §5.6): an item of the value when the value is an
    /// array (`pointer` `""`), or of an array that is a member of the top-level object
    /// (`pointer` `/operations`). Each element is reported once, in text order, however
    /// the text is cut into chunks; when the block is accepted, `element` is the final
    /// value's element at `pointer` and `index`.
    ///
    /// ```
    /// use payload_core::stream::{StreamEvent, StreamParser};
    /// use payload_core::{LlmPayload, ParseOptions};
    /// # #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, LlmPayload)]
    /// # #[payload(name = "todo_list", marker = "TODO_LIST", description = "Tasks.")]
    /// # struct TodoList { tasks: Vec<String> }
    ///
    /// let mut stream = StreamParser::new(&ParseOptions::new().payload(TodoList::TYPE));
    /// let mut arrived = Vec::new();
    /// // A comment and a trailing comma: the elements still come as each is whole.
    /// for chunk in ["TODO_LIST: {\"tasks\": [\"buy milk\", // first\n", "'call Sam',", "]}"] {
    ///     for event in stream.push(chunk) {
    ///         if let StreamEvent::PayloadElement { pointer, index, element, .. } = event {
    ///             arrived.push((pointer, index, element));
    ///         }
    ///     }
    /// }
    /// let (_, parsed) = stream.finish();
    /// assert_eq!(arrived[0], ("/tasks".to_string(), 0, "buy milk".into()));
    /// assert_eq!(arrived[1], ("/tasks".to_string(), 1, "call Sam".into()));
    /// assert_eq!(parsed.custom_payload.unwrap().data()["tasks"][1], "call Sam");
    /// ```
    PayloadElement {
        /// The payload type's name, as in `PayloadStart`.
        #[serde(rename = "type")]
        kind: String,
        /// The JSON pointer of the list in the payload's value.
        pointer: String,
        /// The element's position in the list.
        index: usize,
        /// The element.
        element: Value,
        /// The position of the block's part in the final `parts`.
        part: usize,
    },
    /// Reasoning that is final (docs/spec.md §9.1): text of a `<think>` section (or a provider's
    /// reasoning channel, in the agent), never part of the message. The deltas
    /// concatenated are the final parse's `reasoning` exactly.
    ReasoningDelta {
        /// The new reasoning text (the first of a later section starts with the blank
        /// line that joins it to the one before).
        text: String,
        /// The position of its reasoning part in the final `parts`.
        part: usize,
    },
    /// The whole response has arrived: its parse. Boxed so that every other event stays
    /// small: a stream holds its events in one list, and a response of many short
    /// blocks ends with two events a block (`payload_start`, `payload_end`), each the
    /// size of the largest variant (docs/guarantees.md, bounded memory).
    Complete(Box<ParsedResponse>),
}

// What the box is for, checked when the crate compiles: an event is no larger than a
// few strings and a value (96 bytes; more with `preserve_order`, whose maps are larger),
// so a list of many small block events stays small.
const _: () = assert!(std::mem::size_of::<StreamEvent>() <= 160);

impl StreamEvent {
    /// The partial value of a `payload_progress` event for `T`, typed: `None` for any
    /// other event or type. See [`crate::partial::PartialType`].
    pub fn partial<T: LlmPayload + PartialType>(&self) -> Option<T::Partial> {
        match self {
            StreamEvent::PayloadProgress {
                kind,
                partial,
                open,
                ..
            } if kind == T::NAME => T::read_partial(partial, Cursor::root(open.as_deref())),
            _ => None,
        }
    }

    /// The event's Server-Sent Events name.
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::TextDelta { .. } => "text_delta",
            StreamEvent::PayloadStart { .. } => "payload_start",
            StreamEvent::PayloadProgress { .. } => "payload_progress",
            StreamEvent::PayloadElement { .. } => "payload_element",
            StreamEvent::PayloadEnd { .. } => "payload_end",
            StreamEvent::ReasoningDelta { .. } => "reasoning_delta",
            StreamEvent::Complete(_) => "complete",
        }
    }
}

/// The value size below which [`Previews::EveryChunk`] previews every chunk.
const EVERY_CHUNK_UP_TO: usize = 4 * 1024;

/// How often the stream sends a `payload_progress` preview of the block being written
/// ([`StreamParser::with_previews`]). Element events (`payload_element`) come on the
/// chunk that completes each element whatever this says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Previews {
    /// When the value has doubled since the last preview, and at least every 64 bytes,
    /// and once it has closed: the copies the previews make stay within twice the
    /// block's size, so a stream's work stays linear however it is cut (docs/spec.md
    /// §5.3). The default.
    #[default]
    Doubling,
    /// On every chunk that changes the value while it is under 4 KiB, for a client
    /// that draws each token as it comes (A2UI's progressive rendering); past that,
    /// each time it has grown by an eighth. Each preview copies the value so far, so
    /// the spacing past 4 KiB keeps a long block's previews within a bounded multiple
    /// of its size (about nine times, plus what the first 4 KiB cost): a stream stays
    /// linear whatever a model sends.
    EveryChunk,
}

/// The preview of the block being received.
#[derive(Debug)]
struct Preview {
    pattern: usize,
    value_start: usize,
    /// Value size at which the next preview is taken.
    next_at: usize,
    /// How often a preview is taken.
    cadence: Previews,
    /// Which text may complete an element when the reader reads it, as of its last
    /// read ([`StreamParser::follow`]).
    wake: Wake,
    /// Where the value ended when its closed preview was taken (that preview shows it
    /// whole; the same end shows nothing new).
    closed_at: Option<usize>,
    /// The answer's bytes before this offset are known not to wake the reader, so each
    /// byte is looked at once.
    looked_to: usize,
    /// The block's value read so far: each chunk reads only what has come since the
    /// last one.
    reader: PartialReader,
    /// Top-level list elements sent as `payload_element` events, and how many of them
    /// the current reader has given (a reader started anew gives them again).
    elements_sent: usize,
    elements_given: usize,
    /// The reader's version and whether the value was complete at the last preview
    /// sent: an unchanged preview is not sent again.
    shown: Option<(u64, bool)>,
    /// For a suggestion block, a fingerprint of the last items shown (the page's rules
    /// filter them, so a change to the value may not change what is shown); kept
    /// instead of a copy, which would cost an allocation per node per preview.
    last: Option<u64>,
    /// The position of the block's part.
    part: usize,
}

impl Preview {
    /// Whether the text `buf` gained since the reader last looked can wait unread: no
    /// byte of it may wake the reader ([`PartialReader::wake`]). Then it counts as
    /// looked at, so each byte is looked at once. Asked only where no preview is due
    /// ([`StreamParser::follow`]).
    #[inline]
    fn sleeps_through(&mut self, buf: &str) -> bool {
        let len = buf.len().saturating_sub(self.value_start);
        let new = &buf.as_bytes()[self.looked_to.min(buf.len())..];
        if self.wake.wakes_on(new, len) {
            return false;
        }
        self.looked_to = buf.len();
        true
    }
}

/// Parses a response as it streams in. Build one per response.
pub struct StreamParser {
    parser: Parser,
    /// Cuts the reasoning out before the segmenter sees the text.
    splitter: Splitter,
    segmenter: Segmenter,
    assembly: Assembly,
    /// The answer so far: the text received, without its reasoning sections.
    buf: String,
    /// Bytes received (answer and reasoning), for the size limit.
    received: usize,
    /// The segmenter's output, reused between chunks.
    pieces: Vec<Piece>,
    preview: Option<Preview>,
    /// How often the open block is previewed.
    previews: Previews,
    /// Bytes received past the size limit (then nothing more is kept or shown).
    overflow: usize,
    /// While the answer is shorter than this, a chunk changes nothing [`Self::run`]
    /// would show or decide: the segmenter waits for more text
    /// ([`Segmenter::idle_below`]) and the open block's next preview is not due. Most
    /// chunks of a long block then cost only their copy into `buf`.
    idle_below: usize,
    /// Whether a chunk may skip what cannot change ([`Self::idle_below`],
    /// [`Splitter::passes_whole`]); off only to check that skipping changes no event.
    shortcuts: bool,
    /// A chunk shorter than this with no line break is only copied onto `buf`: the
    /// splitter passes it whole ([`Splitter::passes_line_free`]), the answer stays
    /// below [`Self::idle_below`] and the response within its size limit. Worked out
    /// after each chunk that takes the full way, so that the common chunk (one token
    /// inside a long block) costs one comparison and its copy; `0` without shortcuts.
    quiet: usize,
    /// The suggestion blocks announced, by part: decided only at the end (the page's
    /// combination rule), so their `payload_end` waits for it.
    suggestion_parts: Vec<usize>,
    /// The answer so far holds visible text (a reasoning section after it may not be
    /// placed among the parts at once).
    visible: bool,
}

impl std::fmt::Debug for StreamParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamParser")
            .field("received", &self.buf.len())
            .finish_non_exhaustive()
    }
}

impl StreamParser {
    /// A stream parser for a page offering what `options` says.
    pub fn new(options: &ParseOptions) -> StreamParser {
        StreamParser::with_parser(Parser::new(options))
    }

    /// A stream parser that parses as `parser` does (it is cheap to clone, so a page's
    /// parser can be built once and used for every response).
    pub fn with_parser(parser: Parser) -> StreamParser {
        StreamParser {
            assembly: Assembly::new(parser.clone(), true),
            splitter: parser.splitter(),
            parser,
            segmenter: Segmenter::new(crate::json::reads),
            buf: String::new(),
            received: 0,
            pieces: Vec::new(),
            preview: None,
            previews: Previews::Doubling,
            overflow: 0,
            idle_below: 0,
            shortcuts: true,
            quiet: 0,
            suggestion_parts: Vec::new(),
            visible: false,
        }
    }

    /// The same stream parser running every stage on every chunk, with no shortcut: the
    /// reference that the property tests and the `stream` fuzz target hold the
    /// shortcuts to (the same events, chunk by chunk).
    #[cfg(any(test, feature = "__internals"))]
    pub(crate) fn without_shortcuts(mut self) -> StreamParser {
        self.shortcuts = false;
        self.quiet = 0;
        self
    }

    /// The same stream parser with other limits (the default caps a response at
    /// 16 MiB). Past the cap the stream keeps nothing and shows nothing more, and its
    /// final parse is the one-shot parser's refusal of the whole response (the deltas
    /// already shown are then the one exception to the guarantee above).
    pub fn with_limits(mut self, limits: Limits) -> StreamParser {
        self.parser = self.parser.with_limits(limits);
        self.quiet = 0;
        self
    }

    /// The same stream parser, previewing the block being written as `previews` says
    /// (by default [`Previews::Doubling`]).
    ///
    /// ```
    /// use payload_core::stream::{Previews, StreamEvent, StreamParser};
    /// use payload_core::{LlmPayload, ParseOptions};
    ///
    /// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    /// struct Note {
    ///     text: String,
    /// }
    ///
    /// impl LlmPayload for Note {
    ///     const NAME: &'static str = "note";
    ///     const MARKER: &'static str = "NOTE";
    ///     const DESCRIPTION: &'static str = "A note.";
    /// }
    ///
    /// let options = ParseOptions::new().payload(Note::TYPE);
    /// let mut stream = StreamParser::new(&options).with_previews(Previews::EveryChunk);
    /// stream.push("NOTE: {\"text\": \"He");
    /// let events = stream.push("llo");
    /// let shown: Vec<&serde_json::Value> = events
    ///     .iter()
    ///     .filter_map(|e| match e {
    ///         StreamEvent::PayloadProgress { partial, .. } => Some(partial),
    ///         _ => None,
    ///     })
    ///     .collect();
    /// assert_eq!(shown, [&serde_json::json!({"text": "Hello"})]);
    /// ```
    pub fn with_previews(mut self, previews: Previews) -> StreamParser {
        self.previews = previews;
        self
    }

    /// The answer received so far: the text without its reasoning sections (and
    /// without the end of a line that may still open one).
    pub fn text(&self) -> &str {
        &self.buf
    }

    /// How many parts have begun (docs/spec.md §1.22): the position the next part will
    /// have. Parts are only appended, so this never goes down.
    pub fn parts_begun(&self) -> usize {
        self.assembly.parts_begun()
    }

    /// Takes in the next chunk of the response; the events it decides.
    pub fn push(&mut self, chunk: &str) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        self.push_into(chunk, &mut events);
        events
    }

    /// [`StreamParser::push`] appending to the caller's `events`, so that a caller
    /// feeding many small chunks reuses one vector instead of allocating one per chunk.
    #[inline]
    pub fn push_into(&mut self, chunk: &str, events: &mut Vec<StreamEvent>) {
        // A chunk is often one token: a plain loop, not a search's set-up.
        if chunk.len() < self.quiet && chunk.bytes().all(|b| b != b'\n') {
            // What the full way below would do with it (see `quiet`).
            self.quiet -= chunk.len();
            self.received += chunk.len();
            if let [byte] = chunk.as_bytes() {
                // One byte of UTF-8 is an ASCII character: pushed as one, without a
                // call to copy it.
                self.buf.push(char::from(*byte));
            } else {
                self.buf.push_str(chunk);
            }
            // Most such chunks cannot complete an element: told here, without a call.
            if let Some(preview) = &mut self.preview
                && !preview.sleeps_through(&self.buf)
            {
                self.read_open_block(events);
            }
            return;
        }
        self.take_chunk(chunk, events);
        self.quiet = self.quiet_bound();
    }

    /// [`StreamParser::push_into`] the full way.
    fn take_chunk(&mut self, chunk: &str, events: &mut Vec<StreamEvent>) {
        if chunk.is_empty() {
            return;
        }
        if self.overflow > 0 || self.received + chunk.len() > self.parser.limits().max_input_bytes {
            self.overflow += chunk.len();
            return;
        }
        let at = self.received;
        self.received += chunk.len();
        if self.shortcuts && self.splitter.passes_whole(chunk) {
            // Answer text the splitter would hand out whole: no tag can open in it,
            // and it follows the answer text before it in the response (the splitter
            // said where the answer resumed after any section).
            self.buf.push_str(chunk);
        } else {
            let mut splitter =
                std::mem::replace(&mut self.splitter, Splitter::new(Scope::Anywhere, false));
            splitter.push(chunk, at, &mut |part| self.part(part, events));
            self.splitter = splitter;
        }
        if self.shortcuts && (self.buf.len() < self.idle_below || self.waits_for_line()) {
            self.follow(events);
            return;
        }
        self.run(false, events);
    }

    /// What [`Self::run`] does with the open block on a chunk that decides nothing
    /// else (the shortcuts above): its reader reads the chunk, so that an element is
    /// reported on the chunk that completes it, with or without the shortcuts. Its
    /// preview is not due on such a chunk ([`Self::idle_below`]).
    ///
    /// A chunk that can complete no element is not read either
    /// ([`PartialReader::wake`]: most chunks of a long block, inside a string or deep in
    /// an element); the next chunk that can, or the next preview,
    /// reads it with the rest.
    fn follow(&mut self, events: &mut Vec<StreamEvent>) {
        if let Some(preview) = &mut self.preview
            && !preview.sleeps_through(&self.buf)
        {
            self.read_open_block(events);
        }
    }

    /// The open block's reader reads the text so far ([`Self::follow`]).
    fn read_open_block(&mut self, events: &mut Vec<StreamEvent>) {
        let Some(preview) = &mut self.preview else {
            return;
        };
        if self.segmenter.open_block() != Some((preview.value_start, None)) {
            return;
        }
        preview_at(
            &self.parser,
            &self.buf,
            preview,
            self.buf.len(),
            false,
            events,
        );
    }

    /// Does what [`Self::run`] would do on a text that has not ended, when all it
    /// would do is let the segmenter wait for the end of a line of the open block
    /// ([`Segmenter::waits_for_line`]) and the block's preview is not due; then
    /// returns true. Most wake-ups inside a block written over many lines are these.
    fn waits_for_line(&mut self) -> bool {
        let preview_due = match (&self.preview, self.segmenter.open_block()) {
            (None, _) => false,
            (Some(preview), Some((start, None))) if start == preview.value_start => {
                self.buf.len() - preview.value_start >= preview.next_at
            }
            // `run` would change the preview.
            (Some(_), _) => true,
        };
        if preview_due || !self.segmenter.waits_for_line(&self.buf) {
            return false;
        }
        self.idle_below = self.idle_below();
        true
    }

    /// The bound [`Self::quiet`] after a chunk: the largest length a chunk with no line
    /// break may have and still take the full way only to its copy (the splitter's
    /// `passes_whole`, the size limit and `idle_below` in [`Self::take_chunk`]).
    fn quiet_bound(&self) -> usize {
        if !self.shortcuts || self.overflow > 0 || !self.splitter.passes_line_free() {
            return 0;
        }
        let below_limit = self
            .parser
            .limits()
            .max_input_bytes
            .saturating_sub(self.received)
            + 1;
        self.idle_below
            .saturating_sub(self.buf.len())
            .min(below_limit)
    }

    /// Takes in a piece of the text as the reasoning splitter decided it.
    fn part(&mut self, part: Part<'_>, events: &mut Vec<StreamEvent>) {
        match part {
            Part::Answer(text, at) => {
                self.assembly.answered(self.buf.len(), at);
                // Visible as the message sees it (`str::trim`): an invisible character
                // that counts as space before a tag is message text.
                self.visible = self.visible || !text.trim().is_empty();
                self.buf.push_str(text);
            }
            Part::Closed(at) => {
                self.assembly.answered(self.buf.len(), at);
                self.assembly.section_closed(at);
            }
            Part::Opened(at) => {
                // The answer before the section is shown before its reasoning.
                self.run(false, events);
                self.assembly
                    .reasoning_opened(self.buf.len(), at, !self.visible);
                self.send_placed(events);
            }
            Part::Reasoning(text) => {
                if let Some((text, part)) = self.assembly.reasoning(text) {
                    events.push(StreamEvent::ReasoningDelta { text, part });
                }
            }
        }
    }

    /// Ends the response: the last events (ending with [`StreamEvent::Complete`]) and
    /// the final parse, which is the one-shot parse of the whole text.
    ///
    /// The parse is returned beside the `complete` event that carries it, so it is
    /// copied once; a caller that needs it only as the event carries it (a relay)
    /// uses [`StreamParser::finish_into`], which moves it into the event.
    pub fn finish(self) -> (Vec<StreamEvent>, ParsedResponse) {
        let mut events = Vec::new();
        let parsed = self.finish_before_complete(&mut events);
        events.push(StreamEvent::Complete(Box::new(parsed.clone())));
        (events, parsed)
    }

    /// [`StreamParser::finish`] appending the last events to the caller's `events`,
    /// the final parse moved into the closing [`StreamEvent::Complete`] instead of
    /// copied beside it (for a 64 KB response the copy costs about a fifth of a
    /// one-shot parse). The events are those of `finish`.
    pub fn finish_into(self, events: &mut Vec<StreamEvent>) {
        let parsed = self.finish_before_complete(events);
        events.push(StreamEvent::Complete(Box::new(parsed)));
    }

    /// [`StreamParser::finish`] for a caller that sends the closing
    /// [`StreamEvent::Complete`] itself (an agent applies the turn's tool payloads to
    /// the parse first): the last events before it are appended to `events`, and the
    /// final parse is returned, never copied.
    pub fn finish_before_complete(mut self, events: &mut Vec<StreamEvent>) -> ParsedResponse {
        if let Some(refused) = self.parser.refuse(self.received + self.overflow) {
            return refused;
        }
        let mut splitter =
            std::mem::replace(&mut self.splitter, Splitter::new(Scope::Anywhere, false));
        let len = self.received;
        let unclosed = splitter.finish(len, &mut |part| self.part(part, events));
        self.run(true, events);
        // The sections cut out after the last piece, and their reasoning held back.
        self.assembly.place_before(usize::MAX);
        self.send_placed(events);
        let parsed = self.assembly.finish(&self.buf, unclosed, len);
        for part in self.suggestion_parts {
            if let Some(decided) = parsed.parts.get(part) {
                events.extend(payload_end(&parsed, part, &decided.kind));
            }
        }
        parsed
    }

    /// Runs the segmenter over the text so far and turns its pieces into events.
    fn run(&mut self, eof: bool, events: &mut Vec<StreamEvent>) {
        let mut pieces = std::mem::take(&mut self.pieces);
        pieces.clear();
        self.segmenter
            .advance(self.parser.table(), &self.buf, eof, &mut pieces);
        for piece in &mut pieces {
            match piece {
                Piece::Prose(_) => {
                    self.assembly.piece(&self.buf, piece);
                    self.send_placed(events);
                }
                Piece::Opened {
                    pattern,
                    value_start,
                } => {
                    self.flush(events);
                    let role = self.parser.role(*pattern);
                    let part = self.assembly.opened();
                    self.send_placed(events);
                    if shown(&role) {
                        events.push(StreamEvent::PayloadStart {
                            kind: role.name().to_string(),
                            marker: crate::marker::parse::role_marker(&role).to_string(),
                            part,
                        });
                    }
                    // A value sent inside a string (docs/values.md) has no preview: what
                    // it holds is read once the string has closed.
                    if shown(&role) {
                        let held = self.buf.as_bytes()[*value_start] == b'"';
                        self.preview = (!held).then(|| Preview {
                            pattern: *pattern,
                            value_start: *value_start,
                            next_at: 0,
                            cadence: self.previews,
                            wake: Wake::Always,
                            closed_at: None,
                            looked_to: 0,
                            reader: new_reader(&role),
                            elements_sent: 0,
                            elements_given: 0,
                            shown: None,
                            last: None,
                            part,
                        });
                    }
                }
                Piece::Block(block) => {
                    if let (Some(mut preview), Some(end)) = (self.preview.take(), block.value_end) {
                        // A value cut unclosed (docs/spec.md §1.14) is never shown as closed.
                        if Some(preview.value_start) == block.value_start
                            && block.ending == Ending::Closed
                        {
                            self.flush(events);
                            preview_at(&self.parser, &self.buf, &mut preview, end, true, events);
                        }
                    }
                    // The text before the block goes out as its own part's.
                    self.flush(events);
                    let Piece::Block(block) = piece else {
                        unreachable!("matched above")
                    };
                    let role = self.parser.role(block.pattern);
                    let decided = self.assembly.piece(&self.buf, piece);
                    self.send_placed(events);
                    if let (Some((part, kind)), true) = (decided, shown(&role)) {
                        match kind {
                            PartKind::SuggestedValues { .. }
                            | PartKind::SuggestedActions { .. } => self.suggestion_parts.push(part),
                            _ => events.extend(payload_end(self.assembly.result(), part, &kind)),
                        }
                    }
                }
            }
        }
        self.pieces = pieces;
        // The preview is read where it lies: it is large, and this runs for every chunk.
        if let Some(preview) = &mut self.preview {
            match self.segmenter.open_block() {
                Some((start, value_end)) if start == preview.value_start => {
                    if let Some((text, part)) = self.assembly.take_text() {
                        events.push(StreamEvent::TextDelta { text, part });
                    }
                    let to = value_end.unwrap_or(self.buf.len());
                    preview_at(
                        &self.parser,
                        &self.buf,
                        preview,
                        to,
                        value_end.is_some(),
                        events,
                    );
                }
                // Another block is open: this one has ended.
                Some(_) => self.preview = None,
                // The segmenter has not decided yet where the block ends (it reads a line
                // start only once the whole line is here, docs/spec.md §1.14): the block is neither
                // open nor ended, so its preview waits for the decision, and the closed
                // preview still comes when the block does.
                None => {}
            }
        }
        self.flush(events);
        self.idle_below = if eof { 0 } else { self.idle_below() };
    }

    /// The answer's length below which [`Self::run`] does nothing (see the field): the
    /// least of where the segmenter wakes and where the open block's preview is due.
    fn idle_below(&self) -> usize {
        let preview_due = match (&self.preview, self.segmenter.open_block()) {
            (None, _) => usize::MAX,
            // The preview waits for the segmenter's decision (see `run`).
            (Some(_), None) => usize::MAX,
            // `preview_at` returns at once until the value has grown to `next_at`.
            (Some(preview), Some((start, None))) if start == preview.value_start => {
                preview.value_start + preview.next_at
            }
            // A closed value, or another block: decided on the next chunk.
            (Some(_), Some(_)) => 0,
        };
        self.segmenter.idle_below().min(preview_due)
    }

    /// Sends what placing reasoning sections among the parts gave: the text before a
    /// section, then the reasoning held back until it was placed.
    fn send_placed(&mut self, events: &mut Vec<StreamEvent>) {
        for placed in self.assembly.take_placed() {
            events.push(match placed {
                Placed::Text(text, part) => StreamEvent::TextDelta { text, part },
                Placed::Reasoning(text, part) => StreamEvent::ReasoningDelta { text, part },
            });
        }
    }

    /// Sends the message text that has become final.
    fn flush(&mut self, events: &mut Vec<StreamEvent>) {
        if let Some((text, part)) = self.assembly.take_text() {
            events.push(StreamEvent::TextDelta { text, part });
        }
    }
}

/// The reader for a block of `role`: one that also gives the elements of top-level
/// lists for a custom payload (suggestion blocks preview their kept items instead).
fn new_reader(role: &BlockKind) -> PartialReader {
    match role {
        BlockKind::Custom(_) => PartialReader::with_elements(),
        _ => PartialReader::default(),
    }
}

/// Reads the block's value in `buf` up to `to` (the whole value when it has `closed`),
/// emits the elements of top-level lists that have become whole, and a progress
/// preview when the value has grown enough (always when it has `closed`).
fn preview_at(
    parser: &Parser,
    buf: &str,
    preview: &mut Preview,
    to: usize,
    closed: bool,
    events: &mut Vec<StreamEvent>,
) {
    // The closed value was shown whole already: its reader was handed over, and one
    // started anew would count its changes from nothing, so its preview would be told
    // apart from the last one by chance.
    if closed && preview.closed_at == Some(to) {
        return;
    }
    let json = &buf[preview.value_start..to];
    if json.len() < preview.reader.read() {
        // Not an extension of the text read (the block ended before it): read anew.
        preview.reader = new_reader(&parser.role(preview.pattern));
        preview.elements_given = 0;
    }
    // Every chunk that may complete an element is read, not only those a preview is
    // taken at: an element is reported on the chunk that completes it, whatever the
    // chunking.
    if closed {
        preview.closed_at = Some(to);
        preview.reader.finish(json);
    } else {
        preview.reader.advance(json);
    }
    preview.wake = preview.reader.wake();
    preview.looked_to = to;
    let role = parser.role(preview.pattern);
    for element in preview.reader.take_elements() {
        preview.elements_given += 1;
        if preview.elements_given <= preview.elements_sent {
            continue;
        }
        preview.elements_sent += 1;
        events.push(StreamEvent::PayloadElement {
            kind: role.name().to_string(),
            pointer: element.pointer,
            index: element.index,
            element: element.value,
            part: preview.part,
        });
    }
    let size = to - preview.value_start;
    if !closed && size < preview.next_at {
        return;
    }
    // Doubling the threshold keeps the copies the previews make within twice the
    // block's size, while small blocks still get a preview every 64 bytes; the
    // reading itself is incremental (each byte read once).
    preview.next_at = match preview.cadence {
        Previews::Doubling => size + size.max(64),
        Previews::EveryChunk if size < EVERY_CHUNK_UP_TO => size + 1,
        Previews::EveryChunk => size + size / 8,
    };
    let state = (
        preview.reader.version(),
        closed || preview.reader.complete(),
    );
    if preview.shown == Some(state) {
        return;
    }
    preview.shown = Some(state);
    if let BlockKind::Foreign(_) = role {
        return;
    }
    let snapshot = if closed {
        // The last preview of the block: the value read is handed over, not copied.
        std::mem::replace(&mut preview.reader, new_reader(&role)).into_snapshot()
    } else {
        preview.reader.snapshot()
    };
    if closed {
        // The reader handed over has given everything; one started anew would give it
        // all again.
        preview.elements_given = 0;
    }
    let Some((value, open)) = allowed_preview(parser, role, snapshot, closed) else {
        return;
    };
    if matches!(role, BlockKind::Values | BlockKind::Actions) {
        // What is still open counts too: a string that closed without growing
        // makes a new preview, so a typed reader learns it is complete.
        let fingerprint = fingerprint(&value, open.as_deref());
        if preview.last == Some(fingerprint) {
            return;
        }
        preview.last = Some(fingerprint);
    }
    events.push(StreamEvent::PayloadProgress {
        kind: role.name().to_string(),
        partial: value,
        open,
        part: preview.part,
    });
}

/// The `payload_end` of the block decided as part `part`, of `kind`, in `parsed` (the
/// result so far, or the final one for a suggestion block).
fn payload_end(parsed: &ParsedResponse, part: usize, kind: &PartKind) -> Option<StreamEvent> {
    let probe = AnswerPart {
        span: 0..0,
        kind: kind.clone(),
    };
    let (kind, data, errors) = match parsed.contents(&probe)? {
        // The one copy of the value the stream makes for it: the parse keeps its own.
        PartContents::Payload(payload) => (
            payload.kind.clone(),
            Some(payload.data().clone()),
            Vec::new(),
        ),
        PartContents::SuggestedValues(values) => (
            suggestions::SUGGESTED_VALUES_NAME.to_string(),
            serde_json::to_value(values).ok(),
            Vec::new(),
        ),
        PartContents::SuggestedActions(actions) => (
            suggestions::SUGGESTED_ACTIONS_NAME.to_string(),
            serde_json::to_value(actions).ok(),
            Vec::new(),
        ),
        PartContents::Refused(rejected) => (rejected.kind.clone(), None, rejected.errors.clone()),
        PartContents::Text(_) | PartContents::Reasoning(_) => return None,
    };
    Some(StreamEvent::PayloadEnd {
        kind,
        part,
        data,
        errors,
    })
}

/// The preview of a block's value so far, showing nothing the final result would
/// drop: a suggestion block shows only its complete items that the page's rules
/// keep.
fn allowed_preview(
    parser: &Parser,
    role: BlockKind,
    snapshot: Option<(Value, Option<String>)>,
    closed: bool,
) -> Option<(Value, Option<String>)> {
    let (value, open) = snapshot?;
    let open = if closed { None } else { open };
    let mut ignored = Capped::warnings();
    match role {
        // An object still arriving waits for its `x-stream` `not_null` members.
        BlockKind::Custom(payload) => held_back(value, open, payload.compiled().schema()),
        BlockKind::Foreign(_) => None,
        BlockKind::Values | BlockKind::Actions => {
            let Value::Array(mut items) = value else {
                return None;
            };
            if !closed {
                // The last item may still be arriving.
                items.pop();
            }
            let kept = if let BlockKind::Values = role {
                serde_json::to_value(suggestions::keep_values(items, &mut ignored))
            } else {
                serde_json::to_value(suggestions::keep_actions(
                    items,
                    parser.actions(),
                    &mut ignored,
                ))
            };
            // Only complete items are shown: the array is what is open.
            kept.ok().map(|kept| (kept, open.map(|_| String::new())))
        }
    }
}

/// A structural hash of a suggestion preview. Two different previews with the same fingerprint
/// (a 64-bit collision) would only skip one preview; the next one, or `complete`, still
/// shows the value.
fn fingerprint(value: &Value, open: Option<&str>) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hash_value(value, &mut hasher);
    open.hash(&mut hasher);
    hasher.finish()
}

fn hash_value(value: &Value, hasher: &mut impl Hasher) {
    // Previews nest no deeper than the parsers allow (`MAX_DEPTH`), so this recursion
    // is bounded.
    match value {
        Value::Null => hasher.write_u8(0),
        Value::Bool(b) => {
            hasher.write_u8(1);
            b.hash(hasher);
        }
        Value::Number(n) => {
            hasher.write_u8(2);
            n.hash(hasher);
        }
        Value::String(s) => {
            hasher.write_u8(3);
            s.hash(hasher);
        }
        Value::Array(items) => {
            hasher.write_u8(4);
            hasher.write_usize(items.len());
            for item in items {
                hash_value(item, hasher);
            }
        }
        Value::Object(members) => {
            hasher.write_u8(5);
            hasher.write_usize(members.len());
            for (key, member) in members {
                key.hash(hasher);
                hash_value(member, hasher);
            }
        }
    }
}

/// Whether blocks of this role are announced: not those of types the page does not
/// offer.
fn shown(role: &BlockKind) -> bool {
    !matches!(role, BlockKind::Foreign(_))
}
