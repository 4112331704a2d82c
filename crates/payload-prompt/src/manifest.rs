//! The payload manifest (prompt section 5, table.that): one line per payload proposed
//! earlier in the conversation, with what the user did with it, so the model knows what
//! it already proposed and does not propose it again.
//!
//! Each line is the type's own summary ([`payload_core::PayloadType::summarize`]); a
//! payload of a type this registry does not know (a tool's payload, say) or whose data
//! no longer decodes gets core's [`default_summary`].

use crate::ManifestEntry;
use payload_core::CustomPayload;
use payload_core::default_summary;
use payload_registry::Registry;

/// How many entries the manifest lists: the most recent ones, with the count of the
/// older ones left out, so that a long conversation cannot grow the prompt without bound.
pub const MAX_MANIFEST_ENTRIES: usize = 30;
/// How long one summary may be: summaries quote what the model wrote, which may be long.
pub const MAX_SUMMARY_CHARS: usize = 160;

/// The one-line summary of `payload`: its type's summarizer when the registry knows the
/// type and the data decodes, else [`default_summary`]. Always one line of at most
/// [`MAX_SUMMARY_CHARS`] characters.
pub fn summarize(registry: &Registry, payload: &CustomPayload) -> String {
    let summary = registry
        .payload_type(&payload.kind)
        .and_then(|t| t.summarize(payload))
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| default_summary(&payload.kind, payload.data()));
    one_line(&summary, MAX_SUMMARY_CHARS)
}

/// The manifest section's text for `entries` (oldest first), or an empty string when
/// there are none (the section is then left out of the prompt).
pub fn render(registry: &Registry, entries: &[ManifestEntry]) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let skipped = entries.len().saturating_sub(MAX_MANIFEST_ENTRIES);
    let mut out = String::from(
        "Payloads already given in this conversation, oldest first. Do not propose again \
         what was accepted or is still waiting for the user; if something was dismissed, \
         ask what to change instead of repeating it.\n",
    );
    if skipped > 0 {
        out.push_str(&format!("- ({skipped} earlier payloads not listed)\n"));
    }
    for entry in &entries[skipped..] {
        out.push_str(&format!(
            "- turn {}: {} [{}] {}\n",
            entry.turn,
            crate::data::name(&one_line(&entry.payload.kind, 64)),
            entry.status,
            // The summary quotes what the model wrote: data, by the one rule.
            crate::data::quote(&summarize(registry, &entry.payload))
        ));
    }
    out.truncate(out.trim_end().len());
    out
}

/// `text` on one line (whitespace runs become one space), cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, word) in text.split_whitespace().enumerate() {
        if count > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > max * 4 {
            break;
        }
    }
    if out.chars().count() > max {
        let cut: String = out.chars().take(max - 1).collect();
        format!("{cut}…")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PayloadStatus;
    use serde_json::json;

    fn empty() -> Registry {
        Registry::from_parts(Vec::new(), Vec::new(), Vec::new())
    }

    #[test]
    fn unknown_types_fall_back_to_the_default_summary() {
        let payload = CustomPayload::new(
            "search_results",
            json!({"query": "flights to Lisbon", "results": [1, 2, 3]}),
        );
        assert_eq!(
            summarize(&empty(), &payload),
            "search_results (query: flights to Lisbon, results: 3 items)"
        );
    }

    #[test]
    fn lines_carry_turn_type_status_and_summary() {
        let entries = [
            ManifestEntry::new(
                2,
                CustomPayload::new("chart", json!({"title": "Sales\nby month"})),
                PayloadStatus::Accepted,
            ),
            ManifestEntry::new(
                5,
                CustomPayload::new("chart", json!({"title": "Costs"})),
                PayloadStatus::Dismissed,
            ),
        ];
        let text = render(&empty(), &entries);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[1],
            "- turn 2: chart [accepted] \"chart (title: Sales by month)\""
        );
        assert_eq!(
            lines[2],
            "- turn 5: chart [dismissed] \"chart (title: Costs)\""
        );
        assert_eq!(render(&empty(), &[]), "");
    }

    #[test]
    fn long_histories_keep_the_most_recent_entries() {
        let entries: Vec<ManifestEntry> = (0..MAX_MANIFEST_ENTRIES + 7)
            .map(|turn| {
                ManifestEntry::new(
                    turn,
                    CustomPayload::new("note", json!({"text": "x".repeat(10_000)})),
                    PayloadStatus::Proposed,
                )
            })
            .collect();
        let text = render(&empty(), &entries);
        assert!(text.contains("- (7 earlier payloads not listed)\n- turn 7: "));
        assert!(text.ends_with(&format!(
            "- turn {}: note [proposed] \"note (text: {}…)\"",
            MAX_MANIFEST_ENTRIES + 6,
            "x".repeat(39)
        )));
        assert!(text.lines().all(|line| line.chars().count() < 400));
    }

    #[test]
    fn statuses_serialize_lowercase() {
        let entry = ManifestEntry::new(
            1,
            CustomPayload::new("a", json!({})),
            PayloadStatus::Proposed,
        );
        let value = serde_json::to_value(&entry).unwrap();
        assert_eq!(
            value,
            json!({"turn": 1, "payload": {"type": "a", "data": {}}, "status": "proposed"})
        );
    }
}
