//! The one table of what JSON Schema keywords are: which only describe, which belong to
//! the document rather than a value, and which hold sub-schemas.
//!
//! Every reader of schemas in the workspace asks here (the `$ref` walk, the strict
//! rewrite, the bounded validator, the grammar's support table), so a keyword is never
//! an annotation to one of them and a constraint to another.

/// What one keyword is, as the readers of schemas ask it. Every list of keywords in the
/// workspace is one of these, read off [`TABLE`]; no reader keeps its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Property {
    /// Only annotates: no validator refuses a value for it (JSON Schema 2020-12, the
    /// meta-data and content vocabularies, and `$comment`).
    Annotation,
    /// About the document rather than the value at its place: its dialect, identity
    /// and definitions.
    Document,
    /// Its value holds schemas, this way.
    Holds(Holds),
    /// Only narrows the values a schema accepts: leaving it out widens what the schema
    /// lets through and changes nothing else. A provider's dialect that does not
    /// enforce one leaves it out of what is sent and lists it
    /// ([`crate::dialect::native`]); the values are then checked against the whole
    /// schema after the answer. Each provider dialect's module says which it enforces.
    Narrowing,
    /// Its verdict on a value never changes when items deeper down are removed: a
    /// schema made of these (and keywords that never refuse) lets the bounded
    /// validator prune below it.
    KeepsVerdictWhenPruned,
    /// Gives a value its shape: a schema with none of these takes a value of any shape
    /// (the grammar's free-form test).
    Shapes,
    /// Constrains the value: a schema with none of these accepts anything, so a scalar
    /// is as good a whole answer as any value.
    Constrains,
    /// The lower end of a count (`min...`), counting this unit; its upper end is the
    /// keyword with the same [`Property::CountMax`] unit.
    CountMin(&'static str),
    /// The upper end of a count (`max...`), counting this unit.
    CountMax(&'static str),
    /// May declare an object's members elsewhere than its `properties`: beside one, a
    /// `required` name missing from `properties` may be declared there.
    DeclaresElsewhere,
    /// Makes what a value must hold depend on the value (a union, a condition, a
    /// negation, a dependency): beside one, an object may be required to hold a member
    /// its schema does not declare.
    Conditional,
    /// OpenAI's strict mode takes it.
    OpenAiStrict,
    /// Its value is a list of branches for the same value (a union or an
    /// intersection): the members an object may hold are its own and its branches'.
    Branches,
    /// Decides by an object's member names: beside one, which members an object holds
    /// matters, so the bounded validator never prunes them.
    NamesMembers,
    /// Constrains a value beyond its `type`: a schema naming one is not made to accept
    /// `null` by adding `null` to its `type` (strict mode's nullable rewrite).
    BeyondType,
    /// Belongs at the root of a document: kept there when the root schema is wrapped
    /// in an object member (a provider's native dialect).
    StaysAtRoot,
}

use Property::*;

/// The one table: every keyword a reader of schemas asks about, with every property
/// it has. A keyword absent here has none of them.
pub const TABLE: &[(&str, &[Property])] = &[
    (
        "type",
        &[KeepsVerdictWhenPruned, Shapes, Constrains, OpenAiStrict],
    ),
    ("enum", &[Shapes, Constrains, OpenAiStrict, BeyondType]),
    ("const", &[Shapes, Constrains, OpenAiStrict, BeyondType]),
    (
        "$ref",
        &[
            Shapes,
            Constrains,
            DeclaresElsewhere,
            OpenAiStrict,
            BeyondType,
        ],
    ),
    (
        "properties",
        &[
            Holds(Holds::Map),
            KeepsVerdictWhenPruned,
            Constrains,
            OpenAiStrict,
            NamesMembers,
        ],
    ),
    (
        "required",
        &[KeepsVerdictWhenPruned, OpenAiStrict, NamesMembers],
    ),
    (
        "additionalProperties",
        &[Holds(Holds::One), KeepsVerdictWhenPruned, OpenAiStrict],
    ),
    (
        "patternProperties",
        &[
            Holds(Holds::Map),
            KeepsVerdictWhenPruned,
            DeclaresElsewhere,
            NamesMembers,
        ],
    ),
    (
        "propertyNames",
        &[Holds(Holds::One), KeepsVerdictWhenPruned, NamesMembers],
    ),
    (
        "items",
        &[
            Holds(Holds::OneOrList),
            KeepsVerdictWhenPruned,
            Constrains,
            OpenAiStrict,
        ],
    ),
    ("additionalItems", &[Holds(Holds::One)]),
    ("unevaluatedProperties", &[Holds(Holds::One)]),
    ("unevaluatedItems", &[Holds(Holds::One)]),
    ("contains", &[Holds(Holds::One), Narrowing]),
    (
        "allOf",
        &[
            Holds(Holds::List),
            Shapes,
            Constrains,
            DeclaresElsewhere,
            Branches,
        ],
    ),
    (
        "anyOf",
        &[
            Holds(Holds::List),
            Shapes,
            Constrains,
            DeclaresElsewhere,
            Conditional,
            OpenAiStrict,
            BeyondType,
            Branches,
        ],
    ),
    (
        "oneOf",
        &[
            Holds(Holds::List),
            Shapes,
            Constrains,
            DeclaresElsewhere,
            Conditional,
            Branches,
        ],
    ),
    ("prefixItems", &[Holds(Holds::List), KeepsVerdictWhenPruned]),
    ("not", &[Holds(Holds::One), Narrowing, Shapes, Conditional]),
    ("if", &[Holds(Holds::One), DeclaresElsewhere, Conditional]),
    ("then", &[Holds(Holds::One), DeclaresElsewhere, Conditional]),
    ("else", &[Holds(Holds::One), DeclaresElsewhere, Conditional]),
    (
        "dependentSchemas",
        &[Holds(Holds::Map), DeclaresElsewhere, Conditional],
    ),
    ("dependentRequired", &[Narrowing, Conditional]),
    (
        "minLength",
        &[Narrowing, KeepsVerdictWhenPruned, CountMin("character")],
    ),
    (
        "maxLength",
        &[Narrowing, KeepsVerdictWhenPruned, CountMax("character")],
    ),
    (
        "pattern",
        &[Narrowing, KeepsVerdictWhenPruned, OpenAiStrict],
    ),
    ("format", &[Narrowing, KeepsVerdictWhenPruned, OpenAiStrict]),
    (
        "minimum",
        &[Narrowing, KeepsVerdictWhenPruned, OpenAiStrict],
    ),
    (
        "maximum",
        &[Narrowing, KeepsVerdictWhenPruned, OpenAiStrict],
    ),
    (
        "exclusiveMinimum",
        &[Narrowing, KeepsVerdictWhenPruned, OpenAiStrict],
    ),
    (
        "exclusiveMaximum",
        &[Narrowing, KeepsVerdictWhenPruned, OpenAiStrict],
    ),
    (
        "multipleOf",
        &[Narrowing, KeepsVerdictWhenPruned, OpenAiStrict],
    ),
    (
        "minItems",
        &[
            Narrowing,
            KeepsVerdictWhenPruned,
            CountMin("item"),
            OpenAiStrict,
        ],
    ),
    (
        "maxItems",
        &[
            Narrowing,
            KeepsVerdictWhenPruned,
            CountMax("item"),
            OpenAiStrict,
        ],
    ),
    ("uniqueItems", &[Narrowing]),
    (
        "minProperties",
        &[Narrowing, KeepsVerdictWhenPruned, CountMin("field")],
    ),
    (
        "maxProperties",
        &[Narrowing, KeepsVerdictWhenPruned, CountMax("field")],
    ),
    ("$schema", &[Document, StaysAtRoot]),
    ("$id", &[Document]),
    (
        "$defs",
        &[Document, Holds(Holds::Map), OpenAiStrict, StaysAtRoot],
    ),
    ("definitions", &[Document, Holds(Holds::Map)]),
    ("title", &[Annotation, OpenAiStrict, StaysAtRoot]),
    ("description", &[Annotation, OpenAiStrict, StaysAtRoot]),
    ("default", &[Annotation]),
    ("examples", &[Annotation]),
    ("deprecated", &[Annotation]),
    ("readOnly", &[Annotation]),
    ("writeOnly", &[Annotation]),
    ("$comment", &[Annotation]),
    ("contentEncoding", &[Annotation]),
    ("contentMediaType", &[Annotation]),
];

/// The properties of `keyword` (none when the table does not list it).
pub fn properties(keyword: &str) -> &'static [Property] {
    TABLE
        .iter()
        .find(|(name, _)| *name == keyword)
        .map_or(&[], |(_, properties)| *properties)
}

