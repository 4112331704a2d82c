//! The segmenter: one left-to-right pass that cuts a response into prose and blocks.
//!
//! It is the only place that decides what is a block. The one-shot parser runs it once
//! over the whole text; the streaming parser runs it after every chunk on the text so
//! far. Every decision it makes before the text is complete is one that no later text
//! can change: when the text so far cannot decide (a marker's name still arriving, a
//! line that may still become a fence opener, a value not yet closed), it stops and
//! says how far it got, and goes on from there when more arrives. So the pieces are the
//! same however the text is chunked, and one-shot and streaming cannot disagree.
//!
//! Each line is read once: its start says whether it opens a code fence or is quoted;
//! the marker table finds the names on it; [`super::spelling`] says whether a name is
//! written as a marker; the code-span parity of the line says whether it sits between
//! backticks; [`super::value`] finds where its value ends. A fence that opens on a line
//! of its own is read as a whole first: when it holds nothing but blocks, they are
//! blocks and the fence goes with them; otherwise it is code, and everything in it is
//! prose.
//!
//! A block ends where the text says (docs/spec.md §1.14, [`super::value::Ends`]): its value
//! closes; the text ends (`truncated`); or the value is still open at its fence's
//! closing line, at a marker line, or at prose after a blank line (`unclosed`), and
//! reading goes on from there. A marker alone at a line's start with no value after
//! it is a block of its own (docs/spec.md §1.17) that takes only the marker.
//!
//! An opening tag is a name match like a marker's (docs/spec.md §1.21): its value is
//! read by the same scanner, which also ends it at its closing tag, and the closing
//! tag after a closed value goes with the block.
//!
//! Waiting is bounded: a block's value is scanned by a resumable scanner, and a decision
//! that needs an unknown amount of text ahead (whitespace after a marker, the inside of
//! a fence) is re-examined only once the text has grown by a quarter, so the total work
//! over a stream stays linear however small its chunks.

use super::lines::{
    self, Fence, HtmlQuotes, LineKind, MAX_PREFIX, closes_fence, fence_opener, line_kind,
};
use super::spelling::{self, Spelled, Spelling, can_start};
use super::table::{MarkerTable, NameMatch};
use super::value::{Ends, Scan, ValueScanner};

/// A decided piece of the text, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// The text from the end of the previous piece up to this offset is prose.
    Prose(usize),
    /// A block's value has begun arriving (outside fences only); the block itself
    /// follows as a [`Piece::Block`] once decided.
    Opened {
        /// The marker's index in the table.
        pattern: usize,
        /// Where the value opens.
        value_start: usize,
    },
    /// A block, removed from the message.
    Block(Block),
}

/// A block: a marker and its value, with what is removed along with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    /// The marker's index in the table.
    pub(crate) pattern: usize,
    /// Where the removal starts (a heading or list prefix, or an enclosing fence).
    pub(crate) start: usize,
    /// Where the removal ends (after the value, or its closing fence).
    pub(crate) end: usize,
    /// Where the value opens, when it did.
    pub(crate) value_start: Option<usize>,
    /// Where the value's text ends: its closing bracket, or where an unclosed value
    /// was cut; `None` when the text ends first (truncated) or no value opened.
    pub(crate) value_end: Option<usize>,
    /// How the block ends.
    pub(crate) ending: Ending,
    /// The value, when a strict read found the block's end ([`read_whole`]): what the
    /// JSON reader's decode of the value's text returns, already read.
    pub(crate) read: Option<serde_json::Value>,
}

/// How a block ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The value closes.
    Closed,
    /// The text ends before the value does (or before it opens): docs/spec.md §1.4, §1.12.
    Truncated,
    /// The value is still open where the text goes on with something else: a closing
    /// fence, a marker line, or a line that cannot be JSON after a blank line (docs/spec.md §1.14).
    Unclosed,
    /// A marker alone at a line's start with no value after it (docs/spec.md §1.17): only the
    /// marker is removed.
    Missing,
}

/// A block whose value is still arriving.
#[derive(Debug, Clone)]
struct Pending {
    pattern: usize,
    start: usize,
    spelled: Spelled,
    /// The fence the block stands in, when it is inside one.
    enclosing: Option<Fence>,
    scanner: ValueScanner,
    value_end: Option<usize>,
}

/// A fence opened on a line of its own, being read to decide what it holds.
#[derive(Debug, Clone)]
struct FenceCheck {
    fence: Fence,
    /// The opener line's start.
    open_start: usize,
    /// Just after the opener line's break.
    body_start: usize,
    /// Where reading goes on: after the opener, or after the last block.
    cursor: usize,
    blocks: Vec<Block>,
    current: Option<Box<Pending>>,
}

