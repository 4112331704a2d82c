//! Marker-mode parsing of a whole response (docs/spec.md §1, with the value rules of §7).
//!
//! The `crate::scan` segmenter cuts the response into prose and blocks in one pass
//! (one Aho-Corasick automaton finds every marker the page knows, so cost does not grow
//! with the number of types); each block is then decoded ([`crate::json`]), validated
//! and accepted or rejected here. The streaming parser runs the same segmenter and the
//! same `Assembly` chunk by chunk, so the two cannot disagree.
//!
//! **What counts as a marker** (docs/spec.md §1.2, §1.3, §1.11, §1.12): the marker's name,
//! optionally in up to three `*` or `_`, optional spaces (any Unicode horizontal space), a colon
//! (inside or outside the emphasis), then only whitespace and at most one code-fence
//! opener before `{` or `[`; a heading or list prefix before it is removed with it. It
//! is prose, and stays in the message, when it is glued to a word, inside an inline
//! code span (an odd number of backticks before it on its line), inside a code fence
//! that holds anything besides blocks, on a quoted line (`>` after optional list
//! markers, the lazy continuation of a quote, or inside `<blockquote>`), or followed by
//! anything else. A fence that holds nothing but blocks is removed with them. A text
//! that ends after a marker before its value opens, or inside the value, is a
//! `truncated` block; a value still open where the text goes on with a closing fence,
//! a marker line, or prose after a blank line is an `unclosed` block, and the text
//! after it is read as usual (docs/spec.md §1.14). A marker alone at a line's start with no
//! value is removed with a `missing_value` warning (docs/spec.md §1.17); a page marker in
//! another case before a value stays in the message with a `near_miss_marker` warning
//! (docs/spec.md §1.16). Both are listed in [`ParsedResponse::missed_blocks`] for a re-ask.
//!
//! **Nothing removed is lost** (docs/spec.md §1.13): every character taken out of the message is
//! in the accepted payload or suggestions ([`ParsedResponse::accepted_blocks`] keeps
//! their text), in a `rejected[].raw`, or in a warning that quotes it (a dropped
//! suggestion item). The one exception is the caps of docs/spec.md §8.1: past 100 warnings the
//! rest are counted, not quoted.

use crate::caps::Capped;
use crate::error::{ErrorKind, Location, PayloadError};
use crate::json;
use crate::limits::Limits;
use crate::marker::combination::Combination;
use crate::marker::count::{Counted, PayloadCount};
use crate::marker::message::MessageBuilder;
use crate::marker::near_miss::NearMisses;
use crate::marker::part_builder::PartsBuilder;
use crate::marker::parts::{Part, PartKind};
use crate::marker::placing::{Placed, Section};
use crate::marker::response::{Missed, ParsedResponse, Rejected};
use crate::marker::suggestions::{
    self, ActionSpec, SUGGESTED_ACTIONS_MARKER, SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_MARKER,
    SUGGESTED_VALUES_NAME,
};
use crate::payload::CustomPayload;
use crate::payload::PayloadType;
use crate::scan::reasoning::{self, ReasoningText, Scope, Splitter};
use crate::scan::segmenter::{Block, Ending, Piece, Segmenter};
use crate::scan::table::MarkerTable;
use crate::warning::{Warning, WarningKind};
use serde_json::Value;
use std::sync::Arc;

mod sections;

/// What a page offers, for one parser.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// The custom payload types enabled on the page.
    pub payloads: Vec<PayloadType>,
    /// Registered types the page does not offer: their blocks are removed and rejected
    /// as `not_on_page`, never accepted.
    pub foreign: Vec<PayloadType>,
    /// The actions the model may suggest (the page's and the global ones).
    pub actions: Vec<ActionSpec>,
    /// Whether SUGGESTED_VALUES / SUGGESTED_ACTIONS are recognised (on by default in
    /// [`ParseOptions::new`]).
    pub suggestions: bool,
    /// Which suggestion blocks may go beside an accepted custom payload (the page's
    /// rule; [`Combination::FREE`] by default).
    pub combination: Combination,
    /// How many custom payloads one response may hold, in all and per type
    /// ([`PayloadCount::ONE`] by default: a second is rejected as `extra_payload`).
    pub payload_count: PayloadCount,
    /// The model's chat template ends the prompt with `<think>` (DeepSeek-R1's,
    /// Qwen3's and QwQ's do), so a response starts inside its reasoning and closes it
    /// with `</think>`: read it as if it began with `<think>` (docs/markers.md). Off by
    /// default; a response that writes `<think>` anyway reads the same.
    pub reasoning_opened_by_prompt: bool,
}

impl ParseOptions {
    /// Options with suggestions on and no payload types.
    pub fn new() -> Self {
        ParseOptions {
            suggestions: true,
            ..ParseOptions::default()
        }
    }

