//! Running every recorded response through whole-response extraction and through
//! strict parsing, and counting the outcomes.

use crate::types::*;
use payload_core::{ErrorKind, LlmPayload, PayloadType, WarningKind, extract_json};
use serde_json::Value;
use std::collections::BTreeMap;

/// What happened to one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Accepted as written.
    Clean,
    /// Accepted after repairs or coercions (each reported as a warning).
    Fixed,
    /// Rejected; the kind of its first error.
    Rejected(ErrorKind),
}

/// Counts of outcomes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Responses seen.
    pub total: usize,
    /// Accepted as written.
    pub clean: usize,
    /// Accepted after repairs or coercions.
    pub fixed: usize,
    /// Rejected, by the kind of the first error.
    pub rejected: BTreeMap<String, usize>,
}

impl Tally {
    /// Counts one outcome.
    pub fn add(&mut self, outcome: Outcome) {
        self.total += 1;
        match outcome {
            Outcome::Clean => self.clean += 1,
            Outcome::Fixed => self.fixed += 1,
            Outcome::Rejected(kind) => *self.rejected.entry(kind.to_string()).or_default() += 1,
        }
    }

    /// Accepted in all.
    pub fn accepted(&self) -> usize {
        self.clean + self.fixed
    }
}

/// The payload type a benchmark `test_name` asks for.
pub fn type_for_test(test_name: &str) -> Option<PayloadType> {
    Some(match test_name {
        "GenerateAnswer" => GenerateAnswer::TYPE,
        "RateContext" => RateContext::TYPE,
        "AssessAnswerability" => AssessAnswerability::TYPE,
        "ParaphraseQuestions" => ParaphraseQuestions::TYPE,
        "RAGAS" => Ragas::TYPE,
        "GenerateAnswerWithConfidence" => GenerateAnswerWithConfidence::TYPE,
        "GenerateAnswersWithConfidence" => GenerateAnswersWithConfidence::TYPE,
        "ClassifyDocumentWithRationale" => ClassifyDocumentWithRationale::TYPE,
        _ => return None,
    })
}

/// Whole-response extraction of one response.
pub fn extracted(response: &str, payload: &PayloadType) -> Outcome {
    let result = extract_json(response, payload);
    if result.success {
        let fixed = result
            .warnings
            .iter()
            .any(|w| matches!(w.kind, WarningKind::Repaired | WarningKind::Coerced));
        if fixed {
            Outcome::Fixed
        } else {
            Outcome::Clean
        }
    } else {
        Outcome::Rejected(
            result
                .errors
                .first()
                .map_or(ErrorKind::Parsing, |e| e.kind()),
        )
    }
}

/// Strict parsing of one response: serde_json on the whole text, then validation.
pub fn strict(response: &str, payload: &PayloadType) -> Outcome {
    match serde_json::from_str::<Value>(response) {
        Err(_) => Outcome::Rejected(ErrorKind::Parsing),
        Ok(value) => match payload.validate(&value) {
            Ok(()) => Outcome::Clean,
            Err(errors) => Outcome::Rejected(errors[0].kind()),
        },
    }
}

/// One benchmark file's responses with their payload type, or `None` when the file is
/// not a benchmark result this evaluation knows.
pub fn responses_of(json: &str) -> Option<(PayloadType, Vec<String>)> {
    let file: Value = serde_json::from_str(json).ok()?;
    let payload = type_for_test(file.get("test_name")?.as_str()?)?;
    let responses = file
        .get("all_responses")?
        .as_array()?
        .iter()
        .filter_map(|r| Some(r.get("response")?.as_str()?.to_string()))
        .collect();
    Some((payload, responses))
}

/// One benchmark file's responses: (model name, [(extracted, strict)]), or `None` when
/// the file is not a benchmark result this evaluation knows.
pub fn evaluate_file(json: &str) -> Option<(String, Vec<(Outcome, Outcome)>)> {
    let file: Value = serde_json::from_str(json).ok()?;
    let payload = type_for_test(file.get("test_name")?.as_str()?)?;
    let model = file.get("model_name")?.as_str()?.to_string();
    let outcomes = file
        .get("all_responses")?
        .as_array()?
        .iter()
        .filter_map(|r| r.get("response")?.as_str())
        .map(|response| (extracted(response, &payload), strict(response, &payload)))
        .collect();
    Some((model, outcomes))
}