#[derive(Debug, Clone)]
enum Mode {
    Prose,
    Block(Box<Pending>),
    FenceCheck(Box<FenceCheck>),
    /// Inside a code fence; `line` is the start of the line being read.
    Code {
        fence: Fence,
        line: usize,
    },
}

/// What one step asks for.
enum Step {
    Continue,
    Wait,
}

/// The segmenter's state between chunks.
#[derive(Debug, Clone)]
pub(crate) struct Segmenter {
    /// Everything before this offset has been given out as pieces.
    pos: usize,
    /// The start of the line `pos` is on.
    line_start: usize,
    /// Whether that line's start has been read (quote, fence).
    line_read: bool,
    /// Whether that line is quoted.
    line_quoted: bool,
    /// Whether the line before was part of a quote's paragraph (for lazy
    /// continuation).
    quote_paragraph: bool,
    /// Where the prose of this line starts: its start, or the end of a block on it.
    prose_start: usize,
    /// The code span open at `ticks_to` on this line (the length of its opening run of
    /// backticks), counted from `prose_start`.
    code_span: Option<usize>,
    ticks_to: usize,
    html: HtmlQuotes,
    html_to: usize,
    /// The next name match at or after `pos`, once found and settled.
    next_match: Option<NameMatch>,
    /// No match starts before this offset (nothing to search for before it).
    searched_to: usize,
    /// No line break stands between `pos` and this offset (where the last search for the
    /// current line's end stopped): a line holding many blocks is searched for its end
    /// once, not once per block.
    newline_free_to: usize,
    mode: Mode,
    /// Do not re-examine a waiting decision before the text is this long.
    retry_at: usize,
    /// The strict reader that finds a value's end with the whole text at hand
    /// ([`read_whole`]); without one, the scanner alone finds every end.
    strict_read: Option<StrictRead>,
    /// Whether a value's text reads ([`Ends::reads`]).
    reads: fn(&str) -> bool,
    /// A value that looked past a marker line inside a string and then did not complete
    /// read the text up to here (docs/spec.md §1.19): a block that starts before this
    /// offset does not look past such a line again, so no text is looked through twice.
    looked_to: usize,
}

/// A strict JSON reader of the value that opens at the start of a text: the value and
/// the length of its text, or `None` where it refuses the text (the scanner then finds
/// the end). The marker-mode parser passes the JSON reader's; the scanner does not read
/// JSON itself.
pub(crate) type StrictRead = fn(&str) -> Option<(serde_json::Value, usize)>;

impl Segmenter {
    /// A segmenter that scans every value (the stream's, and the reference the strict
    /// reads are checked against); `reads` says whether a value's text reads
    /// ([`Ends::reads`]).
    pub(crate) fn new(reads: fn(&str) -> bool) -> Segmenter {
        Segmenter {
            pos: 0,
            line_start: 0,
            line_read: false,
            line_quoted: false,
            quote_paragraph: false,
            prose_start: 0,
            code_span: None,
            ticks_to: 0,
            html: HtmlQuotes::default(),
            html_to: 0,
            next_match: None,
            searched_to: 0,
            newline_free_to: 0,
            mode: Mode::Prose,
            retry_at: 0,
            strict_read: None,
            reads,
            looked_to: 0,
        }
    }

    /// A segmenter that, once the text is complete, finds the end of a value not yet
    /// scanned by reading it with `read` ([`read_whole`]).
    pub(crate) fn reading(read: StrictRead, reads: fn(&str) -> bool) -> Segmenter {
        Segmenter {
            strict_read: Some(read),
            ..Segmenter::new(reads)
        }
    }

    /// Reads on through `text` (everything received so far; `eof` when it is all),
    /// pushing the pieces it decides onto `out`.
    pub(crate) fn advance(
        &mut self,
        table: &MarkerTable,
        text: &str,
        eof: bool,
        out: &mut Vec<Piece>,
    ) {
        if !eof && text.len() < self.retry_at {
            return;
        }
        self.retry_at = 0;
        while self.step(table, text, eof, out) {}
    }

