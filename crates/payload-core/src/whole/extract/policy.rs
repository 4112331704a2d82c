//! A type's `x-parsing` policy (`crate::policy`) applied to a whole-response
//! result: unknown members, missing required members and partial data handled as the
//! policy states (docs/spec.md §4).

use super::result::ExtractResult;
use crate::error::{ErrorKind, PayloadError};
use crate::policy::{Additional, ParsingPolicy, Required};
use crate::warning::{Warning, WarningKind};

/// The result as `policy` reports it: unknown members, missing required members
/// and partial data handled as stated.
pub(crate) fn finish(policy: &ParsingPolicy, mut result: ExtractResult) -> ExtractResult {
    if *policy == ParsingPolicy::default() {
        return result;
    }
    match policy.additional {
        Additional::Warn => {}
        Additional::Allow => result
            .warnings
            .retain(|w| w.kind != WarningKind::UnknownMember),
        Additional::Error => {
            let (unknown, kept): (Vec<Warning>, Vec<Warning>) =
                std::mem::take(&mut result.warnings)
                    .into_iter()
                    .partition(|w| w.kind == WarningKind::UnknownMember);
            result.warnings = kept;
            if !unknown.is_empty() {
                if result.success {
                    result.success = false;
                    result.partial_data = result.data.take();
                    result.clear_typed();
                }
                result.errors.extend(unknown.into_iter().map(|w| {
                    PayloadError::validation("", w.message)
                        .with_suggestion("use only the members the schema declares")
                }));
            }
        }
    }
    if policy.required != Required::Error && !result.success {
        let (missing, others): (Vec<PayloadError>, Vec<PayloadError>) =
            std::mem::take(&mut result.errors)
                .into_iter()
                .partition(|e| e.kind() == ErrorKind::Missing);
        result.errors = others;
        if policy.required == Required::Warn {
            result.warnings.extend(missing.iter().map(|e| {
                Warning::new(
                    WarningKind::MissingMember,
                    format!("{}: {}", e.path(), e.message()),
                )
            }));
        }
        if result.errors.is_empty() && !missing.is_empty() && result.partial_data.is_some() {
            result.success = true;
            result.data = result.partial_data.take();
        }
    }
    if !policy.partial && !result.success {
        result.partial_data = None;
    }
    result
}
