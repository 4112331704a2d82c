//! Errors of a per-variant rule (`#[payload(check = ...)]` on an enum variant), moved
//! to where the variant's content sits in the JSON and naming the variant, as schema
//! errors of a variant do: `... (intent "export")`.
//!
//! The derive passes the variant's name as serde *deserializes* it (read with serde's
//! own attribute reader): that is the name the model wrote, where the serialized value
//! would give the `rename(serialize = ...)` one.

use crate::error::PayloadError;
use payload_schema::pointer;

/// `errors` (paths relative to the content of the variant named `variant`) as errors of
/// the enum.
///
/// `tag` and `content` are the enum's `#[serde(tag, content)]`; neither is external
/// tagging (`{"variant": content}`); `untagged` leaves paths and messages alone.
pub fn variant_errors(
    variant: &str,
    tag: Option<&str>,
    content: Option<&str>,
    untagged: bool,
    errors: Vec<PayloadError>,
) -> Vec<PayloadError> {
    if errors.is_empty() || untagged {
        return errors;
    }
    // Quoted as JSON writes the name, as schema errors of a variant quote it.
    let quoted = serde_json::Value::from(variant).to_string();
    let (label, prefix) = match tag {
        Some(tag) => (
            format!("{tag} {quoted}"),
            content
                .map(|c| format!("/{}", pointer::escape_token(c)))
                .unwrap_or_default(),
        ),
        None => (
            format!("variant {quoted}"),
            format!("/{}", pointer::escape_token(variant)),
        ),
    };
    errors
        .into_iter()
        .map(|mut error| {
            error.details_mut().path = format!("{prefix}{}", error.path());
            error.details_mut().message = format!("{} ({label})", error.message());
            error
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> Vec<PayloadError> {
        vec![PayloadError::validation("/item_ids/0", "ids start at 1")]
    }

    #[test]
    fn errors_move_under_the_content_and_name_the_variant() {
        let errors = variant_errors(
            "view_details",
            Some("intent"),
            Some("parameters"),
            false,
            rule(),
        );
        assert_eq!(errors[0].path(), "/parameters/item_ids/0");
        assert_eq!(
            errors[0].message(),
            "ids start at 1 (intent \"view_details\")"
        );

        let errors = variant_errors("view_details", None, None, false, rule());
        assert_eq!(errors[0].path(), "/view_details/item_ids/0");
        assert_eq!(
            errors[0].message(),
            "ids start at 1 (variant \"view_details\")"
        );

        let errors = variant_errors("view_details", None, None, true, rule());
        assert_eq!(errors[0].path(), "/item_ids/0");
    }
}
