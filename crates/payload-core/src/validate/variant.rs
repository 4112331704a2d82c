//! Errors of a per-variant rule (`#[payload(check = ...)]` on an enum variant), moved
//! to where the variant's content sits in the JSON and naming the variant, as schema
//! errors of a variant do: `... (intent "export")`.
//!
//! The tag is read back from the serialized value rather than recomputed from serde's
//! rename rules, so it is always the one the model writes.

use crate::error::{PayloadError, escape_pointer_token};
use serde::Serialize;
use serde_json::Value;

/// `errors` (paths relative to the variant's content) as errors of `value`, the enum.
///
/// `tag` and `content` are the enum's `#[serde(tag, content)]`; neither is external
/// tagging (`{"variant": content}`); `untagged` leaves paths and messages alone.
pub fn variant_errors<T: Serialize + ?Sized>(
    value: &T,
    tag: Option<&str>,
    content: Option<&str>,
    untagged: bool,
    errors: Vec<PayloadError>,
) -> Vec<PayloadError> {
    if errors.is_empty() || untagged {
        return errors;
    }
    let json = serde_json::to_value(value).unwrap_or(Value::Null);
    let (label, prefix) = match tag {
        Some(tag) => (
            json.get(tag).map(|name| format!("{tag} {name}")),
            content
                .map(|c| format!("/{}", escape_pointer_token(c)))
                .unwrap_or_default(),
        ),
        None => match json.as_object().filter(|map| map.len() == 1) {
            Some(map) => {
                let name = map.keys().next().cloned().unwrap_or_default();
                (
                    Some(format!("variant \"{name}\"")),
                    format!("/{}", escape_pointer_token(&name)),
                )
            }
            None => (None, String::new()),
        },
    };
    errors
        .into_iter()
        .map(|mut error| {
            error.path = format!("{prefix}{}", error.path);
            if let Some(label) = &label {
                error.message = format!("{} ({label})", error.message);
            }
            error
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    #[serde(tag = "intent", content = "parameters", rename_all = "snake_case")]
    enum Adjacent {
        ViewDetails { item_ids: Vec<u32> },
    }

    #[derive(Serialize)]
    #[serde(rename_all = "snake_case")]
    enum External {
        ViewDetails { item_ids: Vec<u32> },
    }

    fn rule() -> Vec<PayloadError> {
        vec![PayloadError::validation("/item_ids/0", "ids start at 1")]
    }

    #[test]
    fn errors_move_under_the_content_and_name_the_variant() {
        let value = Adjacent::ViewDetails { item_ids: vec![0] };
        let errors = variant_errors(&value, Some("intent"), Some("parameters"), false, rule());
        assert_eq!(errors[0].path, "/parameters/item_ids/0");
        assert_eq!(
            errors[0].message,
            "ids start at 1 (intent \"view_details\")"
        );

        let value = External::ViewDetails { item_ids: vec![0] };
        let errors = variant_errors(&value, None, None, false, rule());
        assert_eq!(errors[0].path, "/view_details/item_ids/0");
        assert_eq!(
            errors[0].message,
            "ids start at 1 (variant \"view_details\")"
        );

        let errors = variant_errors(&value, None, None, true, rule());
        assert_eq!(errors[0].path, "/item_ids/0");
    }
}
