//! SelfHelp's validation rules that a JSON Schema states badly or not at all.

use crate::{DangerLevel, SelfHelpResponse};
use payload_core::PayloadError;
use std::collections::HashMap;

/// Every rule violation of a response (empty when it follows them all).
pub fn check(response: &SelfHelpResponse) -> Vec<PayloadError> {
    let mut errors = Vec::new();
    check_safety(response, &mut errors);
    if let Some(form) = &response.content.form {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (index, field) in form.fields.iter().enumerate() {
            let at = format!("/content/form/fields/{index}");
            if let Some(first) = ids.insert(field.id.as_str(), index) {
                errors.push(
                    PayloadError::validation(
                        format!("{at}/id"),
                        format!("field id '{}' is already used by field {first}", field.id),
                    )
                    .with_received(field.id.clone())
                    .with_suggestion("give every form field a unique id"),
                );
            }
            if field.kind.is_selection() && field.options.as_ref().is_none_or(Vec::is_empty) {
                errors.push(
                    PayloadError::missing(
                        format!("{at}/options"),
                        "radio, checkbox and select fields need a non-empty options array",
                    )
                    .with_expected("array of {\"value\": ..., \"label\": ...}")
                    .with_suggestion("add \"options\": [{\"value\": \"...\", \"label\": \"...\"}]"),
                );
            }
            if field.kind == crate::FieldKind::Scale {
                for (member, value) in [("min", field.min), ("max", field.max)] {
                    if value.is_none() {
                        errors.push(
                            PayloadError::missing(
                                format!("{at}/{member}"),
                                format!("scale fields need \"{member}\""),
                            )
                            .with_expected("number")
                            .with_suggestion(
                                "give the scale's bounds, e.g. \"min\": 1, \"max\": 10",
                            ),
                        );
                    }
                }
            }
            if let (Some(min), Some(max)) = (field.min, field.max) {
                if min >= max {
                    errors.push(
                        PayloadError::validation(
                            format!("{at}/max"),
                            format!("max ({max}) must be greater than min ({min})"),
                        )
                        .with_received(max)
                        .with_suggestion("use min < max, e.g. 1 and 10"),
                    );
                }
            }
        }
    }
    errors
}

fn check_safety(response: &SelfHelpResponse, errors: &mut Vec<PayloadError>) {
    let safety = &response.safety;
    let level = safety.danger_level.as_ref().copied();
    let dangerous = matches!(level, Some(DangerLevel::Critical | DangerLevel::Emergency));
    if safety.is_safe == dangerous {
        errors.push(
            PayloadError::validation(
                "/safety/is_safe",
                if dangerous {
                    "is_safe must be false when danger_level is critical or emergency"
                } else {
                    "is_safe must be true unless danger_level is critical or emergency"
                },
            )
            .with_received(safety.is_safe)
            .with_expected(if dangerous { "false" } else { "true" })
            .with_suggestion("make is_safe and danger_level agree"),
        );
    }
    if level.is_some() && safety.detected_concerns.is_empty() {
        errors.push(
            PayloadError::validation(
                "/safety/detected_concerns",
                "a danger level needs at least one detected concern",
            )
            .with_suggestion("list the concern categories, e.g. [\"self_harm\"]"),
        );
    }
    if dangerous && !safety.requires_intervention {
        errors.push(
            PayloadError::validation(
                "/safety/requires_intervention",
                "critical and emergency levels require intervention",
            )
            .with_received(false)
            .with_expected("true"),
        );
    }
    if dangerous
        && safety
            .safety_message
            .as_deref()
            .is_none_or(|m| m.trim().is_empty())
    {
        errors.push(
            PayloadError::missing(
                "/safety/safety_message",
                "critical and emergency levels need a supportive safety_message",
            )
            .with_suggestion("add a short, supportive safety_message"),
        );
    }
}

/// `"Welcome to Anxiety Management" (safe, 4 suggestions)`.
pub fn summary(response: &SelfHelpResponse) -> String {
    let first = response
        .content
        .text_blocks
        .first()
        .map(|b| b.content.chars().take(40).collect::<String>())
        .unwrap_or_default();
    let safety = match response.safety.danger_level.as_ref() {
        None => "safe".to_string(),
        Some(level) => format!("{level:?}").to_lowercase(),
    };
    let suggestions = response.content.suggestions.as_ref().map_or(0, Vec::len);
    let form = if response.content.form.is_some() {
        ", form"
    } else {
        ""
    };
    format!("\"{first}\" ({safety}, {suggestions} suggestions{form})")
}
