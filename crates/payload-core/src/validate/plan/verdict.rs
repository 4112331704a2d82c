//! What running a plan on a value says: a file below the plan and its runs, which
//! both name it.

/// What the plan says about a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Valid under the schema, and nothing for the walk after validation to do.
    Clean,
    /// Refused by the schema.
    Invalid,
    /// Refused by the schema, or something for the walk to report or rewrite.
    Report,
    /// The plan cannot tell (a keyword or a union it does not compile, past its
    /// limits).
    Unsure,
}