/// Whether `keyword` has `property`.
pub fn has(keyword: &str, property: Property) -> bool {
    properties(keyword).contains(&property)
}

/// The keywords with `property`, in the table's order.
pub fn with(property: Property) -> impl DoubleEndedIterator<Item = &'static str> {
    TABLE
        .iter()
        .filter(move |(_, properties)| properties.contains(&property))
        .map(|(name, _)| *name)
}

/// Whether a schema object names any keyword with `property`.
pub fn names_any(schema: &serde_json::Map<String, serde_json::Value>, property: Property) -> bool {
    schema.keys().any(|key| has(key, property))
}

/// The count bounds, in the table's order: each lower end, its upper end and the unit
/// both count (`("minLength", "maxLength", "character")`).
pub fn count_bounds() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    TABLE.iter().filter_map(|(low, properties)| {
        properties.iter().find_map(|property| match property {
            CountMin(unit) => TABLE
                .iter()
                .find(|(_, other)| other.contains(&CountMax(unit)))
                .map(|(high, _)| (*low, *high, *unit)),
            _ => None,
        })
    })
}

/// Whether `keyword` only narrows ([`Property::Narrowing`]).
pub fn is_narrowing(keyword: &str) -> bool {
    has(keyword, Narrowing)
}

/// Whether `keyword` only annotates ([`Property::Annotation`]) or is an extension
/// keyword (`x-...`, which validators ignore).
pub fn is_annotation(keyword: &str) -> bool {
    has(keyword, Annotation) || keyword.starts_with("x-")
}

