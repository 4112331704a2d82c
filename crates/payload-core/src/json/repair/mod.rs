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
mod outcome;
mod parser;

#[cfg(test)]
pub(crate) mod proptests;
#[cfg(test)]
mod tests;

pub(crate) use crate::error::ErrorKind;
pub(crate) use lexer::{is_word_char, is_word_start, scalar_at};
pub(crate) use notes::{Imprecise, Notes};
pub use outcome::{Hint, Lenient, RepairError};
pub(crate) use parser::members_follow;

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