    /// One step of [`Segmenter::advance`]: the pieces it decides go onto `out`; whether
    /// there is more to read. The one-shot parser takes each step's pieces before the
    /// next step, so a value read by a strict read is not held while the rest of the
    /// text is read (peak memory stays that of one block).
    pub(crate) fn step(
        &mut self,
        table: &MarkerTable,
        text: &str,
        eof: bool,
        out: &mut Vec<Piece>,
    ) -> bool {
        let mut run = Run {
            table,
            text,
            eof,
            strict_read: self.strict_read.filter(|_| eof),
            reads: self.reads,
            looked_to: self.looked_to,
            out,
        };
        let step = match std::mem::replace(&mut self.mode, Mode::Prose) {
            Mode::Prose => self.prose(&mut run),
            Mode::Block(pending) => self.block(&mut run, pending),
            Mode::FenceCheck(check) => self.fence_check(&mut run, check),
            Mode::Code { fence, line } => self.code(&mut run, fence, line),
        };
        self.looked_to = run.looked_to;
        let done = self.pos >= text.len() && matches!(self.mode, Mode::Prose);
        !(matches!(step, Step::Wait) || done)
    }

    /// The block being received outside fences: its value's start, and its end once
    /// the value has closed (the block may still wait for its closing fence).
    pub(crate) fn open_block(&self) -> Option<(usize, Option<usize>)> {
        match &self.mode {
            Mode::Block(pending) => pending
                .spelled
                .value_start
                .map(|start| (start, pending.value_end)),
            _ => None,
        }
    }

    /// The text length below which [`Segmenter::advance`] on a text that has not ended
    /// decides nothing and changes nothing: it waits for a decision that needs more
    /// text (its own, or the open value's scanner's), so a stream need not call it for
    /// a chunk that leaves the text shorter. `0` when it may decide on any text.
    pub(crate) fn idle_below(&self) -> usize {
        match &self.mode {
            // `receive` asks the scanner first, which waits below its own mark.
            Mode::Block(pending)
                if pending.spelled.value_start.is_some() && pending.value_end.is_none() =>
            {
                self.retry_at.max(pending.scanner.idle_below())
            }
            _ => self.retry_at,
        }
    }

    /// What [`Segmenter::advance`] does on `text`, a text that has not ended, when the
    /// value of the open block is being scanned and its scan waits for the end of a line
    /// ([`ValueScanner::waits_for_line`]): it decides nothing, and only sets when to
    /// look again. Does that and returns true; returns false, changing nothing, when
    /// `advance` may do more. The stream's shortcut past a line still arriving; a
    /// property test holds it to `advance` (`stream::tests`).
    pub(crate) fn waits_for_line(&mut self, text: &str) -> bool {
        if text.len() < self.retry_at {
            return false;
        }
        let Mode::Block(pending) = &mut self.mode else {
            return false;
        };
        // `receive` scans (the strict read needs the whole text) a value that has not
        // closed.
        if pending.spelled.value_start.is_none()
            || pending.value_end.is_some()
            || !pending.scanner.waits_for_line(text)
        {
            return false;
        }
        self.retry_at = 0;
        true
    }

    /// Waits for the text to grow by a quarter of what is undecided since `from`.
    fn wait_from(&mut self, len: usize, from: usize) -> Step {
        self.retry_at = len + ((len - from.min(len)) / 4).max(1);
        Step::Wait
    }

    fn emit_prose(&mut self, run: &mut Run<'_, '_>, to: usize) {
        if to > self.pos {
            run.out.push(Piece::Prose(to));
            self.pos = to;
        }
    }

    /// Moves to the start of the next line, `at`.
    fn new_line(&mut self, at: usize) {
        self.quote_paragraph = self.line_quoted;
        self.line_start = at;
        self.line_read = false;
        self.line_quoted = false;
        self.prose_start = at;
        self.code_span = None;
        self.ticks_to = at;
    }

    /// Goes on after a block or fence that ended at `end`, mid-line.
    fn resume_after(&mut self, text: &str, from: usize, end: usize) {
        self.pos = end;
        if let Some(nl) = memchr::memrchr(b'\n', &text.as_bytes()[from..end]) {
            self.line_start = from + nl + 1;
        }
        self.line_read = true;
        self.line_quoted = false;
        self.quote_paragraph = false;
        self.prose_start = end;
        self.code_span = None;
        self.ticks_to = end;
        self.html_to = end;
        self.searched_to = self.searched_to.max(end);
        if self.next_match.is_some_and(|m| m.start < end) {
            self.next_match = None;
        }
    }