    /// Enables a payload type.
    pub fn payload(mut self, payload: PayloadType) -> Self {
        self.payloads.push(payload);
        self
    }

    /// Declares a registered type the page does not offer.
    pub fn foreign(mut self, payload: PayloadType) -> Self {
        self.foreign.push(payload);
        self
    }

    /// Allows an action.
    pub fn action(mut self, action: ActionSpec) -> Self {
        self.actions.push(action);
        self
    }

    /// Sets which suggestion blocks may go beside a custom payload.
    pub fn combination(mut self, combination: Combination) -> Self {
        self.combination = combination;
        self
    }

    /// Sets how many custom payloads one response may hold.
    pub fn payload_count(mut self, count: PayloadCount) -> Self {
        self.payload_count = count;
        self
    }

    /// Says the model's prompt opens its reasoning
    /// ([`ParseOptions::reasoning_opened_by_prompt`]).
    pub fn reasoning_opened_by_prompt(mut self) -> Self {
        self.reasoning_opened_by_prompt = true;
        self
    }
}

/// What a marker found in the text stands for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BlockKind {
    Values,
    Actions,
    Custom(PayloadType),
    Foreign(PayloadType),
}

impl BlockKind {
    /// The name rejected blocks and stream events carry.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            BlockKind::Values => SUGGESTED_VALUES_NAME,
            BlockKind::Actions => SUGGESTED_ACTIONS_NAME,
            BlockKind::Custom(t) | BlockKind::Foreign(t) => t.name,
        }
    }
}

/// A compiled parser for one page: build it once, parse many responses. Cloning it is
/// cheap (the marker table is shared).
#[derive(Debug, Clone)]
pub struct Parser {
    table: Arc<MarkerTable>,
    near_misses: Arc<NearMisses>,
    roles: Arc<[BlockKind]>,
    actions: Arc<[ActionSpec]>,
    combination: Combination,
    payload_count: PayloadCount,
    limits: Limits,
    /// [`ParseOptions::reasoning_opened_by_prompt`].
    prompted: bool,
}

