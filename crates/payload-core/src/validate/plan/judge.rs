//! The plan's verdict beside what it stands for, for the property tests and the fuzz
//! targets that hold the plan to it (`payload_core::__internals::plan`).

use super::verdict::Verdict;
use crate::caps::{Capped, MAX_ERRORS};
use crate::validate::compiled::CompiledSchema;
use crate::validate::walk;
use serde_json::Value;

/// What the plan, the validator and the walk after validation each say of one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judged {
    /// The plan's verdict.
    pub verdict: Verdict,
    /// Whether the `jsonschema` validator accepts the value.
    pub valid: bool,
    /// Whether the walk after validation reports or rewrites anything (an undeclared
    /// member, an integer-valued float, a number a field cannot hold).
    pub walk_reports: bool,
}

impl Judged {
    /// Whether the verdict holds: clean only when valid with nothing to report,
    /// invalid only when the validator refuses, a report only when the validator
    /// refuses or the walk reports.
    pub fn agrees(&self) -> bool {
        match self.verdict {
            Verdict::Clean => self.valid && !self.walk_reports,
            Verdict::Invalid => !self.valid,
            Verdict::Report => !self.valid || self.walk_reports,
            Verdict::Unsure => true,
        }
    }
}

/// Judges `value` against `compiled` (as it is checked, without `strict_nulls`).
pub(crate) fn judge(compiled: &CompiledSchema, value: &Value) -> Judged {
    let mut walked = value.clone();
    let (mut errors, mut rewrites, mut warnings) =
        (Capped::errors(), Capped::warnings(), Capped::warnings());
    let unknowns = walk::walk(
        &mut walked,
        compiled.schema(),
        &mut errors,
        &mut rewrites,
        &mut warnings,
        MAX_ERRORS,
    );
    Judged {
        verdict: compiled.verdict(value),
        valid: compiled.is_valid(value),
        walk_reports: !errors.is_empty()
            || !rewrites.is_empty()
            || !warnings.is_empty()
            || !unknowns.near.is_empty()
            || unknowns.omitted > 0,
    }
}