    /// The next name match at or after `from` that no more text can change, or why
    /// there is none: `Err(Some(at))` when one may be arriving at `at`.
    fn next_name(&mut self, run: &Run<'_, '_>, from: usize) -> Result<NameMatch, Option<usize>> {
        if let Some(found) = self.next_match {
            if found.start >= from {
                return Ok(found);
            }
        }
        self.next_match = None;
        let search_from = from.max(self.searched_to);
        let longest = run.table.longest();
        match run.table.find(run.text, search_from) {
            // A longer marker, or an earlier one, may still match once more arrives.
            Some(found) if !run.eof && found.start + longest > run.text.len() => {
                Err(Some(found.start))
            }
            Some(found) => {
                self.next_match = Some(found);
                Ok(found)
            }
            None if run.eof => {
                self.searched_to = run.text.len();
                Err(None)
            }
            None => {
                self.searched_to = search_from.max(run.text.len().saturating_sub(longest));
                Err(run.table.partial_tail(run.text, search_from))
            }
        }
    }

    /// Reads prose from `pos`: the line's start, then the names on it.
    fn prose(&mut self, run: &mut Run<'_, '_>) -> Step {
        let text = run.text;
        let bytes = text.as_bytes();
        let len = text.len();
        let from = self.pos.max(self.newline_free_to);
        let line_end = memchr::memchr(b'\n', &bytes[from..]).map(|n| from + n);
        self.newline_free_to = line_end.unwrap_or(len);
        let complete = line_end.is_some() || run.eof;
        let end = line_end.unwrap_or(len);
        if !self.line_read {
            let line = &text[self.line_start..end];
            let Some(kind) = line_kind(line, complete) else {
                let from = self.line_start;
                return self.wait_from(len, from);
            };
            if kind == LineKind::Starter
                && !self.in_html_quote(bytes, self.line_start)
                && crate::fence::may_open(line)
            {
                if !complete {
                    let from = self.line_start;
                    return self.wait_from(len, from);
                }
                if let Some(fence) = fence_opener(line) {
                    let body_start = line_end.map_or(len, |n| n + 1);
                    self.mode = Mode::FenceCheck(Box::new(FenceCheck {
                        fence,
                        open_start: self.line_start,
                        body_start,
                        cursor: body_start,
                        blocks: Vec::new(),
                        current: None,
                    }));
                    return Step::Continue;
                }
            }
            self.line_quoted =
                kind == LineKind::Quote || (self.quote_paragraph && kind == LineKind::Text);
            self.line_read = true;
        }
        loop {
            let found = match self.next_name(run, self.pos.max(self.prose_start)) {
                Ok(found) if found.start < end => found,
                Ok(_) | Err(None) => return self.end_of_line(run, line_end),
                // A name may be arriving on this line: what it decides is not known yet.
                Err(Some(at)) if at <= end => {
                    let hold = spelling::marker_start(bytes, at);
                    let hold = hold - trailing_emphasis(&bytes[..hold]);
                    self.hold_line(run, hold);
                    return Step::Wait;
                }
                Err(Some(_)) => return self.end_of_line(run, line_end),
            };
            match self.decide(run, found) {
                Decision::Prose => {
                    self.next_match = None;
                    self.searched_to = found.end;
                }
                Decision::Wait => {
                    let hold = spelling::marker_start(bytes, found.start);
                    self.hold_line(run, hold);
                    return self.wait_from(len, found.end);
                }
                Decision::Missing(block) => {
                    self.next_match = None;
                    self.emit_prose(run, block.start);
                    let (from, end) = (block.start, block.end);
                    run.out.push(Piece::Block(block));
                    self.resume_after(run.text, from, end);
                    return Step::Continue;
                }
                Decision::Block(pending) => {
                    self.next_match = None;
                    self.emit_prose(run, pending.start);
                    if let Some(value_start) = pending.spelled.value_start {
                        run.out.push(Piece::Opened {
                            pattern: pending.pattern,
                            value_start,
                        });
                    }
                    self.mode = Mode::Block(Box::new(pending));
                    return Step::Continue;
                }
            }
        }
    }

    /// Whether `at` is inside a `<blockquote>` (reading the prose up to it).
    fn in_html_quote(&mut self, bytes: &[u8], at: usize) -> bool {
        if at > self.html_to {
            self.html_to = self.html.advance(bytes, self.html_to, at, true);
        }
        self.html.inside()
    }