impl Parser {
    /// Compiles the markers of `options` into one automaton.
    ///
    /// A marker that appears twice (two types, one marker) keeps its first role; the
    /// registry rejects such registrations before they get here.
    pub fn new(options: &ParseOptions) -> Parser {
        let mut roles = Vec::new();
        let mut markers: Vec<&'static str> = Vec::new();
        let mut add = |marker: &'static str, role: BlockKind| {
            if !marker.is_empty() && !markers.contains(&marker) {
                markers.push(marker);
                roles.push(role);
            }
        };
        if options.suggestions {
            add(SUGGESTED_VALUES_MARKER, BlockKind::Values);
            add(SUGGESTED_ACTIONS_MARKER, BlockKind::Actions);
        }
        for payload in &options.payloads {
            add(payload.marker, BlockKind::Custom(*payload));
        }
        for payload in &options.foreign {
            add(payload.marker, BlockKind::Foreign(*payload));
        }
        Parser {
            near_misses: Arc::new(NearMisses::new(&markers)),
            table: Arc::new(MarkerTable::new(markers)),
            roles: roles.into(),
            actions: options.actions.clone().into(),
            combination: options.combination,
            payload_count: options.payload_count,
            limits: Limits::DEFAULT,
            prompted: options.reasoning_opened_by_prompt,
        }
    }

    /// The same parser with other limits (the default caps a response at 16 MiB).
    pub fn with_limits(mut self, limits: Limits) -> Parser {
        self.limits = limits;
        self
    }

    /// The same parser for a model whose prompt opens its reasoning
    /// ([`ParseOptions::reasoning_opened_by_prompt`]).
    pub fn with_reasoning_opened_by_prompt(mut self) -> Parser {
        self.prompted = true;
        self
    }

    /// The limits this parser applies.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The parse of a response of `len` bytes that is over the size limit, if it is: no
    /// message, and one rejected `response` block whose error says why.
    pub(crate) fn refuse(&self, len: usize) -> Option<ParsedResponse> {
        let error = self.limits.check_input(len).err()?;
        Some(ParsedResponse {
            rejected: vec![Rejected {
                kind: "response".to_string(),
                raw: String::new(),
                errors: vec![error],
            }],
            // The one part: the response, refused.
            parts: vec![Part {
                span: 0..len,
                kind: PartKind::Rejected(0),
            }],
            ..ParsedResponse::default()
        })
    }

    /// How many custom payloads one response may hold ([`ParseOptions::payload_count`]).
    pub fn payload_count(&self) -> PayloadCount {
        self.payload_count
    }

    /// The markers this parser recognises, suggestion markers first.
    pub fn markers(&self) -> &[&'static str] {
        self.table.markers()
    }

    /// A reasoning splitter for a response this parser reads.
    pub(crate) fn splitter(&self) -> Splitter {
        Splitter::new(Scope::Anywhere, self.prompted)
    }

    pub(crate) fn table(&self) -> &MarkerTable {
        &self.table
    }

    /// The page's markers in other spellings (docs/spec.md §1.16).
    pub(crate) fn near_misses(&self) -> &NearMisses {
        &self.near_misses
    }

    /// What the marker with table index `pattern` stands for.
    pub(crate) fn role(&self, pattern: usize) -> BlockKind {
        self.roles[pattern]
    }

    /// The actions the page allows.
    pub(crate) fn actions(&self) -> &[ActionSpec] {
        &self.actions
    }

    /// Parses a whole response.
    ///
    /// A response longer than the limit is not read: the result has an empty message
    /// and one rejected block of kind `response` with a `parsing` error.
    pub fn parse(&self, text: &str) -> ParsedResponse {
        // With the whole text at hand, a block's value is read once, where it opens:
        // the read finds its end too (`crate::scan::segmenter`).
        self.parse_with(Segmenter::reading(json::read_prefix, json::reads), text)
    }

    /// [`Parser::parse`] with every block's end found by the scanner alone, never by a
    /// strict read (`crate::scan::segmenter`): the reference the fast path is held to.
    #[cfg(feature = "__internals")]
    pub(crate) fn parse_scanning_only(&self, text: &str) -> ParsedResponse {
        self.parse_with(Segmenter::new(json::reads), text)
    }

    fn parse_with(&self, mut segmenter: Segmenter, text: &str) -> ParsedResponse {
        if let Some(refused) = self.refuse(text.len()) {
            return refused;
        }
        // Reasoning is cut out first (docs/spec.md §9.1): the segmenter never sees it.
        let split = reasoning::split(text, Scope::Anywhere, self.prompted);
        let answer = split.answer.as_ref();
        let mut pieces = Vec::new();
        let mut assembly = Assembly::new(self.clone(), false);
        // Where the answer's bytes and the reasoning sections stand, for the parts.
        let mut at = 0;
        for range in &split.answer_ranges {
            assembly.answered(at, range.start);
            at += range.len();
        }
        for section in &split.sections {
            let text = Some(section.text.clone());
            assembly.section(section.answer_before, section.open, text, section.end);
        }
        // Each step's pieces are taken before the next step: a block's value, read
        // where the block was found, is dropped or kept by the assembly before the
        // segmenter reads on.
        let mut more = true;
        while more {
            more = segmenter.step(&self.table, answer, true, &mut pieces);
            for piece in &mut pieces {
                assembly.piece(answer, piece);
            }
            pieces.clear();
        }
        assembly.result.reasoning = split.reasoning;
        assembly.finish(answer, split.unclosed, text.len())
    }
}

/// A response's result, built from the segmenter's pieces in order: the message from
/// the prose, and each block decoded, validated and accepted or rejected.
pub(crate) struct Assembly {
    parser: Parser,
    result: ParsedResponse,
    message: MessageBuilder,
    reasoning: ReasoningText,
    warnings: Capped<Warning>,
    /// Where the next piece starts.
    piece_start: usize,
    /// Each removed block's span in the answer, in order (seams added at the end).
    removed: Vec<std::ops::Range<usize>>,
    /// A forward-only cursor for locations: each byte is counted once.
    cursor: (usize, Location),
    /// The parts, as they are decided.
    parts: PartsBuilder,
    /// Every reasoning section so far, in order (`sections`).
    sections: Vec<Section>,
    /// How many of `sections` are placed among the parts.
    placed: usize,
    /// What placing sections gave the stream to send.
    placed_out: Vec<Placed>,
    /// The assembly of a stream: message text is sent as it becomes final.
    streaming: bool,
    /// How many custom payloads were accepted so far, in all and per type.
    counted: Counted,
}

impl Assembly {
    /// An empty result for a response parsed with `parser`; `streaming` for a stream's.
    pub(crate) fn new(parser: Parser, streaming: bool) -> Self {
        Assembly {
            parser,
            result: ParsedResponse::default(),
            message: MessageBuilder::default(),
            reasoning: ReasoningText::default(),
            warnings: Capped::warnings(),
            piece_start: 0,
            removed: Vec::new(),
            cursor: (0, Location { line: 1, column: 1 }),
            counted: Counted::default(),
            parts: PartsBuilder::default(),
            sections: Vec::new(),
            placed: 0,
            placed_out: Vec::new(),
            streaming,
        }
    }

    /// Answer text from answer offset `answer` on stands at offset `text` of the
    /// response (after a reasoning section, where it resumes).
    pub(crate) fn answered(&mut self, answer: usize, text: usize) {
        self.parts.map.push(answer, text);
    }

