//! [`Nullable`]: a member that must be present but may be `null`.
//!
//! `Option<T>` fields are optional in serde and in schemars; some schemas (SelfHelp's
//! `danger_level`) need the member written out even when it has no value.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A required member whose value may be `null`: the schema lists it in `required` and
/// allows `T` or `null`. (serde on its own reads an absent member as `null`; the
/// requirement is enforced by schema validation, which runs before decoding.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Nullable<T>(pub Option<T>);

impl<T> Nullable<T> {
    /// The value, if not null.
    pub fn as_ref(&self) -> Option<&T> {
        self.0.as_ref()
    }

    /// Whether the value is null.
    pub fn is_null(&self) -> bool {
        self.0.is_none()
    }
}

impl<T> From<Option<T>> for Nullable<T> {
    fn from(value: Option<T>) -> Self {
        Nullable(value)
    }
}

impl<T: JsonSchema> JsonSchema for Nullable<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Nullable_{}", T::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        <Option<T>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, Deserialize, JsonSchema)]
    struct Example {
        level: Nullable<String>,
        note: Option<String>,
    }

    #[test]
    fn the_member_is_required_but_may_be_null() {
        let schema = schemars::schema_for!(Example).to_value();
        assert_eq!(schema["required"], json!(["level"]));
        let ok: Example = serde_json::from_value(json!({"level": null})).unwrap();
        assert!(ok.level.is_null());
        // serde alone reads a missing member as null; the schema (which every payload
        // is validated against before decoding) is what requires it.
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(!validator.is_valid(&json!({})));
        assert!(validator.is_valid(&json!({"level": null})));
    }
}