    /// Whether a name match at `found` starts a block here.
    fn decide(&mut self, run: &Run<'_, '_>, found: NameMatch) -> Decision {
        let text = run.text;
        let bytes = text.as_bytes();
        let tag = run.table.closer(found.pattern).is_some();
        if !tag && !can_start(text, found.start) {
            return Decision::Prose;
        }
        // A tag is markup: no emphasis goes with it.
        let marker_start = if tag {
            found.start
        } else {
            spelling::marker_start(bytes, found.start)
        };
        // Backticks before the marker on its line: a run opens a code span that the
        // next run of the same length closes (with single backticks: an odd count
        // before the marker means it is inside one).
        if marker_start > self.ticks_to {
            self.code_span = code_span_after(bytes, self.ticks_to, marker_start, self.code_span);
            self.ticks_to = marker_start;
        }
        if self.line_quoted || self.code_span.is_some() || self.in_html_quote(bytes, marker_start) {
            return Decision::Prose;
        }
        let prefix = &text[self.prose_start..marker_start];
        let at_line_start = self.prose_start == self.line_start && lines::is_block_prefix(prefix);
        let spelled = match spell(run.table, text, found, run.eof) {
            Spelling::Prose => return Decision::Prose,
            Spelling::NeedMore => return Decision::Wait,
            // Mid-sentence ("I'll send a NAME: once you confirm") it is prose.
            Spelling::Alone { .. } if !at_line_start => return Decision::Prose,
            Spelling::Alone { end, .. } => {
                return Decision::Missing(Block {
                    pattern: found.pattern,
                    start: self.line_start,
                    end,
                    value_start: None,
                    value_end: None,
                    ending: Ending::Missing,
                    read: None,
                });
            }
            Spelling::Empty { end } => {
                return Decision::Missing(Block {
                    pattern: found.pattern,
                    start: if at_line_start {
                        self.line_start
                    } else {
                        marker_start
                    },
                    end,
                    value_start: None,
                    value_end: None,
                    ending: Ending::Missing,
                    read: None,
                });
            }
            Spelling::Marker(spelled) => spelled,
        };
        let start = if at_line_start {
            self.line_start
        } else {
            marker_start
        };
        Decision::Block(Pending {
            pattern: found.pattern,
            start,
            scanner: ValueScanner::new(spelled.value_start.unwrap_or(text.len()))
                .looking_past(start >= run.looked_to),
            spelled,
            enclosing: None,
            value_end: None,
        })
    }

    /// The line ends (or the text so far does) with no block: give out its prose, all of
    /// it when the line is complete, else what no later marker can claim back.
    fn end_of_line(&mut self, run: &mut Run<'_, '_>, line_end: Option<usize>) -> Step {
        let len = run.text.len();
        match line_end {
            Some(nl) => {
                self.emit_prose(run, nl + 1);
                self.new_line(nl + 1);
                Step::Continue
            }
            None if run.eof => {
                self.emit_prose(run, len);
                Step::Wait
            }
            None => {
                // Emphasis at the very end may open a marker that has not arrived.
                let hold = len - trailing_emphasis(run.text.as_bytes());
                self.hold_line(run, hold);
                Step::Wait
            }
        }
    }

    /// Gives out the prose of the current line up to `hold`, unless the line's start
    /// may still become a prefix that a marker arriving later takes with it.
    fn hold_line(&mut self, run: &mut Run<'_, '_>, hold: usize) {
        let prefix = &run.text[self.prose_start..hold.max(self.prose_start)];
        if self.prose_start == self.line_start
            && !self.line_quoted
            && lines::may_become_block_prefix(prefix)
        {
            return;
        }
        let mut hold = hold;
        while !run.text.is_char_boundary(hold) {
            hold -= 1;
        }
        self.emit_prose(run, hold);
    }

    /// Receives a block's value, then what closes it.
    fn block(&mut self, run: &mut Run<'_, '_>, mut pending: Box<Pending>) -> Step {
        match receive(run, &mut pending) {
            Received::Wait => {
                // A value that closed waits for what may follow it (its fence's closer,
                // its closing tag): looked at again once the text has grown by a
                // quarter, so a long line after it stays linear.
                let closed_at = pending.value_end;
                self.mode = Mode::Block(pending);
                match closed_at {
                    Some(end) => self.wait_from(run.text.len(), end),
                    None => Step::Wait,
                }
            }
            Received::Block(block) => {
                let (from, end) = (block.start, block.end);
                run.out.push(Piece::Block(block));
                self.resume_after(run.text, from, end);
                Step::Continue
            }
        }
    }