    /// A block's value has begun arriving: the position of its part (after the
    /// sections cut out before the block).
    pub(crate) fn opened(&mut self) -> usize {
        self.place_before(self.piece_start);
        self.parts.opened(self.message.len())
    }

    /// How many parts have begun.
    pub(crate) fn parts_begun(&self) -> usize {
        self.parts.len()
    }

    /// The result so far.
    pub(crate) fn result(&self) -> &ParsedResponse {
        &self.result
    }

    /// Takes in the next piece of `text` (a block's strict read, if it has one, is
    /// taken out of it); for a block, the position of its part and what it is (none
    /// for a marker with no value, whose text stays in the text part around it).
    pub(crate) fn piece(&mut self, text: &str, piece: &mut Piece) -> Option<(usize, PartKind)> {
        match piece {
            Piece::Prose(end) => {
                self.prose(text, *end);
                None
            }
            Piece::Opened { .. } => {
                self.opened();
                None
            }
            Piece::Block(block) => {
                self.place_before(block.start);
                self.message.removed();
                self.removed.push(block.start..block.end);
                let before = self.decisions();
                self.block(text, block);
                let kind = self.decided(before, block.pattern);
                self.piece_start = block.end;
                let part =
                    self.parts
                        .block(self.message.len(), kind.clone(), block.start..block.end);
                // A section cut out inside the block goes right after it.
                self.place_before(block.end);
                Some((part?, kind?))
            }
        }
    }

    /// How many blocks were rejected, payloads accepted and blocks accepted so far.
    fn decisions(&self) -> (usize, u32, usize) {
        (
            self.result.rejected.len(),
            self.counted.in_all(),
            self.result.book.accepted.len(),
        )
    }

    /// The part a block is, from what it changed (`before`: [`Self::decisions`] before
    /// it was taken in).
    fn decided(&self, before: (usize, u32, usize), pattern: usize) -> Option<PartKind> {
        let (rejected, payloads, accepted) = before;
        if self.result.rejected.len() > rejected {
            return Some(PartKind::Rejected(self.result.rejected.len() - 1));
        }
        if self.counted.in_all() > payloads {
            return Some(PartKind::Payload(payloads as usize));
        }
        if self.result.book.accepted.len() == accepted {
            // A marker with no value: no block, its text with the prose around it.
            return None;
        }
        // A suggestion block accepted with items is the one whose items the parse
        // holds: the one before it, if any, had none.
        Some(match self.parser.role(pattern) {
            BlockKind::Values => PartKind::SuggestedValues {
                holds_items: self.result.suggested_values.is_some(),
            },
            _ => PartKind::SuggestedActions {
                holds_items: self.result.suggested_actions.is_some(),
            },
        })
    }

    /// The message text that has become final since the last call, and the position of
    /// the text part it belongs to.
    pub(crate) fn take_text(&mut self) -> Option<(String, usize)> {
        let delta = self.message.take()?;
        self.result.message.push_str(&delta);
        Some((delta, self.parts.text()))
    }

    /// A reasoning section has opened at offset `open` of the response, cut out of
    /// the answer at answer offset `at`; `blank_before` when no answer text came
    /// before it (then no part can come before it, and it is placed at once).
    pub(crate) fn reasoning_opened(&mut self, at: usize, open: usize, blank_before: bool) {
        self.reasoning.section();
        self.section(at, open, None, None);
        if blank_before {
            self.place_before(at);
        }
    }

    /// Takes in reasoning text (never scanned: it only ever becomes `reasoning`);
    /// returns the reasoning it made final and the position of its section's part,
    /// once the section is placed (docs/spec.md §1.21): until then it is held.
    pub(crate) fn reasoning(&mut self, text: &str) -> Option<(String, usize)> {
        let delta = self.reasoning.push(text)?;
        let range = self.reasoning.current_section().unwrap_or_default();
        self.section_text(delta, range)
    }

