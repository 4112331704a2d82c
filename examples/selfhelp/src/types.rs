//! The response schema of SelfHelp, as Rust types.

use payload_core::LlmPayload;
use payload_core::Nullable;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A SelfHelp chat response: always this JSON object, never plain text. It carries the
/// safety assessment of the user's message, the content to show, optional progress
/// tracking and metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "selfhelp_response",
    marker = "SELFHELP_RESPONSE",
    register,
    example = crate::examples::welcome,
    check = crate::rules::check,
    rule = "always return this JSON object, never plain text",
    rule = "content.text_blocks has at least one block",
    rule = "suggestions are objects with a \"text\" property: {\"text\": \"...\"}; never plain strings, never \"label\", \"name\" or \"title\"",
    rule = "the safety assessment is mandatory; is_safe is false exactly when danger_level is critical or emergency",
    rule = "form field ids are unique; radio, checkbox and select fields need options; scale fields need min and max",
    rule = "answer in the user's language",
    summary = crate::rules::summary
)]
#[serde(deny_unknown_fields)]
pub struct SelfHelpResponse {
    /// Always "response".
    #[serde(rename = "type")]
    pub kind: ResponseKind,
    /// Safety assessment of the user's message.
    pub safety: Safety,
    /// The content to display.
    pub content: Content,
    /// Optional progress tracking.
    #[serde(default)]
    pub progress: Option<Progress>,
    /// Response metadata.
    pub metadata: Metadata,
}

/// The only response kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResponseKind {
    /// A response.
    Response,
}

/// The safety assessment the model makes of every user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Safety {
    /// True if safe; false if danger was detected at critical or emergency level.
    pub is_safe: bool,
    /// Severity: null, warning, critical or emergency.
    pub danger_level: Nullable<DangerLevel>,
    /// Detected concern categories.
    pub detected_concerns: Vec<Concern>,
    /// True if administrators should be notified.
    pub requires_intervention: bool,
    /// A supportive message when danger is detected.
    #[serde(default)]
    pub safety_message: Option<String>,
}

/// How dangerous the user's message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DangerLevel {
    /// Sensitive topics or general distress: logged, conversation continues.
    Warning,
    /// Concerning content, potential risk: administrators are notified.
    Critical,
    /// Imminent danger: the conversation is blocked and crisis resources shown.
    Emergency,
}

/// A category of detected concern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Concern {
    /// Suicidal thoughts, plans or ideation.
    Suicide,
    /// Cutting, burning, self-injury.
    SelfHarm,
    /// Threats or plans to harm others.
    HarmOthers,
    /// Violent acts or intentions.
    Violence,
    /// Sexual assault, abuse or exploitation.
    SexualAbuse,
    /// Overdose, addiction crisis.
    SubstanceAbuse,
    /// Anorexia, bulimia, extreme behaviours.
    EatingDisorder,
    /// Partner violence or abuse.
    DomesticViolence,
    /// Child abuse or endangerment.
    ChildSafety,
    /// Terrorist plans or activities.
    Terrorism,
}

/// Everything displayed to the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Content {
    /// The text blocks (at least one).
    #[schemars(length(min = 1))]
    pub text_blocks: Vec<TextBlock>,
    /// An optional form for structured input.
    #[serde(default)]
    pub form: Option<Form>,
    /// Optional images, videos and audio.
    #[serde(default)]
    pub media: Option<Vec<Media>>,
    /// Optional quick-reply buttons.
    #[serde(default)]
    pub suggestions: Option<Vec<Suggestion>>,
}

/// One block of text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextBlock {
    /// Block type, which decides how it is rendered.
    #[serde(rename = "type")]
    pub kind: TextBlockKind,
    /// The text (markdown).
    pub content: String,
    /// Additional styling.
    #[serde(default)]
    pub style: Option<TextStyle>,
}

/// How a text block is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextBlockKind {
    /// Normal paragraph.
    Text,
    /// Section heading.
    Heading,
    /// Informational callout.
    Info,
    /// Warning message.
    Warning,
    /// Critical or error message.
    Error,
    /// Success or positive message.
    Success,
    /// Code snippet.
    Code,
}

