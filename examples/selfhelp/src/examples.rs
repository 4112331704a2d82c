//! The seed's complete example responses, kept as JSON files beside the crate.

use crate::SelfHelpResponse;

/// The seed's "normal response with suggestions" (4 text suggestions).
pub const WELCOME_JSON: &str = include_str!("../responses/welcome.json");
/// The seed's "response with form" (a scale and a checkbox field).
pub const FORM_JSON: &str = include_str!("../responses/form.json");
/// The seed's "emergency response" (danger detected).
pub const EMERGENCY_JSON: &str = include_str!("../responses/emergency.json");

/// The welcome response as a value (the type's instructions show it).
pub fn welcome() -> SelfHelpResponse {
    serde_json::from_str(WELCOME_JSON).expect("the welcome example is a valid response")
}
