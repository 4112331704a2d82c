//! The contacts bridge's intent-specific rules that the schema cannot state, and a grounding check
//! against the user's request.

use crate::{
    Command, ContactsCommand, FilterType, Filters, RefineOperation, RefineParams, SearchParams,
    SelectParams, SelectionType,
};
use payload_core::{LlmPayload, PayloadError};
use serde_json::Value;

/// Every violation of the intent-specific rules (empty when there is none): the rules
/// each intent declares on its variant of [`Command`], at paths from the command's root.
pub fn check(command: &ContactsCommand) -> Vec<PayloadError> {
    LlmPayload::check(&command.command)
}

/// `search`'s rules; paths are inside `parameters`.
pub fn search(search: &SearchParams) -> Vec<PayloadError> {
    let mut errors = Vec::new();
    if let Some(filters) = &search.filters {
        check_filters(filters, "/filters", &mut errors);
    }
    errors
}

/// `refine`'s rules: `filter_value` is required for `add_filter` and has the filter's
/// type.
pub fn refine(refine: &RefineParams) -> Vec<PayloadError> {
    let mut errors = Vec::new();
    let at = "/filter_value";
    match (&refine.filter_value, refine.operation) {
        (None | Some(Value::Null), RefineOperation::AddFilter) => errors.push(
            PayloadError::missing(at, "filter_value is required for add_filter")
                .with_expected(filter_value_shape(refine.filter_type))
                .with_suggestion(format!(
                    "add \"filter_value\" ({})",
                    filter_value_shape(refine.filter_type)
                )),
        ),
        (Some(value), _) if !value.is_null() => {
            check_filter_value(refine.filter_type, value, at, &mut errors)
        }
        _ => {}
    }
    errors
}

/// `select`'s rule: `selection_value` matches `selection_type`.
pub fn select(select: &SelectParams) -> Vec<PayloadError> {
    let mut errors = Vec::new();
    check_selection(select.selection_type, &select.selection_value, &mut errors);
    errors
}

fn filter_value_shape(filter: FilterType) -> &'static str {
    match filter {
        FilterType::Tags => "a tag string or an array of tag strings",
        FilterType::Location | FilterType::NameContains => "a non-empty string",
        FilterType::DateRange => "{\"start\": \"YYYY-MM-DD\", \"end\": \"YYYY-MM-DD\"}",
        FilterType::HasEmail | FilterType::HasPhone => "true or false",
        FilterType::CustomField => "{\"field\": \"...\", \"value\": \"...\"}",
    }
}

fn check_filter_value(filter: FilterType, value: &Value, at: &str, errors: &mut Vec<PayloadError>) {
    let ok = match filter {
        FilterType::Tags => match value {
            Value::String(s) => !s.trim().is_empty(),
            Value::Array(items) => {
                !items.is_empty()
                    && items
                        .iter()
                        .all(|i| i.as_str().is_some_and(|s| !s.trim().is_empty()))
            }
            _ => false,
        },
        FilterType::Location | FilterType::NameContains => {
            value.as_str().is_some_and(|s| !s.trim().is_empty())
        }
        FilterType::HasEmail | FilterType::HasPhone => value.is_boolean(),
        FilterType::DateRange => {
            let mut sub = Vec::new();
            check_date_range(value, at, &mut sub);
            let ok = sub.is_empty();
            errors.extend(sub);
            return debug_assert!(ok || !errors.is_empty());
        }
        FilterType::CustomField => value.as_object().is_some_and(|o| {
            o.len() == 2
                && ["field", "value"].iter().all(|k| {
                    o.get(*k)
                        .and_then(Value::as_str)
                        .is_some_and(|s| !s.is_empty())
                })
        }),
    };
    if !ok {
        errors.push(
            PayloadError::validation(
                at,
                format!(
                    "filter_value does not fit filter_type '{}'",
                    filter_name(filter)
                ),
            )
            .with_received(value.clone())
            .with_expected(filter_value_shape(filter))
            .with_suggestion(format!("write {}", filter_value_shape(filter))),
        );
    }
}

fn filter_name(filter: FilterType) -> String {
    serde_json::to_value(filter)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn check_filters(filters: &Filters, at: &str, errors: &mut Vec<PayloadError>) {
    if let Some(tags) = &filters.tags {
        for (i, tag) in tags.iter().enumerate() {
            if tag.trim().is_empty() {
                errors.push(PayloadError::validation(
                    format!("{at}/tags/{i}"),
                    "tags must be non-empty strings",
                ));
            }
        }
    }
    if let Some(range) = &filters.date_range {
        let value = serde_json::to_value(range).unwrap_or(Value::Null);
        check_date_range(&value, &format!("{at}/date_range"), errors);
    }
}

fn check_date_range(value: &Value, at: &str, errors: &mut Vec<PayloadError>) {
    let Some(range) = value.as_object() else {
        errors.push(
            PayloadError::validation(at, "a date range is an object")
                .with_received(value.clone())
                .with_expected("{\"start\": \"YYYY-MM-DD\", \"end\": \"YYYY-MM-DD\"}"),
        );
        return;
    };
    let mut dates = [None, None];
    for (slot, key) in ["start", "end"].iter().enumerate() {
        match range.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if is_iso_date(s) => dates[slot] = Some(s.as_str()),
            Some(other) => errors.push(
                PayloadError::validation(
                    format!("{at}/{key}"),
                    format!("{key} is not an ISO date"),
                )
                .with_received(other.clone())
                .with_expected("a date as YYYY-MM-DD")
                .with_suggestion("write dates as YYYY-MM-DD, e.g. 2024-01-31"),
            ),
        }
    }
    for key in range.keys().filter(|k| *k != "start" && *k != "end") {
        errors.push(
            PayloadError::validation(format!("{at}/{key}"), format!("unknown member '{key}'"))
                .with_suggestion("a date range has only start and end"),
        );
    }
    if range.is_empty() {
        errors.push(
            PayloadError::validation(at, "a date range needs start or end")
                .with_suggestion("give \"start\", \"end\" or both"),
        );
    }
    if let [Some(start), Some(end)] = dates {
        if start > end {
            errors.push(
                PayloadError::validation(
                    format!("{at}/end"),
                    format!("the range ends ({end}) before it starts ({start})"),
                )
                .with_suggestion("put the earlier date in start"),
            );
        }
    }
}

