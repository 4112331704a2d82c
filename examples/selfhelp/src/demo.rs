//! The retry loop with a scripted model that answers wrongly twice and rightly the third
//! time, as SelfHelp describes: each failed attempt is answered with feedback naming
//! every error.

use crate::SelfHelpResponse;
use payload_core::{LlmPayload, PayloadType, extract_json};
use payload_core::{retry::RetryOutcome, retry::RetryPolicy, retry::RetryRequest, retry::retry};
use std::convert::Infallible;

/// What the scripted model answers, attempt by attempt: plain text, then JSON with
/// string suggestions and no safety object, then a valid response.
pub const SCRIPT: [&str; 3] = [
    "Sure! Breathing exercises are a great place to start. Try breathing in for 4 counts, holding for 4 and out for 4.",
    r#"```json
{
  "type": "response",
  "content": {
    "text_blocks": [{"type": "text", "content": "Try box breathing: in for 4, hold for 4, out for 4."}],
    "suggestions": ["Show me another exercise", "I feel calmer"]
  },
  "metadata": {"model": "scripted-model", "confidence": 1.4}
}
```"#,
    r#"{
  "type": "response",
  "safety": {"is_safe": true, "danger_level": null, "detected_concerns": [], "requires_intervention": false, "safety_message": null},
  "content": {
    "text_blocks": [{"type": "text", "content": "Try box breathing: in for 4, hold for 4, out for 4."}],
    "suggestions": [{"text": "Show me another exercise"}, {"text": "I feel calmer"}]
  },
  "metadata": {"model": "scripted-model", "confidence": 0.9, "language": "en"}
}"#,
];

/// Runs the retry loop over [`SCRIPT`] with no delay, recording each request, against
/// the compiled-in type.
pub fn run() -> (RetryOutcome<Infallible>, Vec<RetryRequest>) {
    run_with(&<SelfHelpResponse as LlmPayload>::TYPE)
}

/// [`run`] against `payload` (the type loaded from the schema file, say).
pub fn run_with(payload: &PayloadType) -> (RetryOutcome<Infallible>, Vec<RetryRequest>) {
    let mut requests = Vec::new();
    let policy = RetryPolicy {
        delay: std::time::Duration::ZERO,
        ..RetryPolicy::default()
    };
    let outcome = retry(
        policy,
        |request: &RetryRequest| {
            requests.push(request.clone());
            Ok::<_, Infallible>(SCRIPT[(request.attempt - 1).min(SCRIPT.len() - 1)].to_string())
        },
        |response| extract_json(response, payload),
    );
    (outcome, requests)
}