    /// Reads a fence that opened on a line of its own: blocks only, or code.
    fn fence_check(&mut self, run: &mut Run<'_, '_>, mut check: Box<FenceCheck>) -> Step {
        let text = run.text;
        let bytes = text.as_bytes();
        let len = text.len();
        loop {
            if let Some(mut pending) = check.current.take() {
                match receive(run, &mut pending) {
                    Received::Wait => {
                        // As in `block`: a closed value waiting for what follows it is
                        // looked at again once the text has grown by a quarter.
                        let closed_at = pending.value_end;
                        check.current = Some(pending);
                        self.mode = Mode::FenceCheck(check);
                        return match closed_at {
                            Some(end) => self.wait_from(len, end),
                            None => Step::Wait,
                        };
                    }
                    Received::Block(block) => {
                        check.cursor = block.end;
                        let truncated = block.ending == Ending::Truncated;
                        check.blocks.push(block);
                        if truncated {
                            return self.finish_fence(run, *check, None);
                        }
                    }
                }
            }
            let at = check.cursor
                + bytes[check.cursor..]
                    .iter()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count();
            if at == len {
                if run.eof {
                    return self.finish_fence(run, *check, None);
                }
                let from = check.open_start;
                self.mode = Mode::FenceCheck(check);
                return self.wait_from(len, from);
            }
            let newline = memchr::memrchr(b'\n', &bytes[check.cursor..at]);
            let line_start = newline.map_or(check.cursor, |n| check.cursor + n + 1);
            let line_end = memchr::memchr(b'\n', &bytes[at..]).map(|n| at + n);
            let line = &text[line_start..line_end.unwrap_or(len)];
            let complete = line_end.is_some() || run.eof;
            if matches!(bytes[at], b'`' | b'~') {
                if !complete {
                    let from = check.open_start;
                    self.mode = Mode::FenceCheck(check);
                    return self.wait_from(len, from);
                }
                if closes_fence(line, check.fence) {
                    let close_end = line_end.unwrap_or(len);
                    return self.finish_fence(run, *check, Some(close_end));
                }
            }
            // Anything but a block at a line's start makes the fence code. A block
            // right after another on the same line is other content too.
            let on_own_line = newline.is_some() || check.blocks.is_empty();
            match fenced_block(run, check.fence, line_start, at, on_own_line) {
                FencedBlock::Wait => {
                    let from = check.open_start;
                    self.mode = Mode::FenceCheck(check);
                    return self.wait_from(len, from);
                }
                FencedBlock::Block(pending) => check.current = Some(pending),
                FencedBlock::Other => {
                    let open_end = check.body_start;
                    self.emit_prose(run, open_end);
                    self.mode = Mode::Code {
                        fence: check.fence,
                        line: open_end,
                    };
                    return Step::Continue;
                }
            }
        }
    }

    /// Decides a fence read to its end (`close_end`: the end of its closing line, or
    /// `None` when the text ends inside it).
    fn finish_fence(
        &mut self,
        run: &mut Run<'_, '_>,
        check: FenceCheck,
        close_end: Option<usize>,
    ) -> Step {
        let len = run.text.len();
        let end = close_end.unwrap_or(len);
        let mut blocks = check.blocks;
        if blocks.is_empty() {
            // An empty fence is prose.
            self.emit_prose(run, end);
            self.resume_after(run.text, check.open_start, end);
            self.line_start =
                memchr::memrchr(b'\n', &run.text.as_bytes()[..end]).map_or(0, |n| n + 1);
            return Step::Continue;
        }
        // The fence goes with the blocks it holds: the opener with the first, the
        // closer with the last, and the whitespace between them with the one before.
        blocks[0].start = check.open_start;
        let count = blocks.len();
        for i in 0..count {
            let next = if i + 1 < count {
                blocks[i + 1].start
            } else if close_end.is_some() {
                end
            } else {
                blocks[i].end
            };
            blocks[i].end = next.max(blocks[i].end);
        }
        let last_end = blocks[count - 1].end;
        for block in blocks {
            run.out.push(Piece::Block(block));
        }
        self.resume_after(run.text, check.open_start, last_end);
        Step::Continue
    }

    /// Inside a code fence: prose up to and including its closing line. `line` is the
    /// start of the line being read; everything before `pos` on it has no line break.
    fn code(&mut self, run: &mut Run<'_, '_>, fence: Fence, mut line: usize) -> Step {
        let text = run.text;
        let bytes = text.as_bytes();
        loop {
            let from = self.pos.max(line);
            let Some(nl) = memchr::memchr(b'\n', &bytes[from..]).map(|n| from + n) else {
                // Code is prose: it can all be shown as it arrives.
                self.emit_prose(run, text.len());
                if run.eof {
                    return Step::Wait;
                }
                self.mode = Mode::Code { fence, line };
                return Step::Wait;
            };
            let closing = closes_fence(&text[line..nl], fence);
            self.emit_prose(run, nl + 1);
            if closing {
                self.html_to = nl + 1;
                self.searched_to = self.searched_to.max(nl + 1);
                self.next_match = None;
                self.line_quoted = false;
                self.new_line(nl + 1);
                self.quote_paragraph = false;
                return Step::Continue;
            }
            line = nl + 1;
        }
    }
}

