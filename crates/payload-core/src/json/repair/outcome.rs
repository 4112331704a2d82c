//! What a lenient read gives: the value with its repairs, or why it failed and what
//! fixes the text. A file of its own, below the lexer and the parser that make them
//! and the folder's entry points that return them.

use super::notes::Notes;
use crate::error::ErrorKind;
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
