//! The message that tells a model what to fix (SelfHelp's feedback, made specific).

use crate::error::{ErrorKind, PayloadError};
use std::fmt::Write;

/// How many errors are listed before the rest are summarized: a model fixes a short,
/// specific list better than a long one, and the first errors are usually the causes.
const MAX_LISTED: usize = 20;

/// One message naming every problem in `errors` and how to fix it, for the model's next
/// attempt. Empty when there are no errors.
pub fn reprompt_message(errors: &[PayloadError]) -> String {
    if errors.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "Your previous response did not match the required format. \
         Fix these problems and send the complete response again, in the same format:\n",
    );
    for (n, error) in errors.iter().take(MAX_LISTED).enumerate() {
        let _ = write!(out, "{}. ", n + 1);
        out.push_str(&describe(error));
        out.push('\n');
    }
    if errors.len() > MAX_LISTED {
        let _ = writeln!(
            out,
            "... and {} more problems of the same kinds.",
            errors.len() - MAX_LISTED
        );
    }
    if errors.iter().any(|e| e.kind() == ErrorKind::Unclosed) {
        out.push_str(
            "Close every object, array and string of a block before writing anything after it; \
             if you start a block again, write it whole.\n",
        );
    }
    if errors.iter().any(|e| e.kind() == ErrorKind::Parsing) {
        out.push_str(
            "Write strict JSON: double-quoted keys and strings, no comments, no trailing commas.\n",
        );
    }
    if errors.iter().any(|e| e.kind() == ErrorKind::Truncated) {
        out.push_str("Your response was cut off: keep it shorter so that it ends complete.\n");
    }
    out
}

/// One error as a sentence: where, what, what was expected, how to fix it.
pub(crate) fn describe(error: &PayloadError) -> String {
    let mut text = String::new();
    if !error.path().is_empty() {
        let _ = write!(text, "At {}: ", error.path());
    }
    text.push_str(error.message());
    if let Some(location) = error.location() {
        let _ = write!(
            text,
            " (line {}, column {})",
            location.line, location.column
        );
    }
    text.push('.');
    if let (Some(received), ErrorKind::Validation) = (&error.received(), error.kind()) {
        let shown = received.to_string();
        if shown.chars().count() <= 80 && !error.message().contains(&shown) {
            let _ = write!(text, " You wrote {shown}.");
        }
    }
    if let Some(expected) = &error.expected() {
        let _ = write!(text, " Expected: {expected}.");
    }
    if let Some(suggestion) = &error.suggestion() {
        let mut chars = suggestion.chars();
        if let Some(first) = chars.next() {
            let _ = write!(text, " Fix: {}{}.", first.to_uppercase(), chars.as_str());
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_is_named_with_its_fix() {
        let errors = vec![
            PayloadError::missing("/safety", "required member 'safety' is missing")
                .with_suggestion("add \"safety\" (object)"),
            PayloadError::validation("/metadata/confidence", "exceeds the maximum of 1")
                .with_received(1.2)
                .with_expected("number between 0 and 1")
                .with_suggestion("use a decimal between 0 and 1, e.g. 0.85"),
        ];
        let message = reprompt_message(&errors);
        assert!(message.contains("1. At /safety: required member 'safety' is missing."));
        assert!(message.contains("Fix: Add \"safety\" (object)."));
        assert!(message.contains("2. At /metadata/confidence"));
        assert!(message.contains("Expected: number between 0 and 1."));
        assert!(message.contains("You wrote 1.2"));
    }

    #[test]
    fn no_errors_no_message() {
        assert_eq!(reprompt_message(&[]), "");
    }
}
