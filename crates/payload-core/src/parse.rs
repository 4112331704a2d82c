//! Marker-mode parsing of a whole response (SPEC section 1).
//!
//! One pass of an Aho-Corasick automaton finds every marker the page knows (its own
//! payload types, the suggestion markers, and the registered types it does not offer),
//! so cost does not grow with the number of types. Each match is recognised
//! ([`crate::marker`]), its value extracted ([`crate::balanced`]), decoded
//! ([`crate::json`]) and validated; blocks never overlap, and a block's bytes are read
//! a bounded number of times, so the parse is linear in the response.

use crate::balanced::{self, Balanced};
use crate::error::{ErrorKind, Location, PayloadError};
use crate::json;
use crate::limits::Limits;
use crate::marker::{self, LineTracker, Occurrence};
use crate::message::MessageBuilder;
use crate::payload::PayloadType;
use crate::response::{CustomPayload, ParsedResponse, Rejected};
use crate::suggestions::{
    self, ActionSpec, SUGGESTED_ACTIONS_MARKER, SUGGESTED_ACTIONS_NAME, SUGGESTED_VALUES_MARKER,
    SUGGESTED_VALUES_NAME,
};
use crate::warning::{Warning, WarningKind};
use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;

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
}

/// What a marker found in the text stands for.
#[derive(Debug, Clone, Copy)]
enum Role {
    Values,
    Actions,
    Custom(PayloadType),
    Foreign(PayloadType),
}

impl Role {
    fn name(&self) -> &'static str {
        match self {
            Role::Values => SUGGESTED_VALUES_NAME,
            Role::Actions => SUGGESTED_ACTIONS_NAME,
            Role::Custom(t) | Role::Foreign(t) => t.name,
        }
    }
}

/// A compiled parser for one page: build it once, parse many responses.
#[derive(Debug, Clone)]
pub struct Parser {
    automaton: AhoCorasick,
    roles: Vec<Role>,
    markers: Vec<&'static str>,
    actions: Vec<ActionSpec>,
    limits: Limits,
}

impl Parser {
    /// Compiles the markers of `options` into one automaton.
    ///
    /// A marker that appears twice (two types, one marker) keeps its first role; the
    /// registry rejects such registrations before they get here.
    pub fn new(options: &ParseOptions) -> Parser {
        let mut roles = Vec::new();
        let mut markers: Vec<&'static str> = Vec::new();
        let mut add = |marker: &'static str, role: Role| {
            if !marker.is_empty() && !markers.contains(&marker) {
                markers.push(marker);
                roles.push(role);
            }
        };
        if options.suggestions {
            add(SUGGESTED_VALUES_MARKER, Role::Values);
            add(SUGGESTED_ACTIONS_MARKER, Role::Actions);
        }
        for payload in &options.payloads {
            add(payload.marker, Role::Custom(*payload));
        }
        for payload in &options.foreign {
            add(payload.marker, Role::Foreign(*payload));
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&markers)
            .expect("a handful of short literal markers always compiles");
        Parser {
            automaton,
            roles,
            markers,
            actions: options.actions.clone(),
            limits: Limits::DEFAULT,
        }
    }

    /// The same parser with other limits (the default caps a response at 16 MiB).
    pub fn with_limits(mut self, limits: Limits) -> Parser {
        self.limits = limits;
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
            ..ParsedResponse::default()
        })
    }

    /// The markers this parser recognises, suggestion markers first.
    pub fn markers(&self) -> &[&'static str] {
        &self.markers
    }

    /// Parses a whole response.
    ///
    /// A response longer than the limit is not read: the result has an empty message
    /// and one rejected block of kind `response` with a `parsing` error.
    pub fn parse(&self, text: &str) -> ParsedResponse {
        if let Some(refused) = self.refuse(text.len()) {
            return refused;
        }
        let mut state = ParseState::new(text);
        let mut lines = LineTracker::default();
        let mut consumed = 0;
        for found in self.automaton.find_iter(text) {
            if found.start() < consumed {
                continue;
            }
            let Some(occurrence) = marker::recognise(text, found.start(), found.end(), &mut lines)
            else {
                continue;
            };
            if occurrence.remove_start < consumed {
                continue;
            }
            let role = self.roles[found.pattern().as_usize()];
            let mut occurrence = occurrence;
            // A fence line "above" that is really the closing fence of the block
            // before belongs to that block.
            if occurrence
                .enclosing_fence
                .is_some_and(|fence| fence < consumed)
            {
                occurrence.enclosing_fence = None;
            }
            consumed = self.take_block(&mut state, role, occurrence);
        }
        state.finish()
    }

    /// Handles one block; returns where it ends.
    fn take_block(&self, state: &mut ParseState<'_>, role: Role, at: Occurrence) -> usize {
        let text = state.text;
        let origin = state.location(at.value_start);
        let Balanced::Complete { end: value_end } = balanced::scan(text, at.value_start) else {
            let raw = text[at.marker_start..].trim_end().to_string();
            let error = PayloadError::new(
                ErrorKind::Truncated,
                "",
                format!(
                    "the {} block ends before its JSON closes",
                    role_marker(&role)
                ),
            )
            .with_suggestion("send the whole value, closing every string, object and array")
            .with_location(origin);
            state.reject(role.name(), raw, vec![error]);
            state.message.remove(at.remove_start, text.len());
            return text.len();
        };
        let (start, end) = marker::removal_range(text, &at, value_end);
        let raw = text[start..end].trim().to_string();
        state.message.remove(start, end);
        let json_text = &text[at.value_start..value_end];

        match role {
            Role::Foreign(payload) => {
                let error = PayloadError::new(
                    ErrorKind::NotOnPage,
                    "",
                    format!("{} is not available on this page", payload.marker),
                )
                .with_suggestion("use only the structured responses listed for this page, or none")
                .with_location(origin);
                state.reject(payload.name, raw, vec![error]);
            }
            Role::Custom(payload) => self.take_custom(state, payload, raw, json_text, origin),
            Role::Values | Role::Actions => {
                self.take_suggestions(state, role, raw, json_text, origin)
            }
        }
        end
    }

    fn take_custom(
        &self,
        state: &mut ParseState<'_>,
        payload: PayloadType,
        raw: String,
        json_text: &str,
        origin: Location,
    ) {
        let decoded = match json::decode(json_text, origin) {
            Ok(decoded) => decoded,
            Err(error) => return state.reject(payload.name, raw, vec![error]),
        };
        if let Err(mut errors) = payload.validate(&decoded.value) {
            for error in &mut errors {
                error.location.get_or_insert(origin);
            }
            return state.reject(payload.name, raw, errors);
        }
        state.note_repairs(payload.marker, &decoded.repairs);
        if state.result.custom_payload.is_some() {
            let error = PayloadError::new(
                ErrorKind::ExtraPayload,
                "",
                "only one structured payload is accepted per response; an earlier one was",
            )
            .with_suggestion("send one payload per response")
            .with_location(origin);
            return state.reject(payload.name, raw, vec![error]);
        }
        state.result.custom_payload = Some(CustomPayload::new(payload.name, decoded.value));
        state.result.custom_raw = Some(raw);
    }

    fn take_suggestions(
        &self,
        state: &mut ParseState<'_>,
        role: Role,
        raw: String,
        json_text: &str,
        origin: Location,
    ) {
        let name = role.name();
        let marker = role_marker(&role);
        let decoded = match json::decode(json_text, origin) {
            Ok(decoded) => decoded,
            Err(error) => return state.reject(name, raw, vec![error]),
        };
        let Value::Array(items) = decoded.value else {
            let error = PayloadError::new(
                ErrorKind::Validation,
                "",
                format!("{marker} must be a JSON array"),
            )
            .with_expected("array")
            .with_received(decoded.value)
            .with_suggestion(format!("write {marker}: [ ... ] with one object per item"))
            .with_location(origin);
            return state.reject(name, raw, vec![error]);
        };
        let taken = match role {
            Role::Values => state.result.suggested_values.is_some(),
            _ => state.result.suggested_actions.is_some(),
        };
        if taken {
            state.result.warnings.push(Warning::new(
                WarningKind::DuplicateBlock,
                format!("a second {marker} block was removed; the first one is kept"),
            ));
            let error = PayloadError::new(
                ErrorKind::ExtraPayload,
                "",
                format!("only the first {marker} block is used"),
            )
            .with_location(origin);
            return state.reject(name, raw, vec![error]);
        }
        state.note_repairs(marker, &decoded.repairs);
        match role {
            Role::Values => {
                let kept = suggestions::keep_values(items, &mut state.result.warnings);
                if !kept.is_empty() {
                    state.result.suggested_values = Some(kept);
                }
            }
            _ => {
                let kept =
                    suggestions::keep_actions(items, &self.actions, &mut state.result.warnings);
                if !kept.is_empty() {
                    state.result.suggested_actions = Some(kept);
                }
            }
        }
    }
}

