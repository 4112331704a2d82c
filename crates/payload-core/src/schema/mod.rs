//! JSON Schemas of payload types: generation in each dialect, and the compiled
//! validator every payload is checked with.
//!
//! Schemas come from schemars (doc comments become descriptions, serde attributes are
//! honoured); validation is the `jsonschema` crate, so every keyword the schema states is
//! enforced exactly as any other JSON Schema tool would enforce it.

use crate::caps::Capped;
use crate::error::PayloadError;
use crate::payload::{LlmPayload, Shape};
use payload_schema::dialect::Dialect;
use payload_schema::dialect::openai_strict::{self, StrictRefusal};
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

/// The JSON Schema of `T` in `dialect`, for deserialization (what input is accepted).
pub(crate) fn generate<T: LlmPayload>(dialect: Dialect) -> Value {
    // schemars writes draft-07 itself (its own `definitions` and `items` forms); every
    // other dialect is written from 2020-12 by `Dialect::write`.
    let settings = match dialect {
        Dialect::Draft07 => SchemaSettings::draft07(),
        _ => SchemaSettings::draft2020_12(),
    };
    let schema = settings
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let schema = with_format_options(schema, T::FORMAT_OPTIONS);
    match dialect {
        Dialect::Draft07 | Dialect::Draft2020_12 => schema,
        other => other.write(&schema),
    }
}

/// The OpenAI strict schema of `T`, or the first reason it has none.
pub(crate) fn generate_strict<T: LlmPayload>() -> Result<Value, StrictRefusal> {
    openai_strict::rewrite(&generate::<T>(Dialect::Draft2020_12)).into_result()
}

/// Merges the type's declared `x-format` options into the schema's root `x-format`
/// (declared options win over any written with `#[schemars(extend(...))]`).
fn with_format_options(mut schema: Value, options: &str) -> Value {
    if options.is_empty() {
        return schema;
    }
    // The derive writes this text; it is always a JSON object.
    let Ok(Value::Object(declared)) = serde_json::from_str::<Value>(options) else {
        return schema;
    };
    let Value::Object(root) = &mut schema else {
        return schema;
    };
    let target = root
        .entry("x-format")
        .or_insert_with(|| Value::Object(Map::new()));
    merge(target, Value::Object(declared));
    schema
}

/// Deep-merges `from` into `into`: objects member by member, anything else replaced.
fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                match into.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        into.insert(key, value);
                    }
                }
            }
        }
        (into, from) => *into = from,
    }
}

pub(crate) mod applies;
mod bounded;
pub(crate) mod facts;

/// A payload type's schema, compiled once and kept for the life of the process.
pub(crate) struct CompiledSchema {
    schema: Value,
    validator: jsonschema::Validator,
    shape: Shape,
    /// Validators entering the schema at item schemas, for bounded validation.
    entries: bounded::Entries,
    /// Its `x-parsing`, read once.
    policy: crate::whole::policy::ParsingPolicy,
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
    pub fn try_new(schema: Value) -> Result<Self, String> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|error| error.to_string())?;
        let shape = shape_of(&schema);
        let policy = crate::whole::policy::ParsingPolicy::from_schema(&schema);
        Ok(CompiledSchema {
            schema,
            validator,
            shape,
            entries: bounded::Entries::default(),
            policy,
        })
    }

    /// The schema itself.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// How whole responses of this type are read (its `x-parsing`).
    pub(crate) fn policy(&self) -> &crate::whole::policy::ParsingPolicy {
        &self.policy
    }

    /// The top-level JSON kind the schema requires.
    pub fn shape(&self) -> Shape {
        self.shape
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
        bounded::validate(self, value, errors);
    }
}

fn shape_of(schema: &Value) -> Shape {
    let resolved = payload_schema::walk::resolve(schema, schema);
    match resolved.get("type").and_then(Value::as_str) {
        Some("object") => Shape::Object,
        Some("array") => Shape::Array,
        _ => Shape::Any,
    }
}

/// The compiled schema of `T`, built on first use.
pub(crate) fn compiled<T: LlmPayload>() -> &'static CompiledSchema {
    // One map for every type: Rust has no generic statics, and a lookup under a read
    // lock costs far less than the validation it precedes.
    static CACHE: OnceLock<RwLock<HashMap<TypeId, &'static CompiledSchema>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let id = TypeId::of::<T>();
    if let Some(found) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&id) {
        return found;
    }
    let mut write = cache.write().unwrap_or_else(|e| e.into_inner());
    write.entry(id).or_insert_with(|| {
        // Leaked once per type: the set of payload types is fixed at link time.
        let compiled: &'static CompiledSchema = Box::leak(Box::new(CompiledSchema::new(
            generate::<T>(Dialect::Draft2020_12),
        )));
        facts::learn(&compiled.schema);
        compiled
    })
}