/// The code span open at `to`, given the one open at `from` (runs of backticks open
/// and close spans as in CommonMark: a closing run has the opening run's length).
fn code_span_after(bytes: &[u8], from: usize, to: usize, mut open: Option<usize>) -> Option<usize> {
    let mut at = from;
    while let Some(rel) = memchr::memchr(b'`', &bytes[at..to]) {
        let start = at + rel;
        let run = bytes[start..to].iter().take_while(|&&b| b == b'`').count();
        open = match open {
            None => Some(run),
            Some(n) if n == run => None,
            still => still,
        };
        at = start + run;
    }
    open
}

/// How many bytes of emphasis (at most three characters) and invisible characters
/// among them end `bytes`: what may open a marker still arriving.
fn trailing_emphasis(bytes: &[u8]) -> usize {
    bytes.len() - spelling::marker_start(bytes, bytes.len())
}

/// What the text around the match `found` says: a marker's spelling, or what follows
/// an opening tag (docs/spec.md §1.21).
fn spell(table: &MarkerTable, text: &str, found: NameMatch, eof: bool) -> Spelling {
    match table.closer(found.pattern) {
        Some(close) => spelling::spell_tag(text, found.start, found.end, close, eof),
        None => spelling::spell(text, found.start, found.end, eof),
    }
}

/// The text and the output of one [`Segmenter::advance`].
struct Run<'a, 't> {
    table: &'a MarkerTable,
    text: &'t str,
    eof: bool,
    /// The strict reader, when a value may be read to find its end ([`read_whole`]):
    /// the text is complete and the segmenter has one ([`Segmenter::reading`]).
    strict_read: Option<StrictRead>,
    /// Whether a value's text reads ([`Ends::reads`]).
    reads: fn(&str) -> bool,
    /// [`Segmenter::looked_to`], moved on by a block that ends where it looked past.
    looked_to: usize,
    out: &'a mut Vec<Piece>,
}

enum Decision {
    Prose,
    Wait,
    Block(Pending),
    /// A marker with nothing after it (docs/spec.md §1.17).
    Missing(Block),
}

enum Received {
    Wait,
    Block(Block),
}

