//! The contacts bridge's command schema as Rust types.

use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A command for the contacts database, produced from the user's request: the intent,
/// its parameters, and optionally the model's confidence and reasoning. When the
/// request cannot be turned into a command, use the `error` intent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "contacts_command",
    marker = "CONTACTS_COMMAND",
    register,
    example = crate::examples::find_tech_people_in_sf,
    check = crate::rules::check,
    rule = "intent is one of search, refine, select, export, view_details, error; parameters hold only that intent's members",
    rule = "never invent fields, tags or values the user did not mention",
    rule = "refine: filter_value is required for add_filter and must have the filter's type",
    rule = "select: selection_value is an array of positive integers for ids, {\"start\", \"end\"} for range, null for all and none, a filter object for filter",
    rule = "dates are ISO YYYY-MM-DD; booleans are true or false, never strings; item ids are positive integers",
    rule = "ambiguous, unsupported or context-free requests get the error intent with error_type and a message",
    summary = crate::rules::summary
)]
#[schemars(extend("unevaluatedProperties" = false))]
pub struct ContactsCommand {
    /// The intent and its parameters.
    #[serde(flatten)]
    pub command: Command,
    /// Confidence in the parse, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
    /// Brief explanation of why this intent was chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
}

/// What the user wants done, with its parameters. Each intent's rules beyond the
/// schema are declared on its variant, and each has one example for the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "intent", content = "parameters", rename_all = "snake_case")]
#[payload(name = "contacts_intent", marker = "CONTACTS_INTENT")]
pub enum Command {
    /// A new search (replaces the current results).
    #[payload(check = crate::rules::search)]
    #[schemars(example = serde_json::json!({"intent": "search", "parameters": {"entity_type": "contacts", "filters": {"tags": ["tech"], "location": "San Francisco"}}}))]
    Search(SearchParams),
    /// Add or remove a filter on the current results.
    #[payload(check = crate::rules::refine)]
    #[schemars(example = serde_json::json!({"intent": "refine", "parameters": {"operation": "add_filter", "filter_type": "location", "filter_value": "Oakland"}}))]
    Refine(RefineParams),
    /// Choose items from the current results.
    #[payload(check = crate::rules::select)]
    #[schemars(example = serde_json::json!({"intent": "select", "parameters": {"selection_type": "range", "selection_value": {"start": 1, "end": 5}}}))]
    Select(SelectParams),
    /// Export selected or all items to a file.
    #[schemars(example = serde_json::json!({"intent": "export", "parameters": {"format": "csv", "scope": "all", "destination": "/tmp/contacts.csv"}}))]
    Export(ExportParams),
    /// Show the full details of items.
    #[schemars(example = serde_json::json!({"intent": "view_details", "parameters": {"item_ids": [3], "include_notes": true}}))]
    ViewDetails(ViewDetailsParams),
    /// The request could not be turned into a command.
    #[schemars(example = serde_json::json!({"intent": "error", "parameters": {"error_type": "missing_info", "message": "Who would you like to find?", "suggestions": ["Try: 'find tech contacts'"]}}))]
    Error(ErrorParams),
}

/// Parameters of `search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// What to search.
    pub entity_type: EntityType,
    /// Filters; omit for everything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Filters>,
    /// Maximum results (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
    /// Sort order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_by: Option<SortBy>,
}

/// What a search looks through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntityType {
    /// People.
    Contacts,
    /// Links between people.
    Relationships,
    /// Notes about people.
    Notes,
}

/// Result order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortBy {
    /// By name.
    Name,
    /// By when the contact was added.
    DateAdded,
    /// By the last contact.
    LastContact,
}

/// Search filters; each is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Filters {
    /// Contacts with these tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<NonEmpty>>,
    /// Location match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub location: Option<String>,
    /// Name substring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub name_contains: Option<String>,
    /// Date range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_range: Option<DateRange>,
    /// Must have an email address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_email: Option<bool>,
    /// Must have a phone number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_phone: Option<bool>,
    /// A custom field match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_field: Option<CustomField>,
}

/// A non-empty string.
pub type NonEmpty = String;

/// A range of dates (ISO YYYY-MM-DD), either end optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateRange {
    /// First day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date"))]
    pub start: Option<String>,
    /// Last day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date"))]
    pub end: Option<String>,
}

/// A custom field that must have a value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomField {
    /// The field's name.
    #[schemars(length(min = 1))]
    pub field: String,
    /// The value it must have.
    #[schemars(length(min = 1))]
    pub value: String,
}

/// Parameters of `refine`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefineParams {
    /// Add or remove a filter.
    pub operation: RefineOperation,
    /// Which filter.
    pub filter_type: FilterType,
    /// The filter's value: required for add_filter, with the filter's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_value: Option<Value>,
}

/// Whether a refinement adds or removes a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefineOperation {
    /// Narrow the results.
    AddFilter,
    /// Widen them again.
    RemoveFilter,
}

/// The filters a refinement can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FilterType {
    /// A tag (string) or tags (array of strings).
    Tags,
    /// A location (string).
    Location,
    /// A name substring (string).
    NameContains,
    /// A date range ({"start", "end"}).
    DateRange,
    /// Must have an email (boolean).
    HasEmail,
    /// Must have a phone (boolean).
    HasPhone,
    /// A custom field ({"field", "value"}).
    CustomField,
}

/// Parameters of `select`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectParams {
    /// How items are chosen.
    pub selection_type: SelectionType,
    /// Depends on selection_type: ids → [1, 2], range → {"start", "end"}, all/none →
    /// null, filter → a filter object.
    #[serde(default)]
    pub selection_value: Value,
    /// Replace the selection (default) or add to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<bool>,
}

/// How a selection picks items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SelectionType {
    /// Specific indices.
    Ids,
    /// A range of indices.
    Range,
    /// Every current result.
    All,
    /// Clear the selection.
    None,
    /// Content-based selection.
    Filter,
}

/// Parameters of `export`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    /// File format.
    pub format: ExportFormat,
    /// What to export.
    pub scope: ExportScope,
    /// File path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub destination: Option<String>,
    /// Include profile images (directory format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_images: Option<bool>,
    /// Include relationship data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_relationships: Option<bool>,
    /// Include notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_notes: Option<bool>,
}

/// Export file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Full JSON export.
    Json,
    /// The HTML directory maker's format.
    Directory,
    /// Flattened CSV.
    Csv,
}

/// What an export covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportScope {
    /// The selected items.
    Selected,
    /// Every current result.
    All,
}

/// Parameters of `view_details`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewDetailsParams {
    /// Indices from the current results (positive, at least one).
    #[schemars(length(min = 1))]
    pub item_ids: Vec<ItemId>,
    /// Show relationships.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_relationships: Option<bool>,
    /// Show notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_notes: Option<bool>,
    /// Show contact history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_history: Option<bool>,
}

/// A positive index into the current results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ItemId(#[schemars(range(min = 1))] pub u64);

/// Parameters of `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorParams {
    /// Why no command could be produced.
    pub error_type: ErrorType,
    /// What the user should be told.
    #[schemars(length(min = 1))]
    pub message: String,
    /// Requests the user could try instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<String>>,
}

/// Why a request could not become a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    /// The query has several interpretations.
    Ambiguous,
    /// The requested action is not supported.
    Unsupported,
    /// More details are needed.
    MissingInfo,
}
