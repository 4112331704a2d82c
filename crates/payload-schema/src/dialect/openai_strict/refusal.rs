//! [`StrictRefusal`]: why a type's schema has no OpenAI strict form.

use std::fmt;

/// Which strict-mode rule a schema cannot meet without changing the values it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StrictRefusalKind {
    /// The top level is not an object schema (an array, a scalar, or a union of
    /// variants): strict mode takes an object at the root.
    NotAnObjectRoot,
    /// A map with free-form keys (`additionalProperties: true` or a schema): strict
    /// mode closes every object.
    FreeFormMap,
    /// A member that accepts any JSON value (`{}` or `true`): strict mode needs a type.
    AnyValue,
    /// A keyword strict mode does not support, and that cannot be dropped without
    /// widening what is accepted (`minLength`, `uniqueItems`, `allOf`, ...).
    UnsupportedKeyword,
    /// A string `format` outside the ones strict mode knows, or an integer format whose
    /// bounds cannot be written exactly.
    UnsupportedFormat,
    /// A `oneOf` whose branches are not provably exclusive: as an `anyOf` it would
    /// accept values that match several branches.
    OverlappingUnion,
    /// A union written beside members of its own (a flattened enum): strict mode takes
    /// a union or an object, not both in one schema.
    UnionBesideMembers,
    /// A `$ref` with constraining keywords beside it that cannot be merged into the
    /// definition (it is recursive, or both say the same keyword).
    RefWithSiblings,
    /// A `$ref` that does not point at `#` or `#/$defs/...`.
    UnresolvableRef,
    /// One of strict mode's size limits (nesting, number of properties or enum values,
    /// total length of names and values) is exceeded.
    Limit,
}

impl StrictRefusalKind {
    /// A short snake_case name for the kind, e.g. `free_form_map`.
    pub fn as_str(self) -> &'static str {
        match self {
            StrictRefusalKind::NotAnObjectRoot => "not_an_object_root",
            StrictRefusalKind::FreeFormMap => "free_form_map",
            StrictRefusalKind::AnyValue => "any_value",
            StrictRefusalKind::UnsupportedKeyword => "unsupported_keyword",
            StrictRefusalKind::UnsupportedFormat => "unsupported_format",
            StrictRefusalKind::OverlappingUnion => "overlapping_union",
            StrictRefusalKind::UnionBesideMembers => "union_beside_members",
            StrictRefusalKind::RefWithSiblings => "ref_with_siblings",
            StrictRefusalKind::UnresolvableRef => "unresolvable_ref",
            StrictRefusalKind::Limit => "limit",
        }
    }
}

impl fmt::Display for StrictRefusalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a payload type has no schema OpenAI accepts with `strict: true` that accepts
/// exactly the values the type's own schema accepts.
///
/// Returned by `payload_core::PayloadType::strict_schema`. `path` is a JSON Pointer into the
/// type's 2020-12 schema (what `payload schema NAME` prints) at the node at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictRefusal {
    /// Which rule is not met.
    pub kind: StrictRefusalKind,
    /// JSON Pointer to the schema node at fault (empty for the root).
    pub path: String,
    /// What the node does that strict mode cannot say, in words.
    pub reason: String,
}

impl StrictRefusal {
    /// A refusal of `kind` at `path`.
    pub fn new(
        kind: StrictRefusalKind,
        path: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        StrictRefusal {
            kind,
            path: path.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for StrictRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{} (at the root)", self.reason)
        } else {
            write!(f, "{} (at {})", self.reason, self.path)
        }
    }
}

impl std::error::Error for StrictRefusal {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_reason_and_the_place() {
        let refusal = StrictRefusal::new(
            StrictRefusalKind::FreeFormMap,
            "/properties/meta",
            "a free-form map cannot be strict",
        );
        assert_eq!(
            refusal.to_string(),
            "a free-form map cannot be strict (at /properties/meta)"
        );
        let root = StrictRefusal::new(StrictRefusalKind::NotAnObjectRoot, "", "an array");
        assert_eq!(root.to_string(), "an array (at the root)");
        assert_eq!(refusal.kind.to_string(), "free_form_map");
    }
}