    /// The result, once every piece is in (`answer` is the whole text they are pieces
    /// of; `len` the response's length, reasoning included); `unclosed` names the
    /// reasoning section still open when the text ended, if one was.
    pub(crate) fn finish(
        mut self,
        answer: &str,
        unclosed: Option<&str>,
        len: usize,
    ) -> ParsedResponse {
        // The sections cut out after the last piece.
        self.place_before(usize::MAX);
        if !self.removed.is_empty() {
            let spans =
                crate::marker::message::with_seams(answer, std::mem::take(&mut self.removed));
            self.result.removed = Some(Box::new(spans));
        }
        let rest = std::mem::take(&mut self.message).finish();
        if self.result.message.is_empty() {
            // The one-shot parse hands the whole message out here: moved, not copied.
            self.result.message = rest;
        } else {
            self.result.message.push_str(&rest);
        }
        for near in self.parser.near_misses().find(&self.result.message) {
            let role = self.parser.role(near.pattern);
            if matches!(role, BlockKind::Foreign(_)) {
                continue;
            }
            let marker = role_marker(&role);
            let wrong = near.why.phrase();
            self.warnings.push(Warning::new(
                WarningKind::NearMissMarker,
                format!(
                    "{:?} looks like the {marker} marker, but {wrong}: \
                     the block after it was left in the message",
                    near.written
                ),
            ));
            let error = PayloadError::new(
                ErrorKind::Parsing,
                "",
                format!(
                    "the block written after {:?} was not read: the marker is {marker}",
                    near.written
                ),
            )
            .with_suggestion(format!(
                "write the marker exactly as {marker}: (same case, with underscores, \
                 then a colon) and the value after it"
            ));
            self.result.book.missed.push(Missed {
                kind: role.name().to_string(),
                raw: String::new(),
                error,
            });
        }
        if let Some(name) = unclosed {
            self.warnings.push(Warning::new(
                WarningKind::UnclosedReasoning,
                reasoning::unclosed_message(name),
            ));
        }
        let had = (
            self.result.suggested_values.is_some(),
            self.result.suggested_actions.is_some(),
        );
        self.parser
            .combination
            .apply(&mut self.result, &mut self.warnings);
        if had.0 && self.result.suggested_values.is_none() {
            self.withhold(BlockKind::Values);
        }
        if had.1 && self.result.suggested_actions.is_none() {
            self.withhold(BlockKind::Actions);
        }
        if let Some(reasoning) = self.reasoning.text() {
            self.result.reasoning = Some(reasoning.to_owned());
        }
        self.result.warnings = self.warnings.finish();
        let parts = std::mem::take(&mut self.parts);
        self.result.parts = parts.finish(self.result.message.len(), len);
        self.result
    }

    /// The suggestion block of `role` whose items the combination rule took out beside
    /// the payload: its part becomes a refused one, with its text and why.
    fn withhold(&mut self, role: BlockKind) {
        let name = role.name();
        let marker = role_marker(&role);
        let raw = self
            .result
            .book
            .accepted
            .iter()
            .rev()
            .find(|(kind, _)| *kind == name)
            .map(|(_, raw)| raw.clone())
            .unwrap_or_default();
        let error = PayloadError::new(
            ErrorKind::ExtraPayload,
            "",
            format!(
                "on this page a response with a structured payload holds no {marker} \
                 (the page's combination rule)"
            ),
        )
        .with_suggestion(format!(
            "send the payload alone, or {marker} without a payload"
        ));
        let refused = PartKind::Withheld(Box::new(Rejected {
            kind: name.to_string(),
            raw,
            errors: vec![error],
        }));
        self.parts.replace(
            |kind| match (role, kind) {
                (BlockKind::Values, PartKind::SuggestedValues { holds_items }) => *holds_items,
                (BlockKind::Actions, PartKind::SuggestedActions { holds_items }) => *holds_items,
                _ => false,
            },
            refused,
        );
    }

    /// The location of `offset`; offsets arrive in increasing order.
    fn location(&mut self, text: &str, offset: usize) -> Location {
        let (from, at) = self.cursor;
        if offset < from {
            return Location::of_offset(text, offset);
        }
        let location = at.advance(&text[from..offset]);
        self.cursor = (offset, location);
        location
    }

    fn block(&mut self, text: &str, block: &mut Block) {
        let role = self.parser.role(block.pattern);
        let raw = text[block.start..block.end].trim().to_string();
        // Where the value starts, as errors and repairs report it: counted only for a
        // block that reports something (an accepted block read strictly does not).
        let at = block.value_start.unwrap_or(block.start);
        let marker = role_marker(&role);
        let (value_start, value_end) = match (block.ending, block.value_start, block.value_end) {
            (Ending::Closed, Some(start), Some(end)) => (start, end),
            (Ending::Missing, ..) => {
                let origin = self.location(text, at);
                return self.missing_value(role, raw, origin);
            }
            (Ending::Unclosed, _, end) => {
                let origin = self.location(text, at);
                let cut = self.location(text, end.unwrap_or(block.end));
                let error = PayloadError::new(
                    ErrorKind::Unclosed,
                    "",
                    format!(
                        "the {marker} block's JSON is still open where the text goes on \
                         (line {}); it was not read",
                        cut.line
                    ),
                )
                .with_suggestion(
                    "close every string, object and array of the value before writing \
                     anything after it, and write a block you start again whole",
                )
                .with_location(origin);
                return self.reject(role.name(), raw, vec![error]);
            }
            (_, value_start, _) => {
                let origin = self.location(text, at);
                let what = if value_start.is_none() {
                    "before its value opens"
                } else {
                    "before its JSON closes"
                };
                let error = PayloadError::new(
                    ErrorKind::Truncated,
                    "",
                    format!("the {marker} block ends {what}"),
                )
                .with_suggestion("send the whole value, closing every string, object and array")
                .with_location(origin);
                return self.reject(role.name(), raw, vec![error]);
            }
        };
        let json_text = &text[value_start..value_end];
        match role {
            BlockKind::Foreign(payload) => {
                let origin = self.location(text, at);
                let error = PayloadError::new(
                    ErrorKind::NotOnPage,
                    "",
                    format!("{} is not available on this page", payload.marker),
                )
                .with_suggestion("use only the structured responses listed for this page, or none")
                .with_location(origin);
                self.reject(payload.name, raw, vec![error]);
            }
            BlockKind::Custom(payload) => {
                let read = block.read.take();
                self.custom(payload, raw, read, (text, at), json_text)
            }
            BlockKind::Values | BlockKind::Actions => {
                let read = block.read.take();
                self.suggestions(role, raw, read, (text, at), json_text)
            }
        }
    }