/// `YYYY-MM-DD` with a real month and day.
pub fn is_iso_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = &text[range];
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn check_selection(kind: SelectionType, value: &Value, errors: &mut Vec<PayloadError>) {
    let at = "/selection_value";
    let (ok, expected) = match kind {
        SelectionType::Ids => (
            value.as_array().is_some_and(|ids| {
                !ids.is_empty() && ids.iter().all(|id| id.as_u64().is_some_and(|n| n >= 1))
            }),
            "a non-empty array of positive integers, e.g. [1, 2, 5]",
        ),
        SelectionType::Range => {
            let ok = value.as_object().is_some_and(|range| {
                let start = range.get("start").and_then(Value::as_u64);
                let end = range.get("end").and_then(Value::as_u64);
                range.len() == 2 && matches!((start, end), (Some(s), Some(e)) if s >= 1 && s <= e)
            });
            (ok, "{\"start\": 1, \"end\": 10} with 1 <= start <= end")
        }
        SelectionType::All | SelectionType::None => (value.is_null(), "null"),
        SelectionType::Filter => {
            let ok = value.as_object().is_some_and(|o| !o.is_empty())
                && serde_json::from_value::<Filters>(value.clone()).is_ok();
            (
                ok,
                "a filter object such as {\"location\": \"San Francisco\"}",
            )
        }
    };
    if !ok {
        let name = serde_json::to_value(kind).unwrap_or(Value::Null);
        errors.push(
            PayloadError::validation(
                at,
                format!("selection_value does not match selection_type {name}"),
            )
            .with_received(value.clone())
            .with_expected(expected)
            .with_suggestion(format!("for selection_type {name} write {expected}")),
        );
    }
}

/// Values the model put in a command that the user's request never mentions (the
/// seed's "don't hallucinate data"): tags, locations, names and custom values must
/// appear in the request, ignoring case and separators. The schema cannot know the
/// request, so this is a separate check the app runs with it.
pub fn ungrounded(command: &ContactsCommand, request: &str) -> Vec<PayloadError> {
    let folded_request = fold(request);
    let mut errors = Vec::new();
    let mut expect = |path: String, value: &str| {
        if !folded_request.contains(&fold(value)) {
            errors.push(
                PayloadError::validation(
                    path,
                    format!("'{value}' does not appear in the user's request"),
                )
                .with_received(value.to_string())
                .with_suggestion(
                    "use only values the user mentioned; do not make up tags, names or places",
                ),
            );
        }
    };
    let filters = match &command.command {
        Command::Search(search) => search
            .filters
            .as_ref()
            .map(|f| (f, "/parameters/filters".to_string())),
        _ => None,
    };
    if let Some((filters, at)) = filters {
        for (i, tag) in filters.tags.iter().flatten().enumerate() {
            expect(format!("{at}/tags/{i}"), tag);
        }
        if let Some(location) = &filters.location {
            expect(format!("{at}/location"), location);
        }
        if let Some(name) = &filters.name_contains {
            expect(format!("{at}/name_contains"), name);
        }
    }
    if let Command::Refine(refine) = &command.command {
        if let Some(Value::String(value)) = &refine.filter_value {
            expect("/parameters/filter_value".into(), value);
        }
    }
    errors
}

fn fold(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// `search contacts (tags, location)`, `select ids`, `error: missing_info`.
pub fn summary(command: &ContactsCommand) -> String {
    match &command.command {
        Command::Search(search) => {
            let value = serde_json::to_value(&search.filters).unwrap_or(Value::Null);
            let names: Vec<&str> = value
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            format!("search {:?} ({})", search.entity_type, names.join(", ")).to_lowercase()
        }
        Command::Refine(refine) => format!(
            "refine: {:?} {}",
            refine.operation,
            filter_name(refine.filter_type)
        )
        .to_lowercase(),
        Command::Select(select) => format!("select {:?}", select.selection_type).to_lowercase(),
        Command::Export(export) => {
            format!("export {:?} as {:?}", export.scope, export.format).to_lowercase()
        }
        Command::ViewDetails(view) => format!("view details of {} items", view.item_ids.len()),
        Command::Error(error) => format!("error: {:?}", error.error_type).to_lowercase(),
    }
}