fn role_marker(role: &Role) -> &'static str {
    match role {
        Role::Values => SUGGESTED_VALUES_MARKER,
        Role::Actions => SUGGESTED_ACTIONS_MARKER,
        Role::Custom(t) | Role::Foreign(t) => t.marker,
    }
}

/// Parses `text` with a parser built for `options` (build a [`Parser`] once instead
/// when parsing many responses).
pub fn parse(text: &str, options: &ParseOptions) -> ParsedResponse {
    Parser::new(options).parse(text)
}

/// The result under construction, and a forward-only cursor for locations.
struct ParseState<'t> {
    text: &'t str,
    result: ParsedResponse,
    message: MessageBuilder<'t>,
    cursor: (usize, Location),
}

impl<'t> ParseState<'t> {
    fn new(text: &'t str) -> Self {
        ParseState {
            text,
            result: ParsedResponse::default(),
            message: MessageBuilder::new(text),
            cursor: (0, Location { line: 1, column: 1 }),
        }
    }

    /// The location of `offset`; offsets arrive in increasing order, so each byte is
    /// counted once over the whole parse.
    fn location(&mut self, offset: usize) -> Location {
        let (from, at) = self.cursor;
        if offset < from {
            return Location::of_offset(self.text, offset);
        }
        let span = &self.text[from..offset];
        let location = match memchr::memrchr(b'\n', span.as_bytes()) {
            Some(nl) => Location {
                line: at.line + memchr::memchr_iter(b'\n', span.as_bytes()).count(),
                column: span[nl + 1..].chars().count() + 1,
            },
            None => Location {
                line: at.line,
                column: at.column + span.chars().count(),
            },
        };
        self.cursor = (offset, location);
        location
    }

    fn reject(&mut self, kind: &str, raw: String, errors: Vec<PayloadError>) {
        self.result.rejected.push(Rejected {
            kind: kind.to_string(),
            raw,
            errors,
        });
    }

    fn note_repairs(&mut self, marker: &str, repairs: &[String]) {
        for repair in repairs {
            self.result.warnings.push(Warning::new(
                WarningKind::Repaired,
                format!("{marker} block: {repair}"),
            ));
        }
    }

    fn finish(mut self) -> ParsedResponse {
        self.result.message = self.message.finish();
        self.result
    }
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
}