    fn custom(
        &mut self,
        payload: PayloadType,
        raw: String,
        read: Option<Value>,
        (text, at): (&str, usize),
        json_text: &str,
    ) {
        let decoded = match self.decode(read, json_text, (text, at)) {
            Ok(decoded) => decoded,
            Err(error) => return self.reject(payload.name, raw, vec![error]),
        };
        let mut decoded = decoded;
        let mut value = std::mem::take(&mut decoded.value);
        // Marker mode never coerces (docs/spec.md §7.4); integer-valued floats are integers
        // already (docs/spec.md §7.2), so their rewrites are not reported.
        let checked = payload.check(&mut value);
        let errors = decoded.with_inexact_errors(checked.errors);
        if !errors.is_empty() {
            let errors = locate_in_block(json_text, self.location(text, at), errors);
            return self.reject(payload.name, raw, errors);
        }
        self.note_repairs(payload.marker, &decoded);
        let count = self.parser.payload_count;
        if let Some(error) = self.counted.refusal(count, payload.name) {
            let error = error.with_location(self.location(text, at));
            return self.reject(payload.name, raw, vec![error]);
        }
        self.counted.accept(count, payload.name);
        let (unknown, omitted) = checked.warnings.into_parts();
        for warning in unknown {
            self.warnings.push(Warning::new(
                warning.kind,
                format!("{} block: {}", payload.marker, warning.message),
            ));
        }
        self.warnings.count_omitted(omitted);
        let accepted = CustomPayload::validated(payload.name, value, checked.typed);
        if self.result.custom_payload.is_none() {
            self.result.custom_payload = Some(accepted);
        } else {
            self.result.book.more_payloads.push(accepted);
        }
        self.result.book.accepted.push((payload.name, raw));
    }

    fn suggestions(
        &mut self,
        role: BlockKind,
        raw: String,
        read: Option<Value>,
        (text, at): (&str, usize),
        json_text: &str,
    ) {
        let name = role.name();
        let marker = role_marker(&role);
        let decoded = match self.decode(read, json_text, (text, at)) {
            Ok(decoded) => decoded,
            Err(error) => return self.reject(name, raw, vec![error]),
        };
        // A number the reading could not hold as written (`1e-400`) would reach the app,
        // or a warning's quote, as another number: the block is refused, as a custom
        // payload's is (docs/spec.md §7.2).
        let inexact = decoded.inexact_errors();
        if !inexact.is_empty() {
            let errors = locate_in_block(json_text, self.location(text, at), inexact);
            return self.reject(name, raw, errors);
        }
        let mut decoded = decoded;
        let items = match std::mem::take(&mut decoded.value) {
            Value::Array(items) => items,
            other => {
                let error = PayloadError::new(
                    ErrorKind::Validation,
                    "",
                    format!("{marker} must be a JSON array"),
                )
                .with_expected("array")
                .with_received(other)
                .with_suggestion(format!("write {marker}: [ ... ] with one object per item"))
                .with_location(self.location(text, at));
                return self.reject(name, raw, vec![error]);
            }
        };
        let taken = match role {
            BlockKind::Values => self.result.suggested_values.is_some(),
            _ => self.result.suggested_actions.is_some(),
        };
        if taken {
            self.warnings.push(Warning::new(
                WarningKind::DuplicateBlock,
                format!("a second {marker} block was removed; the first one is kept"),
            ));
            let error = PayloadError::new(
                ErrorKind::ExtraPayload,
                "",
                format!("only the first {marker} block is used"),
            )
            .with_location(self.location(text, at));
            return self.reject(name, raw, vec![error]);
        }
        self.note_repairs(marker, &decoded);
        if items.is_empty() {
            // Nothing to show, but the model wrote it: the block leaves the message
            // with a warning that quotes it, so the app can tell (docs/spec.md §7.1).
            self.warnings.push(Warning::new(
                WarningKind::EmptyBlock,
                format!("an empty {marker} block was removed from the message: {raw}"),
            ));
        }
        match role {
            BlockKind::Values => {
                let kept = suggestions::keep_values(items, &mut self.warnings);
                if !kept.is_empty() {
                    self.result.suggested_values = Some(kept);
                }
            }
            _ => {
                let kept =
                    suggestions::keep_actions(items, self.parser.actions(), &mut self.warnings);
                if !kept.is_empty() {
                    self.result.suggested_actions = Some(kept);
                }
            }
        }
        self.result.book.accepted.push((name, raw));
    }