/// Extra styling of a text block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextStyle {
    /// No extra styling.
    Default,
    /// Bold.
    Bold,
    /// Italic.
    Italic,
    /// Monospace.
    Code,
    /// Quotation.
    Quote,
}

/// A quick-reply button: sends a message when clicked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suggestion {
    /// The button label (the property MUST be named "text").
    pub text: String,
    /// The message sent, if different from the label.
    #[serde(default)]
    pub value: Option<String>,
    /// What clicking does.
    #[serde(default)]
    pub action: Option<SuggestionAction>,
}

/// What clicking a suggestion does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuggestionAction {
    /// Send the value as a message.
    SendMessage,
    /// Navigate within the app.
    Navigate,
    /// Open an external link.
    ExternalLink,
}

/// A form for structured input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Form {
    /// Title at the top of the form.
    #[serde(default)]
    pub title: Option<String>,
    /// Description or instructions.
    #[serde(default)]
    pub description: Option<String>,
    /// The fields (at least one).
    #[schemars(length(min = 1))]
    pub fields: Vec<FormField>,
    /// Submit button label (default "Submit").
    #[serde(default)]
    pub submit_label: Option<String>,
}

/// One form field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormField {
    /// Unique identifier of the field.
    #[schemars(length(min = 1))]
    pub id: String,
    /// Field type.
    #[serde(rename = "type")]
    pub kind: FieldKind,
    /// Question or field label.
    pub label: String,
    /// Whether an answer is required (default false).
    #[serde(default)]
    pub required: Option<bool>,
    /// Options, for radio, checkbox and select fields.
    #[serde(default)]
    pub options: Option<Vec<FieldOption>>,
    /// Placeholder for text inputs.
    #[serde(default)]
    pub placeholder: Option<String>,
    /// Help text below the field.
    #[serde(default, rename = "helpText")]
    pub help_text: Option<String>,
    /// Minimum, for number and scale fields.
    #[serde(default)]
    pub min: Option<f64>,
    /// Maximum, for number and scale fields.
    #[serde(default)]
    pub max: Option<f64>,
}

/// The kinds of form field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldKind {
    /// Single selection (radio buttons).
    Radio,
    /// Multiple selection (checkboxes).
    Checkbox,
    /// Dropdown single selection.
    Select,
    /// Single-line text.
    Text,
    /// Multi-line text.
    Textarea,
    /// Numeric input.
    Number,
    /// Rating scale.
    Scale,
}

impl FieldKind {
    /// Whether the field picks from `options`.
    pub fn is_selection(self) -> bool {
        matches!(
            self,
            FieldKind::Radio | FieldKind::Checkbox | FieldKind::Select
        )
    }
}

/// One option of a selection field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldOption {
    /// The value submitted.
    pub value: String,
    /// The label shown.
    pub label: String,
}

/// An image, video or audio item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Media {
    /// image, video or audio.
    #[serde(rename = "type")]
    pub kind: MediaKind,
    /// URL or path of the file.
    pub url: String,
    /// Alt text (images).
    #[serde(default)]
    pub alt: Option<String>,
    /// Caption below the item.
    #[serde(default)]
    pub caption: Option<String>,
}

/// The kinds of media.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MediaKind {
    /// An image.
    Image,
    /// A video.
    Video,
    /// Audio.
    Audio,
}

/// Progress through a module or guided conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// Overall completion, 0-100.
    #[serde(default)]
    #[schemars(range(min = 0, max = 100))]
    pub percentage: Option<f64>,
    /// The current topic.
    #[serde(default)]
    pub current_topic: Option<String>,
    /// Completed topics.
    #[serde(default)]
    pub topics_covered: Option<Vec<String>>,
    /// Remaining topics.
    #[serde(default)]
    pub topics_remaining: Option<Vec<String>>,
    /// Milestones reached (e.g. "25%").
    #[serde(default)]
    pub milestones_reached: Option<Vec<String>>,
}

/// Response metadata, for logging.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// Name of the model.
    #[schemars(length(min = 1))]
    pub model: String,
    /// Tokens consumed.
    #[serde(default)]
    pub tokens_used: Option<u64>,
    /// Confidence, 0-1.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
    /// Language code (en, de, fr, ...).
    #[serde(default)]
    pub language: Option<String>,
}
