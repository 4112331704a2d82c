//! The contacts bridge's example commands (each with the request it answers) and its
//! anti-patterns, kept as the model would write them.

use crate::ContactsCommand;

/// Every valid example of the seed: (user request, command JSON).
pub const VALID: [(&str, &str); 16] = [
    (
        "Show me all my contacts",
        r#"{"intent": "search", "parameters": {"entity_type": "contacts"}}"#,
    ),
    (
        "Find tech people in SF",
        r#"{"intent": "search", "parameters": {"entity_type": "contacts", "filters": {"tags": ["tech"], "location": "San Francisco"}}}"#,
    ),
    (
        "Contacts I met in 2024",
        r#"{"intent": "search", "parameters": {"entity_type": "contacts", "filters": {"date_range": {"start": "2024-01-01", "end": "2024-12-31"}}}}"#,
    ),
    (
        "Just the ones in Oakland",
        r#"{"intent": "refine", "parameters": {"operation": "add_filter", "filter_type": "location", "filter_value": "Oakland"}}"#,
    ),
    (
        "Ignore location",
        r#"{"intent": "refine", "parameters": {"operation": "remove_filter", "filter_type": "location"}}"#,
    ),
    (
        "Only colleagues",
        r#"{"intent": "refine", "parameters": {"operation": "add_filter", "filter_type": "tags", "filter_value": "colleague"}}"#,
    ),
    (
        "Select 1, 2, 3",
        r#"{"intent": "select", "parameters": {"selection_type": "ids", "selection_value": [1, 2, 3]}}"#,
    ),
    (
        "Select the first 5",
        r#"{"intent": "select", "parameters": {"selection_type": "range", "selection_value": {"start": 1, "end": 5}}}"#,
    ),
    (
        "Select all",
        r#"{"intent": "select", "parameters": {"selection_type": "all", "selection_value": null}}"#,
    ),
    (
        "Select everyone in SF from that list",
        r#"{"intent": "select", "parameters": {"selection_type": "filter", "selection_value": {"location": "San Francisco"}}}"#,
    ),
    (
        "Export to json",
        r#"{"intent": "export", "parameters": {"format": "json", "scope": "all"}}"#,
    ),
    (
        "Export selected for directory maker",
        r#"{"intent": "export", "parameters": {"format": "directory", "scope": "selected", "include_images": true}}"#,
    ),
    (
        "Save as csv to /tmp/contacts.csv",
        r#"{"intent": "export", "parameters": {"format": "csv", "scope": "all", "destination": "/tmp/contacts.csv"}}"#,
    ),
    (
        "Show me details for #3",
        r#"{"intent": "view_details", "parameters": {"item_ids": [3], "include_relationships": true, "include_notes": true}}"#,
    ),
    (
        "Show full details for 1, 2, and 5",
        r#"{"intent": "view_details", "parameters": {"item_ids": [1, 2, 5], "include_relationships": true, "include_notes": true, "include_history": true}}"#,
    ),
    (
        "Find them",
        r#"{"intent": "error", "parameters": {"error_type": "missing_info", "message": "I need more details. Who would you like to find?", "suggestions": ["Try: 'find tech contacts'", "Try: 'show me everyone in SF'"]}}"#,
    ),
];

/// The seed's anti-patterns: (user request, command JSON, the path an error must be at).
pub const ANTI_PATTERNS: [(&str, &str, &str); 5] = [
    (
        "Find everyone from the Python meetup",
        r#"{"intent": "search", "parameters": {"entity_type": "contacts", "filters": {"tags": ["john_smith"]}}}"#,
        "/parameters/filters/tags/0",
    ),
    (
        "Export everything as a nice pdf",
        r#"{"intent": "export", "parameters": {"format": "pdf", "fancy_styling": true}}"#,
        "/parameters/format",
    ),
    (
        "Export everything as a nice pdf",
        r#"{"intent": "export", "parameters": {"format": "pdf", "fancy_styling": true}}"#,
        "/parameters/fancy_styling",
    ),
    (
        "Select 1, 2, 3",
        r#"{"intent": "select", "parameters": {"selection_type": "ids", "selection_value": [1, 2, 3], "from_previous_search": "tech contacts"}}"#,
        "/parameters/from_previous_search",
    ),
    (
        "Find tech people in SF",
        r#"{"intent": "search", "parameters": {"entity_type": "contacts", "filters": {"tags": ["tech"], "location": "San Francisco"}, "metadata": {"user_query": "find tech people in SF", "timestamp": "2024-01-01T12:00:00Z"}}}"#,
        "/parameters/metadata",
    ),
];

/// "Find tech people in SF".
pub fn find_tech_people_in_sf() -> ContactsCommand {
    serde_json::from_str(VALID[1].1).expect("the seed's example is a valid command")
}