/// Whether `keyword` never refuses a value: an annotation or a
/// [`Property::Document`] keyword.
pub fn never_refuses(keyword: &str) -> bool {
    is_annotation(keyword) || has(keyword, Document)
}

/// How a keyword's value holds schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// One schema.
    One,
    /// A map of names to schemas; the names are data, not keywords.
    Map,
    /// A list of schemas.
    List,
    /// `items`: one schema, or in draft-07 a list of them.
    OneOrList,
}

/// How `keyword`'s value holds schemas, or `None` when it holds none.
pub fn holds(keyword: &str) -> Option<Holds> {
    properties(keyword)
        .iter()
        .find_map(|property| match property {
            Holds(how) => Some(*how),
            _ => None,
        })
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
        for keyword in with(Narrowing) {
            assert!(
                is_narrowing(keyword) && !never_refuses(keyword),
                "{keyword}"
            );
        }
        assert!(!is_narrowing("type") && !is_narrowing("enum"));
    }

    #[test]
    fn each_keyword_holds_schemas_one_way() {
        for (keyword, properties) in TABLE {
            let ways = properties.iter().filter(|p| matches!(p, Holds(_))).count();
            assert!(ways <= 1, "{keyword}");
            if ways == 1 {
                assert!(!is_annotation(keyword), "{keyword}");
            }
        }
        assert_eq!(holds("items"), Some(Holds::OneOrList));
        assert_eq!(holds("not"), Some(Holds::One));
        assert_eq!(holds("$defs"), Some(Holds::Map));
        assert_eq!(holds("prefixItems"), Some(Holds::List));
        assert_eq!(holds("description"), None);
    }

    /// Every keyword the table lists has its properties stated: it is listed once,
    /// with at least one property, no property twice, no annotation that also
    /// refuses values, and each count's ends paired.
    #[test]
    fn every_keyword_listed_has_its_properties_stated() {
        let mut seen = std::collections::BTreeSet::new();
        for (keyword, properties) in TABLE {
            assert!(seen.insert(*keyword), "{keyword} is listed twice");
            assert!(!properties.is_empty(), "{keyword} has no property");
            for (i, property) in properties.iter().enumerate() {
                assert!(
                    !properties[i + 1..].contains(property),
                    "{keyword}: {property:?} twice"
                );
            }
            if has(keyword, Annotation) {
                for refusing in [Narrowing, Shapes, Constrains, KeepsVerdictWhenPruned] {
                    assert!(
                        !has(keyword, refusing),
                        "{keyword}: annotation and {refusing:?}"
                    );
                }
            }
        }
        let lows = TABLE
            .iter()
            .filter(|(_, p)| p.iter().any(|p| matches!(p, CountMin(_))))
            .count();
        let highs = TABLE
            .iter()
            .filter(|(_, p)| p.iter().any(|p| matches!(p, CountMax(_))))
            .count();
        assert_eq!(count_bounds().count(), lows);
        assert_eq!(lows, highs);
    }

    /// The sets the readers kept before the table, unchanged: merging them changed no
    /// reader's answer.
    #[test]
    fn each_property_names_the_keywords_its_reader_kept() {
        let set = |property| with(property).collect::<std::collections::BTreeSet<_>>();
        let of = |names: &[&'static str]| names.iter().copied().collect();
        assert_eq!(
            set(KeepsVerdictWhenPruned),
            of(&[
                "type",
                "properties",
                "required",
                "additionalProperties",
                "patternProperties",
                "propertyNames",
                "minProperties",
                "maxProperties",
                "items",
                "prefixItems",
                "minItems",
                "maxItems",
                "format",
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
                "minLength",
                "maxLength",
                "pattern",
            ])
        );
        assert_eq!(
            set(Shapes),
            of(&[
                "type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf", "not"
            ])
        );
        assert_eq!(
            set(Constrains),
            of(&[
                "type",
                "enum",
                "const",
                "properties",
                "items",
                "anyOf",
                "oneOf",
                "allOf",
                "$ref",
            ])
        );
        assert_eq!(
            count_bounds().collect::<Vec<_>>(),
            [
                ("minLength", "maxLength", "character"),
                ("minItems", "maxItems", "item"),
                ("minProperties", "maxProperties", "field"),
            ]
        );
        assert_eq!(
            with(Holds(Holds::List)).collect::<Vec<_>>(),
            ["allOf", "anyOf", "oneOf", "prefixItems"]
        );
        assert_eq!(set(Branches), of(&["oneOf", "anyOf", "allOf"]));
        assert_eq!(
            set(NamesMembers),
            of(&[
                "properties",
                "patternProperties",
                "propertyNames",
                "required"
            ])
        );
        assert_eq!(set(BeyondType), of(&["enum", "const", "anyOf", "$ref"]));
        assert_eq!(
            with(StaysAtRoot).collect::<Vec<_>>(),
            ["$schema", "$defs", "title", "description"]
        );
        assert_eq!(with(Narrowing).count(), 17);
        assert_eq!(with(Annotation).count(), 10);
        assert_eq!(with(OpenAiStrict).count(), 21);
        assert_eq!(
            set(DeclaresElsewhere),
            of(&[
                "$ref",
                "allOf",
                "anyOf",
                "oneOf",
                "if",
                "then",
                "else",
                "dependentSchemas",
                "patternProperties",
            ])
        );
        assert_eq!(
            set(Conditional),
            of(&[
                "oneOf",
                "anyOf",
                "if",
                "then",
                "else",
                "not",
                "dependentSchemas",
                "dependentRequired",
            ])
        );
    }
}
