//! A payload type's schema compiled into the `jsonschema` validator every payload is
//! checked with; every keyword the schema states is enforced exactly as any other JSON
//! Schema tool would enforce it. Its errors are bounded by [`super::bounded`].

use super::bounded;
use super::plan::{Coercion, Plan, Verdict};
use crate::caps::Capped;
use crate::error::PayloadError;
use crate::policy::ParsingPolicy;
use crate::schema::{Shape, shape_of};
use payload_schema::keywords::{self, Property};
use serde_json::Value;

/// A payload type's schema, compiled once and kept for the life of the process.
pub(crate) struct CompiledSchema {
    pub(super) schema: Value,
    pub(super) validator: jsonschema::Validator,
    pub(super) shape: Shape,
    /// Validators entering the schema at item schemas, for bounded validation.
    pub(super) entries: bounded::Entries,
    /// Its `x-parsing`, read once.
    pub(super) policy: ParsingPolicy,
    /// The schema compiled into a plan that finds clean values fast (`None` for a
    /// schema too large for one).
    plan: Option<Plan>,
    /// The schema compiled for coercion (whole-response mode, `super::coerce`).
    coercion: Coercion,
    /// Whether every member the validator can call missing is one its object's
    /// schema declares ([`CompiledSchema::missing_among_absent`]).
    missing_among_absent: bool,
    /// Whether it states string choices anywhere (`super::catch_all`).
    string_choices: bool,
}

impl CompiledSchema {
    /// Compiles `schema` (2020-12).
    ///
    /// # Panics
    /// If the schema is not a valid JSON Schema. Schemas come from schemars, so that
    /// is a bug in a type's `JsonSchema` impl, never a property of the model's text.
    pub fn new(schema: Value) -> Self {
        Self::try_new(schema)
            .unwrap_or_else(|error| panic!("generated schema does not compile: {error}"))
    }

    /// Compiles `schema` (2020-12), or says why it does not compile (a schema written
    /// by hand, [`crate::PayloadType::from_schema`]).
    pub fn try_new(schema: Value) -> Result<Self, jsonschema::ValidationError<'static>> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)?;
        let shape = shape_of(&schema);
        let policy = ParsingPolicy::from_schema(&schema);
        let plan = Plan::compile(&schema);
        let coercion = Coercion::compile(&schema);
        let missing_among_absent = requires_only_declared(&schema);
        let string_choices = super::catch_all::has_string_choices(&schema);
        Ok(CompiledSchema {
            schema,
            validator,
            shape,
            entries: bounded::Entries::default(),
            policy,
            plan,
            coercion,
            missing_among_absent,
            string_choices,
        })
    }

    /// The schema itself.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// How whole responses of this type are read (its `x-parsing`).
    pub(crate) fn policy(&self) -> &ParsingPolicy {
        &self.policy
    }

    /// The top-level JSON kind the schema requires.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Whether the plan finds `value` clean: valid, and with nothing for the walk after
    /// validation to report or rewrite (`super::plan`). `false` says nothing more.
    pub fn is_clean(&self, value: &Value) -> bool {
        self.verdict(value) == Verdict::Clean
    }

    /// The plan's verdict on `value` (`Unsure` without a plan).
    pub(crate) fn verdict(&self, value: &Value) -> Verdict {
        self.plan
            .as_ref()
            .map_or(Verdict::Unsure, |plan| plan.verdict(value))
    }

    /// The schema compiled for coercion.
    pub(crate) fn coercion(&self) -> &Coercion {
        &self.coercion
    }

    /// Whether every member the validator can call missing is among the members the
    /// undeclared-member walk finds absent in its object (`crate::validate::members`):
    /// the schema has no union or condition (which the validator and the walk could
    /// decide differently), and each `required` names only its own `properties`.
    pub(crate) fn missing_among_absent(&self) -> bool {
        self.missing_among_absent
    }

    /// Whether the schema states string choices anywhere, which serde may read past
    /// (`super::catch_all`).
    pub(crate) fn has_string_choices(&self) -> bool {
        self.string_choices
    }

    /// Whether `value` satisfies the schema (no error is built).
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Every way `value` fails the schema, pushed to `errors` (which keeps the first
    /// ones and counts the rest). The work and memory this takes are bounded by the
    /// value, not by how many problems it has (`bounded`).
    pub fn validate_into(&self, value: &Value, errors: &mut Capped<PayloadError>) {
        if self.validator.is_valid(value) {
            return;
        }
        bounded::validate(&self.schema, &self.validator, &self.entries, value, errors);
    }
}

/// Whether `schema` makes a member required only where the same schema declares it,
/// with no keyword that applies a schema on a condition or to one branch of several
/// (`oneOf`, `anyOf`, `if`/`then`/`else`, `not`, `dependentSchemas`,
/// `dependentRequired`): then the validator's `missing` members of an object are among
/// the members its schema declares and it lacks. Bounded by the schema, which is
/// compiled once.
fn requires_only_declared(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Value::Object(members) = node else {
            continue;
        };
        if keywords::names_any(members, Property::Conditional) {
            return false;
        }
        if let Some(required) = members.get("required") {
            let declared = members.get("properties").and_then(Value::as_object);
            let all_declared = required.as_array().is_some_and(|names| {
                names.iter().all(|name| {
                    name.as_str()
                        .is_some_and(|name| declared.is_some_and(|d| d.contains_key(name)))
                })
            });
            if !all_declared {
                return false;
            }
        }
        // Every sub-schema, by the one table of which keywords hold schemas; what is
        // data (`enum`, `const`, `default`, annotations) is never walked.
        stack.extend(payload_schema::walk::subschemas(node).map(|sub| sub.schema));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::requires_only_declared;
    use serde_json::json;

    #[test]
    fn a_plain_struct_requires_only_what_it_declares() {
        let schema = json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "oneOf": {"type": "string"}
            },
            "required": ["items"],
            "$defs": {"Item": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "quantity": {"type": "number"}},
                "required": ["name", "quantity"]
            }}
        });
        assert!(requires_only_declared(&schema));
    }

    #[test]
    fn a_union_a_condition_or_an_undeclared_requirement_is_not_plain() {
        let union = json!({"$defs": {"Cell": {"oneOf": [
            {"type": "object", "properties": {"text": {}}, "required": ["text"]},
            {"type": "object", "properties": {"value": {}}, "required": ["value"]}
        ]}}});
        let condition = json!({"properties": {"a": {"if": {"type": "string"}, "then": {}}}});
        let undeclared = json!({"allOf": [
            {"properties": {"name": {}}},
            {"required": ["name"]}
        ]});
        for schema in [union, condition, undeclared] {
            assert!(!requires_only_declared(&schema), "{schema}");
        }
    }
}
