//! One compiled schema node: what a schema object says, read once into fields, so that
//! checking a value asks no keyword by name (`super::run`).

use serde_json::{Number, Value};

/// The index of a node in its plan.
pub(super) type NodeId = u32;

/// Declared members and their nodes, sorted by name.
pub(super) type Properties = Box<[(Box<str>, NodeId)]>;

/// A set of JSON types, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Types(pub(crate) u8);

impl Types {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOLEAN: u8 = 2;
    pub(crate) const INTEGER: u8 = 4;
    pub(crate) const NUMBER: u8 = 8;
    pub(crate) const STRING: u8 = 16;
    pub(crate) const ARRAY: u8 = 32;
    pub(crate) const OBJECT: u8 = 64;
    /// A `type` name that is no JSON type: the walks after validation take it to allow
    /// every value (`crate::validate::coerce`); the plan compiles no such node.
    pub(crate) const OTHER: u8 = 128;

    /// The bit of a `type` name, or `None` for a name that is not a JSON type.
    pub(crate) fn bit(name: &str) -> Option<u8> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "integer" => Self::INTEGER,
            "number" => Self::NUMBER,
            "string" => Self::STRING,
            "array" => Self::ARRAY,
            "object" => Self::OBJECT,
            _ => return None,
        })
    }

    /// Whether any type is in both sets; an integer is a number, so `integer` and
    /// `number` overlap.
    pub(super) fn overlaps(self, other: Types) -> bool {
        self.widened().0 & other.widened().0 != 0
    }

    /// The set with `integer` standing for `number` too, and the other way round.
    fn widened(self) -> Types {
        let numeric = Self::INTEGER | Self::NUMBER;
        if self.0 & numeric != 0 {
            Types(self.0 | numeric)
        } else {
            self
        }
    }

    /// Whether it says `integer` and not `number`: the integer rule applies
    /// (`crate::validate::numbers`).
    pub(super) fn integer_only(self) -> bool {
        self.0 & Self::INTEGER != 0 && self.0 & Self::NUMBER == 0
    }
}

/// What a node says about members it does not declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Extra {
    /// Nothing (`additionalProperties` absent).
    Unstated,
    /// `additionalProperties: false`.
    Closed,
    /// `additionalProperties: true`, or a schema: every member is allowed (checked
    /// against the schema when there is one).
    Allowed(Option<NodeId>),
}

/// How the branch of a union that governs a value is found, decided when the plan is
/// compiled; only unions whose branches exclude one another get one, so the chosen
/// branch alone decides both `oneOf` and `anyOf`.
#[derive(Debug, Clone)]
pub(super) enum Pick {
    /// Every branch is an object that requires member `key` holding one of its own
    /// string constants (serde's internally and adjacently tagged enums).
    Tag {
        key: Box<str>,
        /// Each branch's tags, in branch order; no two branches share one.
        tags: Box<[Box<[Box<str>]>]>,
        /// Whether every branch allows objects only (so a value of another type is
        /// refused by all).
        objects_only: bool,
    },
    /// Every branch states its types, and no two share one (`Option<T>`).
    Type(Box<[Types]>),
    /// Every branch is one constant with no number in it (a unit-only enum).
    Constant(Box<[Value]>),
    /// The branches may overlap: the plan cannot decide the union.
    Undecided,
}

/// A `oneOf` or `anyOf`.
#[derive(Debug, Clone)]
pub(super) struct Union {
    pub(super) branches: Box<[NodeId]>,
    pub(super) pick: Pick,
}

/// Numeric bounds, as written.
#[derive(Debug, Clone, Default)]
pub(super) struct Bounds {
    pub(super) minimum: Option<Number>,
    pub(super) maximum: Option<Number>,
    pub(super) exclusive_minimum: Option<Number>,
    pub(super) exclusive_maximum: Option<Number>,
}

impl Bounds {
    /// Whether any bound is stated.
    pub(super) fn any(&self) -> bool {
        self.minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some()
    }
}

/// One schema object, compiled.
#[derive(Debug, Default)]
pub(super) struct Node {
    /// A keyword the plan does not compile is here: reaching the node decides nothing.
    pub(super) unsupported: bool,
    /// `false` as a schema: nothing is valid.
    pub(super) refuses_all: bool,
    /// `type` (all types when unstated).
    pub(super) types: Option<Types>,
    /// `enum`.
    pub(super) enumeration: Option<Box<[Value]>>,
    /// `const`.
    pub(super) constant: Option<Value>,
    /// The range of an integer `format` (`uint32`, ...).
    pub(super) integer_range: Option<(i128, i128)>,
    /// `"format": "float"`: a 32-bit float field.
    pub(super) single_precision: bool,
    pub(super) bounds: Bounds,
    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    /// `pattern` and a string `format`, checked by the validator on the string alone,
    /// so that both mean exactly what they mean to it.
    pub(super) leaf: Option<Box<jsonschema::Validator>>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) prefix_items: Box<[NodeId]>,
    pub(super) items: Option<NodeId>,
    /// `properties`, sorted by name.
    pub(super) properties: Option<Properties>,
    pub(super) required: Box<[Box<str>]>,
    pub(super) extra: Option<Extra>,
    /// `allOf`, and the target of `$ref`.
    pub(super) all_of: Box<[NodeId]>,
    /// `oneOf` and `anyOf`.
    pub(super) unions: Box<[Union]>,
}

impl Node {
    /// The schema of member `name`, when the node declares it.
    pub(super) fn property(&self, name: &str) -> Option<NodeId> {
        let properties = self.properties.as_deref()?;
        properties
            .binary_search_by(|(key, _)| (**key).cmp(name))
            .ok()
            .map(|at| properties[at].1)
    }

    /// What the node says about undeclared members.
    pub(super) fn extra(&self) -> Extra {
        self.extra.unwrap_or(Extra::Unstated)
    }
}
