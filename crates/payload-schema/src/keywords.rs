//! The one table of what JSON Schema keywords are: which only describe, which belong to
//! the document rather than a value, and which hold sub-schemas.
//!
//! Every reader of schemas in the workspace asks here (the `$ref` walk, the strict
//! rewrite, the bounded validator, the grammar's support table), so a keyword is never
//! an annotation to one of them and a constraint to another.

/// Keywords that only annotate: no validator refuses a value for them (JSON Schema
/// 2020-12, the meta-data and content vocabularies, and `$comment`).
pub const ANNOTATIONS: [&str; 10] = [
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "contentEncoding",
    "contentMediaType",
];

/// Keywords about the document rather than the value at their place: its dialect, its
/// identity and its definitions.
pub const DOCUMENT: [&str; 4] = ["$schema", "$id", "$defs", "definitions"];

/// Keywords whose value is one schema (in both drafts).
pub const ONE_SCHEMA: [&str; 10] = [
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords whose value is a map of names to schemas.
pub const SCHEMA_MAP: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is a list of schemas.
pub const SCHEMA_LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Whether `keyword` only annotates: one of [`ANNOTATIONS`] or an extension keyword
/// (`x-...`, which validators ignore).
pub fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword) || keyword.starts_with("x-")
}

/// Whether `keyword` never refuses a value: an annotation or a [`DOCUMENT`] keyword.
pub fn never_refuses(keyword: &str) -> bool {
    is_annotation(keyword) || DOCUMENT.contains(&keyword)
}

/// How a keyword's value holds schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// One schema ([`ONE_SCHEMA`]).
    One,
    /// A map of names to schemas ([`SCHEMA_MAP`]); the names are data, not keywords.
    Map,
    /// A list of schemas ([`SCHEMA_LIST`]).
    List,
    /// `items`: one schema, or in draft-07 a list of them.
    OneOrList,
}

/// How `keyword`'s value holds schemas, or `None` when it holds none.
pub fn holds(keyword: &str) -> Option<Holds> {
    if keyword == "items" {
        Some(Holds::OneOrList)
    } else if ONE_SCHEMA.contains(&keyword) {
        Some(Holds::One)
    } else if SCHEMA_MAP.contains(&keyword) {
        Some(Holds::Map)
    } else if SCHEMA_LIST.contains(&keyword) {
        Some(Holds::List)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_and_constraints_are_apart() {
        for keyword in ["title", "x-parsing", "examples", "$comment"] {
            assert!(is_annotation(keyword), "{keyword}");
        }
        for keyword in ["type", "minLength", "pattern", "$ref", "$defs", "format"] {
            assert!(!is_annotation(keyword), "{keyword}");
        }
        assert!(never_refuses("$defs") && never_refuses("$schema"));
        assert!(!never_refuses("enum"));
    }

    #[test]
    fn each_keyword_holds_schemas_one_way() {
        for keyword in ONE_SCHEMA.iter().chain(&SCHEMA_MAP).chain(&SCHEMA_LIST) {
            let ways = [
                ONE_SCHEMA.contains(keyword),
                SCHEMA_MAP.contains(keyword),
                SCHEMA_LIST.contains(keyword),
            ];
            assert_eq!(ways.iter().filter(|w| **w).count(), 1, "{keyword}");
            assert!(!is_annotation(keyword), "{keyword}");
        }
        assert_eq!(holds("items"), Some(Holds::OneOrList));
        assert_eq!(holds("description"), None);
    }
}