    /// A marker alone at a line's start with no value (docs/spec.md §1.17): removed, quoted in a
    /// warning, and listed for a re-ask.
    fn missing_value(&mut self, role: BlockKind, raw: String, origin: Location) {
        let marker = role_marker(&role);
        self.warnings.push(Warning::new(
            WarningKind::MissingValue,
            format!(
                "{raw:?} was removed from the message: the {marker} marker has no value after it"
            ),
        ));
        let error = PayloadError::new(
            ErrorKind::Missing,
            "",
            format!("{marker}: was written with no value after it"),
        )
        .with_suggestion(format!(
            "write {marker}: followed directly by its JSON value, or leave the marker out"
        ))
        .with_location(origin);
        self.result.book.missed.push(Missed {
            kind: role.name().to_string(),
            raw,
            error,
        });
    }

    fn reject(&mut self, kind: &str, raw: String, errors: Vec<PayloadError>) {
        // A checked value's errors arrive capped already (100 and one that counts the
        // rest): capping them again would count that count as one more problem.
        let errors = if errors.len() > crate::caps::MAX_ERRORS + 1 {
            let mut capped = Capped::errors();
            capped.extend(errors);
            capped.finish()
        } else {
            errors
        };
        self.result.rejected.push(Rejected {
            kind: kind.to_string(),
            raw,
            errors,
        });
    }

    /// The block's repairs and duplicate keys, as warnings.
    /// The block's value: read (or the strict read already made), and a string there
    /// read as the value it holds (docs/values.md, `json::held`).
    fn decode(
        &mut self,
        read: Option<Value>,
        json_text: &str,
        (text, at): (&str, usize),
    ) -> Result<json::Decoded, PayloadError> {
        let decoded = json::decode_or_read(read, json_text, || self.location(text, at))?;
        if !decoded.value.is_string() {
            return Ok(decoded);
        }
        json::held::unwrap(decoded, self.location(text, at))
    }

    fn note_repairs(&mut self, marker: &str, decoded: &json::Decoded) {
        for repair in &decoded.repairs {
            self.warnings.push(Warning::new(
                WarningKind::Repaired,
                format!("{marker} block: {repair}"),
            ));
        }
        if decoded.has_duplicates() {
            let prefix = format!("{marker} block: ");
            self.warnings.extend(decoded.duplicate_warnings(&prefix));
        }
    }
}

/// Gives each error the location of the member at fault (docs/spec.md §2.4): its path's value
/// in the block, or for a missing member the object that lacks it; errors whose path
/// cannot be found point at the block's value.
fn locate_in_block(
    json_text: &str,
    origin: Location,
    errors: Vec<PayloadError>,
) -> Vec<PayloadError> {
    let mut errors = crate::whole::extract::locate_errors(json_text, 0, json_text, errors);
    for error in &mut errors {
        error.location = Some(match error.location {
            Some(relative) => json::shift(relative, origin),
            None => origin,
        });
    }
    errors
}

pub(crate) fn role_marker(role: &BlockKind) -> &'static str {
    match role {
        BlockKind::Values => SUGGESTED_VALUES_MARKER,
        BlockKind::Actions => SUGGESTED_ACTIONS_MARKER,
        BlockKind::Custom(t) | BlockKind::Foreign(t) => t.marker,
    }
}

