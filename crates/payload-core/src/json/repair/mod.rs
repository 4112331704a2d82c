//! Lenient JSON (docs/spec.md §3): reading the almost-JSON models write, and saying what
//! had to be fixed.
//!
//! [`crate::json::decode`] calls [`parse_lenient`] only after strict serde_json parsing
//! failed, so this reader is on the slow path and may be simple; it must still be safe
//! on hostile text: one forward pass (linear time), an explicit stack (no recursion),
//! nesting limited to [`crate::limits::MAX_DEPTH`], no panic.
//!
//! # What is repaired
//!
//! Each category is reported once, as a short phrase (see [`Repair::phrase`]):
//!
//! | model writes | read as | phrase |
//! |---|---|---|
//! | ```` ```json\n{...}\n``` ````, `~~~json ... ~~~` (any [`crate::fence`]) | `{...}` | removed code fence |
//! | `[1, 2,]`, `{"a": 1,}` | `[1, 2]`, `{"a": 1}` | removed trailing commas |
//! | `// note`, `/* note */` between tokens | nothing | removed comments |
//! | `'text'`, `{'key': 1}`, `'it\'s'`, `'it's'` | `"text"`, `{"key": 1}`, `"it's"` | converted single-quoted strings |
//! | `{name: 1, $ref: 2, max-tokens: 3}` | quoted keys | quoted unquoted keys |
//! | `True`, `False`, `None` as values | `true`, `false`, `null` | converted Python literals True/False/None |
//! | `“text”`, `‘text’` as quotes | `"text"` | converted curly quotes |
//! | a raw newline, tab or other control character in a string | the same character, escaped on output | escaped raw newlines/tabs inside strings |
//! | `{"a": 1 "b": 2}`, `[1 2]`, `[{...}{...}]` | with the comma | inserted missing commas |
//! | `"C:\data"`, `"it\'s"`, a lone `\ud800` | `"C:\\data"`, `"it's"`, U+FFFD | fixed invalid escapes |
//! | `"the track "Gemini Dream"?"` | `"the track \"Gemini Dream\"?"` | escaped double quotes inside strings |
//! | `{"a": ["x", "y"}` | `{"a": ["x", "y"]}` | closed brackets left open before a closer of the other kind |
//! | `{"a": 1}, "b": 2}` | `{"a": 1, "b": 2}` | kept the members written after the object closed too early |
//! | U+200B, U+200C, U+200D, U+2060, U+FEFF between tokens | nothing | removed invisible characters between tokens |
//!
//! Three things are read as written but reported through [`Lenient::notes`]: a key that
//! appears twice in an object (the last value wins, docs/spec.md §7.3), an integer too long
//! for 64 bits (read as the nearest float; the caller reports it, docs/spec.md §7.2) and a
//! float literal whose digits the float loses (`1e-400` read as 0; the rule is in
//! `crate::json::precision`, and the caller reports it too).
//!
//! Everything inside a string stays text: `"see // here"`, `"True"`, `"{"` and a curly
//! apostrophe in `"it’s"` are not touched.
//!
//! # What is never repaired
//!
//! - A value that is cut off: an unclosed string, object, array or `/*` comment at the
//!   end of the text, and a number or literal that stops at the end (`[1.`, `[tr`). That
//!   is an error of kind [`ErrorKind::Truncated`]; completing it would invent content.
//! - Anything that needs a guessed value: `{"a": }`, `{"a": 1, "b"}`, `[1,,2]`,
//!   `NaN`, `Infinity`, `undefined`, unquoted string values (`{"a": yes}`), numbers JSON
//!   does not have (`+1`, `01`, `.5`, `0x1F`). Those are [`ErrorKind::Parsing`] errors.
//! - Copied notation (docs/spec.md §3.4): several quoted alternatives separated by `|`
//!   (`"Jobs" | "Applications"`, the way instructions write a field's choices) are
//!   never joined into one string. A double quote followed by `|` and another quoted
//!   string closes its string ([`crate::scan::quotes`]), and a string value followed by
//!   `|` and another string is an error of kind [`ErrorKind::Validation`] at the
//!   member's path, asking for one of the values: the model copied the choices
//!   instead of choosing.
//! - Nesting too deep: [`crate::limits::MAX_DEPTH`] levels are read and the next one
//!   is a [`ErrorKind::Parsing`] error, exactly where the strict path stops. Drawing
//!   the line anywhere else would let a value the strict path refused for depth
//!   through here with no repair reported.
//!
//! Numbers are converted by serde_json itself, so a repaired value has the same number
//! semantics as a strict one (`1.0` stays a float, large integers stay `u64`/`i64`).
//!
//! # Why this is hand-written (the crates that were tried)
//!
//! The candidates were run on the same inputs (the published versions at the time of
//! writing): `json5` 1.3.7, `serde_json5` 0.2.1, `llm_json` 1.0.3, `jsonrepair` 0.1.0,
//! `jsonrepair-rs` 0.2.6.
//!
//! - `json5` and `serde_json5` read trailing commas, comments, single quotes and
//!   unquoted keys, and correctly refuse `{"a": [1, 2` and `{"a": }`, but fail on
//!   `{"a": True, "b": None}`, `{“a”: “b”}`, `{"a": "x<newline>y"}`,
//!   `{"a": 1 "b": 2}` and a fenced value; they also cannot say which repairs were
//!   made, which the `repaired` warnings need.
//! - `llm_json`, `jsonrepair` and `jsonrepair-rs` read all of those, but they complete
//!   cut-off values (`{"a": [1, 2` becomes `{"a":[1,2]}`, `{"a": "hel` becomes
//!   `{"a":"hel"}`) and guess missing values (`{"a": }` becomes `{"a":""}` or
//!   `{"a":null}`; `{"a": 1, "b"}` becomes `{"a":1,"b":""}` in two of them). docs/spec.md
//!   §3 forbids both: a cut-off payload must be reported as truncated, never
//!   saved. `llm_json` also fails on `{'a': 'it\'s'}` and on a raw newline in a string,
//!   and `llm_json`/`jsonrepair` keep `“a”` as key text (`{"“a”":"“b”"}`).
//!
//! Refusing truncation is not an option on top of those crates (their output no longer
//! shows what was invented), so the reader is written here: a tokenizer and an
//! explicit-stack parser, about the size of the repair table above.

