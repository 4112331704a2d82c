//! What a registration lacks without being wrong: a custom payload type with no
//! description or no example. Neither stops the app, but both cost the model:
//!
//! - the description (the type's doc comment, or `#[payload(description = "...")]`) is
//!   the "When to use" line of its instructions; without it the model chooses between
//!   a page's payload types from their names alone;
//! - the example (`#[payload(example = path)]`) is the one complete, valid value the
//!   model sees; models copy its shape, and without it they guess nesting and spelling
//!   from the field list (the recorded corpus shows most invalid payloads are shape
//!   mistakes).
//!
//! [`Registry::warnings`] lists them; `payload types` prints them, and an app's test can
//! assert there are none.

use crate::entry::Role;
use crate::registry::Registry;
use std::fmt;

/// Something a registered payload type lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryWarning {
    /// The type has no description: its instructions get no "When to use" line.
    NoDescription {
        /// The type.
        name: &'static str,
    },
    /// The type has no example: its instructions show the model no example.
    NoExample {
        /// The type.
        name: &'static str,
    },
}

impl RegistryWarning {
    /// The payload type the warning is about.
    pub fn type_name(&self) -> &'static str {
        match self {
            RegistryWarning::NoDescription { name } | RegistryWarning::NoExample { name } => name,
        }
    }
}

impl fmt::Display for RegistryWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryWarning::NoDescription { name } => write!(
                f,
                "payload type '{name}' has no description, so its instructions say nothing \
                 of when to use it: add a doc comment or #[payload(description = \"...\")]"
            ),
            RegistryWarning::NoExample { name } => write!(
                f,
                "payload type '{name}' has no example, so the model sees none: add \
                 #[payload(example = path::to_fn)]"
            ),
        }
    }
}

impl Registry {
    /// What the registered custom payload types lack (suggestion types are the
    /// framework's own and always complete), in registration order.
    pub fn warnings(&self) -> Vec<RegistryWarning> {
        let mut warnings = Vec::new();
        for entry in self.entries() {
            if entry.role != Role::Custom {
                continue;
            }
            let t = &entry.payload;
            if t.description.trim().is_empty() {
                warnings.push(RegistryWarning::NoDescription { name: t.name });
            }
            if t.example().is_none() {
                warnings.push(RegistryWarning::NoExample { name: t.name });
            }
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::PayloadEntry;
    use payload_core::LlmPayload;

    /// Documented and with an example.
    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, LlmPayload)]
    #[payload(name = "complete_type", marker = "COMPLETE_TYPE", example = Self::example)]
    struct Complete {
        /// A number.
        n: u8,
    }

    impl Complete {
        fn example() -> Complete {
            Complete { n: 1 }
        }
    }

    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, LlmPayload)]
    #[payload(name = "bare_type", marker = "BARE_TYPE")]
    struct Bare {
        n: u8,
    }

    #[test]
    fn a_type_without_description_or_example_is_named_with_the_fix() {
        let registry = Registry::from_parts(
            vec![
                PayloadEntry::new(Complete::TYPE, &[]),
                PayloadEntry::new(Bare::TYPE, &[]),
            ],
            vec![],
            vec![],
        );
        let warnings = registry.warnings();
        assert_eq!(
            warnings,
            [
                RegistryWarning::NoDescription { name: "bare_type" },
                RegistryWarning::NoExample { name: "bare_type" }
            ]
        );
        assert!(warnings[0].to_string().contains("add a doc comment"));
        assert!(warnings[1].to_string().contains("#[payload(example"));
    }
}