/// Parses `text` with a parser built for `options` (build a [`Parser`] once instead
/// when parsing many responses).
pub fn parse(text: &str, options: &ParseOptions) -> ParsedResponse {
    Parser::new(options).parse(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closing_fence_is_not_the_opener_of_the_next_block() {
        // The fence after the first block closes it; it does not enclose the second.
        let text = "SUGGESTED_VALUES:\n```json\n[{\"label\": \"a\", \"value\": \"b\"}]\n```\n\nSUGGESTED_ACTIONS: []\n```";
        let parsed = Parser::new(&ParseOptions::new()).parse(text);
        assert_eq!(parsed.suggested_values.unwrap().len(), 1);
        assert_eq!(parsed.message, "```");
    }

    fn warnings_of(parsed: &ParsedResponse, kind: WarningKind) -> Vec<&str> {
        parsed
            .warnings
            .iter()
            .filter(|w| w.kind == kind)
            .map(|w| w.message.as_str())
            .collect()
    }

    #[test]
    fn an_empty_suggestion_block_leaves_a_warning_that_quotes_it() {
        let parser = Parser::new(&ParseOptions::new());
        for (text, block) in [
            ("Pick one.\nSUGGESTED_VALUES: []", "SUGGESTED_VALUES: []"),
            ("Go.\n\nSUGGESTED_ACTIONS: [ ]\n", "SUGGESTED_ACTIONS: [ ]"),
            (
                "A.\nSUGGESTED_VALUES:\n```json\n[]\n```\nB.",
                "SUGGESTED_VALUES:\n```json\n[]\n```",
            ),
        ] {
            let parsed = parser.parse(text);
            let empty = warnings_of(&parsed, WarningKind::EmptyBlock);
            assert_eq!(empty.len(), 1, "{text:?}: {parsed:#?}");
            assert!(empty[0].contains(block), "{}", empty[0]);
            assert!(!parsed.message.contains("SUGGESTED"));
        }
    }

    #[test]
    fn a_suggestion_block_with_a_number_not_held_as_written_is_rejected() {
        let parser = Parser::new(&ParseOptions::new());
        let text = "Pick.\nSUGGESTED_VALUES: [1e-400, {\"label\": \"a\", \"value\": \"b\"}]";
        let parsed = parser.parse(text);
        assert_eq!(parsed.suggested_values, None);
        let [rejected] = parsed.rejected.as_slice() else {
            panic!("{parsed:#?}");
        };
        assert_eq!(rejected.kind, "suggested_values");
        assert!(rejected.raw.contains("1e-400"));
        assert_eq!(rejected.errors[0].path, "/0");
        // Nothing quotes it as another number.
        assert!(parsed.warnings.iter().all(|w| !w.message.contains("0.0")));
    }

    #[test]
    fn an_empty_block_superseded_by_a_later_one_is_quoted_too() {
        let parser = Parser::new(&ParseOptions::new());
        let text = "SUGGESTED_VALUES: []\nOr rather:\nSUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}]";
        let parsed = parser.parse(text);
        assert_eq!(parsed.suggested_values.as_ref().unwrap().len(), 1);
        let empty = warnings_of(&parsed, WarningKind::EmptyBlock);
        assert_eq!(empty.len(), 1, "{parsed:#?}");
        assert!(empty[0].ends_with("SUGGESTED_VALUES: []"), "{}", empty[0]);
    }

    #[test]
    fn a_block_after_accepted_ones_is_located_where_its_value_opens() {
        // Accepted blocks are not located (nothing reports them); a later block that
        // reports something is located as from the start of the text.
        let parser = Parser::new(&ParseOptions::new());
        let text = "Intro, with wïde chäracters.\n\nSUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}]\n\
                    Möre text. SUGGESTED_ACTIONS: {\"not\": \"an array\"}\n\
                    Then: SUGGESTED_VALUES: [{\"label\": \"c\", \"value\": \"d\"},]";
        let parsed = parser.parse(text);
        let located: Vec<Option<Location>> = parsed
            .rejected
            .iter()
            .map(|rejected| rejected.errors[0].location)
            .collect();
        let expected: Vec<Option<Location>> = [r#"{"not""#, r#"[{"label": "c""#]
            .iter()
            .map(|value| Some(Location::of_offset(text, text.find(value).unwrap())))
            .collect();
        assert_eq!(located, expected, "{parsed:#?}");
    }

    #[test]
    fn undeclared_members_of_suggestion_items_are_left_out_with_a_warning() {
        let options =
            ParseOptions::new().action(crate::suggestions::ActionSpec::client("open", "Open it"));
        let parser = Parser::new(&options);
        let text = "Hi.\nSUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\", \"icon\": \"star\"}]\n\
                    SUGGESTED_ACTIONS: [{\"label\": \"Open\", \"action\": \"open\", \"handler\": \"client\", \"params\": {\"id\": 3}}]";
        let parsed = parser.parse(text);
        assert_eq!(parsed.suggested_values.as_ref().unwrap()[0].value, "b");
        assert_eq!(parsed.suggested_actions.as_ref().unwrap()[0].action, "open");
        let unknown = warnings_of(&parsed, WarningKind::UnknownMember);
        assert_eq!(unknown.len(), 2, "{parsed:#?}");
        assert!(unknown[0].contains(r#""icon":"star""#), "{}", unknown[0]);
        assert!(
            unknown[1].contains(r#""params":{"id":3}"#),
            "{}",
            unknown[1]
        );
    }
}