/// Scans a block's value, then its closing fence.
fn receive(run: &mut Run<'_, '_>, pending: &mut Pending) -> Received {
    let text = run.text;
    let len = text.len();
    let Some(value_start) = pending.spelled.value_start else {
        // The text ended after the marker, before a value opened.
        return Received::Block(Block {
            pattern: pending.pattern,
            start: pending.start,
            end: len,
            value_start: None,
            value_end: None,
            ending: Ending::Truncated,
            read: None,
        });
    };
    let mut read = None;
    if pending.value_end.is_none() {
        if let Some((value, end)) = read_whole(run, pending, value_start) {
            pending.value_end = Some(end);
            read = Some(value);
        }
    }
    let value_end = match pending.value_end {
        Some(end) => end,
        None => {
            let ends = Ends {
                table: run.table,
                own: pending.spelled.fence,
                enclosing: pending.enclosing,
                close: run.table.closer(pending.pattern),
                reads: run.reads,
            };
            match pending.scanner.advance_until(text, run.eof, Some(&ends)) {
                Scan::Closed(end) => {
                    pending.value_end = Some(end);
                    end
                }
                Scan::NeedMore => return Received::Wait,
                Scan::Truncated => {
                    return Received::Block(Block {
                        pattern: pending.pattern,
                        start: pending.start,
                        end: len,
                        value_start: Some(value_start),
                        value_end: None,
                        ending: Ending::Truncated,
                        read: None,
                    });
                }
                Scan::Unclosed { value_end, end } => {
                    if pending.scanner.looked_past() {
                        run.looked_to = run.looked_to.max(pending.scanner.position());
                    }
                    return Received::Block(Block {
                        pattern: pending.pattern,
                        start: pending.start,
                        end,
                        value_start: Some(value_start),
                        value_end: Some(value_end),
                        ending: Ending::Unclosed,
                        read: None,
                    });
                }
            }
        }
    };
    let mut end = value_end;
    if let Some(fence) = pending.spelled.fence {
        // The fence the block opened closes after the value (on its own line, or
        // right after it), with a run at least as long as the opener's.
        let bytes = text.as_bytes();
        let after = value_end
            + bytes[value_end..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let rest = &text[after..];
        if !run.eof && rest.bytes().all(|b| b as char == fence.ch()) {
            // The run of fence characters may go on.
            return Received::Wait;
        }
        if let Some(run_len) = crate::fence::inline_closer(rest, fence) {
            end = after + run_len;
        }
    }
    if let Some(close) = run.table.closer(pending.pattern) {
        // The closing tag goes with the block when the text puts it after the value;
        // the block ends after its value when it does not.
        match spelling::tag_closer(text, end, close, run.eof) {
            Ok(closed) => end = closed,
            Err(true) => return Received::Wait,
            Err(false) => {}
        }
    }
    Received::Block(Block {
        pattern: pending.pattern,
        start: pending.start,
        end,
        value_start: Some(value_start),
        value_end: Some(value_end),
        ending: Ending::Closed,
        read,
    })
}

/// The strict read of a block's value, when the whole text is at hand and the value has
/// not been scanned yet: the value and where it ends, or `None` to scan it.
///
/// A value that strict JSON reads is one the scanner reads the same way (its strings
/// hold no line break or unescaped quote, and no line of it can start with a marker,
/// a fence or prose), so the scanner would end it at the same byte: the read finds the
/// end and the value in one pass instead of two. Anything the strict read refuses
/// (repairs, a duplicate key, a number not held as written, nesting past the limit)
/// is scanned as before. This is the one place the choice is made; the one-shot parser
/// makes it (the stream scans as the text arrives), and the property tests in
/// `tests/all/strict_reads.rs` and the `parse` fuzz target hold the two paths equal.
fn read_whole(
    run: &Run<'_, '_>,
    pending: &Pending,
    value_start: usize,
) -> Option<(serde_json::Value, usize)> {
    let read = run.strict_read?;
    // The blocks of a fence are held until the fence is decided (blocks or code), so
    // their values would be held all at once: they are scanned, and read one by one.
    if pending.enclosing.is_some() || pending.scanner.position() != value_start {
        return None;
    }
    let (value, len) = read(&run.text[value_start..])?;
    Some((value, value_start + len))
}

enum FencedBlock {
    Wait,
    Block(Box<Pending>),
    Other,
}

/// Whether the content at `at` (first visible byte of the line starting at
/// `line_start`) inside a fence is a block at the line's start.
fn fenced_block(
    run: &Run<'_, '_>,
    fence: Fence,
    line_start: usize,
    at: usize,
    own_line: bool,
) -> FencedBlock {
    let text = run.text;
    let len = text.len();
    if !own_line {
        return FencedBlock::Other;
    }
    let window = line_start + MAX_PREFIX + 3;
    let longest = run.table.longest();
    let found = run.table.find(text, at);
    let found = match found {
        Some(found) if found.start <= window && (run.eof || found.start + longest <= len) => found,
        Some(found) if found.start <= window => return FencedBlock::Wait,
        _ if !run.eof && len < window + longest => {
            // Wait only while the line so far may still become a prefix and a marker.
            let arriving = run.table.partial_tail(text, at).unwrap_or(len);
            let hold = spelling::marker_start(text.as_bytes(), arriving);
            let hold = hold - trailing_emphasis(&text.as_bytes()[..hold]).min(hold - line_start);
            if lines::may_become_block_prefix(&text[line_start..hold.max(line_start)]) {
                return FencedBlock::Wait;
            }
            return FencedBlock::Other;
        }
        _ => return FencedBlock::Other,
    };
    let tag = run.table.closer(found.pattern).is_some();
    let marker_start = if tag {
        found.start
    } else {
        spelling::marker_start(text.as_bytes(), found.start)
    };
    if !(tag || can_start(text, found.start))
        || !lines::is_block_prefix(&text[line_start..marker_start])
    {
        return FencedBlock::Other;
    }
    match spell(run.table, text, found, run.eof) {
        // A marker with no value in a fence is a sample of the format: code.
        Spelling::Prose | Spelling::Alone { .. } | Spelling::Empty { .. } => FencedBlock::Other,
        Spelling::NeedMore => FencedBlock::Wait,
        Spelling::Marker(spelled) => FencedBlock::Block(Box::new(Pending {
            pattern: found.pattern,
            start: line_start,
            scanner: ValueScanner::new(spelled.value_start.unwrap_or(len))
                .looking_past(line_start >= run.looked_to),
            spelled,
            enclosing: Some(fence),
            value_end: None,
        })),
    }
}