mod kinds;
mod lexer;
mod notes;
mod parser;

#[cfg(test)]
pub(crate) mod proptests;
#[cfg(test)]
mod tests;

pub(crate) use crate::error::ErrorKind;
pub(crate) use notes::{Imprecise, Notes};
pub(crate) use parser::members_follow;
use serde_json::Value;
use std::fmt;

/// A value read leniently, with what had to be repaired.
#[derive(Debug, Clone, PartialEq)]
pub struct Lenient {
    /// The value.
    pub value: Value,
    /// One phrase per repair category applied, in the order first met (empty when the
    /// text was strict JSON).
    pub repairs: Vec<String>,
    /// What was read as written but must be reported: duplicate keys, integers too
    /// long to hold exactly.
    pub notes: Notes,
}

/// Why lenient reading failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairError {
    /// What is wrong.
    pub message: String,
    /// Byte offset in the input where the problem is: the token that cannot be read,
    /// the opening quote of an unclosed string, or the end of the text for a value
    /// that is cut off.
    pub offset: usize,
    /// [`ErrorKind::Truncated`] when the text ends before the value does, otherwise
    /// [`ErrorKind::Parsing`].
    pub kind: ErrorKind,
    /// What the model should do about it.
    pub hint: Hint,
    /// JSON Pointer of the member at fault, for an error about a value rather than the
    /// text ([`ErrorKind::Validation`]); empty otherwise.
    pub path: String,
    /// The quoted alternatives written where one value belongs (`"a" | "b"`), for
    /// [`Hint::OneOfTheValues`]; empty otherwise.
    pub choices: Vec<String>,
}

/// What fixes a text the lenient reader cannot read: decided where the reader stops,
/// so that the suggestion a model gets never depends on another parser's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// The value is cut off.
    CloseEverything,
    /// A key is not a string.
    QuoteKeys,
    /// Text that should be a string is not quoted.
    QuoteStrings,
    /// `NaN`, `Infinity` or `undefined` where a value belongs.
    NumberOrNull,
    /// A number JSON cannot read.
    PlainNumber,
    /// A key without `:` after it.
    ColonAfterKey,
    /// Two members or items without a comma between them.
    CommaBetween,
    /// Text after the value.
    OneValue,
    /// Nesting past the depth limit.
    LessNesting,
    /// Several quoted alternatives (`"a" | "b"`) where one value belongs.
    OneOfTheValues,
    /// Anything else.
    StrictJson,
}

impl Hint {
    /// The suggestion a model gets.
    pub fn suggestion(self) -> &'static str {
        match self {
            Hint::CloseEverything => "send the whole value, closing every string, object and array",
            Hint::QuoteKeys => "put every key in double quotes",
            Hint::QuoteStrings => "put every string in double quotes",
            Hint::NumberOrNull => "write a number, or null when there is none",
            Hint::PlainNumber => "write numbers in plain digits, like 42 or -3.5",
            Hint::ColonAfterKey => "put a `:` between each key and its value",
            Hint::CommaBetween => {
                "check for a missing comma or an unclosed string before this point"
            }
            Hint::OneValue => "send one JSON value and nothing after it inside the block",
            Hint::LessNesting => "nest the value less deeply",
            Hint::OneOfTheValues => "send one of the values, not the list of choices",
            Hint::StrictJson => {
                "write strict JSON: double-quoted keys and strings, no comments, no trailing commas"
            }
        }
    }
}

impl RepairError {
    /// The same error with `hint` as its suggestion.
    pub(crate) fn with_hint(mut self, hint: Hint) -> Self {
        self.hint = hint;
        self
    }
}

impl fmt::Display for RepairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for RepairError {}

/// Reads `text` leniently: one JSON value, repaired where a model commonly breaks JSON
/// (see the module docs), never completed when cut off and never with a guessed value.
pub fn parse_lenient(text: &str) -> Result<Lenient, RepairError> {
    parser::parse(text)
}

/// Reads the value at the start of `text` leniently, as [`parse_lenient`] does, and
/// stops after it: the offset just past the value comes with it, and whatever follows
/// is left unread. A top-level object that closes too early (`{"a": 1}, "b": 2}`) is
/// read on to its real end.
pub(crate) fn parse_lenient_prefix(text: &str) -> Result<(Lenient, usize), RepairError> {
    parser::parse_prefix(text)
}
