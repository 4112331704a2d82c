//! The repair categories, and the set of them one reading applied.

/// One kind of fix the lenient reader can make. Each is reported at most once per value,
/// however often it was applied: the warning tells the model what to stop doing, not
/// where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Repair {
    /// ```` ```json ... ``` ```` around the value.
    CodeFence,
    /// A comma before `}` or `]`.
    TrailingCommas,
    /// `//` and `/* */` comments between tokens.
    Comments,
    /// `'...'` strings and keys.
    SingleQuotes,
    /// `{name: 1}`.
    UnquotedKeys,
    /// `True`, `False`, `None` as bare values.
    PythonLiterals,
    /// `“...”` and `‘...’` used as JSON quotes.
    CurlyQuotes,
    /// Raw newlines, tabs and other control characters inside a string.
    RawControlCharacters,
    /// Two members or items with no comma between them.
    MissingCommas,
    /// An escape JSON does not have (`\d`, `\'`, a lone surrogate).
    InvalidEscapes,
    /// A double quote inside a double-quoted string, not escaped (`"the "Gemini" song"`).
    InnerQuotes,
    /// A closer of the other kind (`["a", "b"}`): it closes the containers down to the
    /// one it matches, as the balanced scanner reads it.
    MismatchedClosers,
    /// `{"a": 1}, "b": 2}`: the object closed before its last members, which follow.
    EarlyClose,
    /// Invisible characters (U+200B, U+200C, U+200D, U+2060, U+FEFF) between tokens
    /// (docs/spec.md §9.3).
    InvisibleCharacters,
}

impl Repair {
    /// The short phrase naming the fix, as it appears in [`super::Lenient::repairs`].
    pub fn phrase(self) -> &'static str {
        match self {
            Repair::CodeFence => "removed code fence",
            Repair::TrailingCommas => "removed trailing commas",
            Repair::Comments => "removed comments",
            Repair::SingleQuotes => "converted single-quoted strings",
            Repair::UnquotedKeys => "quoted unquoted keys",
            Repair::PythonLiterals => "converted Python literals True/False/None",
            Repair::CurlyQuotes => "converted curly quotes",
            Repair::RawControlCharacters => "escaped raw newlines/tabs inside strings",
            Repair::MissingCommas => "inserted missing commas",
            Repair::InvalidEscapes => "fixed invalid escapes",
            Repair::InnerQuotes => "escaped double quotes inside strings",
            Repair::MismatchedClosers => {
                "closed brackets left open before a closer of the other kind"
            }
            Repair::EarlyClose => "kept the members written after the object closed too early",
            Repair::InvisibleCharacters => "removed invisible characters between tokens",
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// The categories applied so far, in the order they were first met (so the warnings
/// read in the order of the text).
#[derive(Debug, Default)]
pub(super) struct RepairSet {
    seen: u16,
    order: Vec<Repair>,
}

impl RepairSet {
    /// Records that `repair` was applied; a category already recorded is not repeated.
    pub(super) fn add(&mut self, repair: Repair) {
        if self.seen & repair.bit() == 0 {
            self.seen |= repair.bit();
            self.order.push(repair);
        }
    }

    /// The phrases, one per category, in first-met order.
    pub(super) fn phrases(&self) -> Vec<String> {
        self.order.iter().map(|r| r.phrase().to_string()).collect()
    }
}
