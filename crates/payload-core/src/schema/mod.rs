//! JSON Schemas of payload types: generation in each dialect, and the compiled
//! validator every payload is checked with.
//!
//! Schemas come from schemars (doc comments become descriptions, serde attributes are
//! honoured); validation is the `jsonschema` crate, so every keyword the schema states is
//! enforced exactly as any other JSON Schema tool would enforce it.

use crate::caps::Capped;
use crate::error::PayloadError;
use crate::payload::{LlmPayload, Shape};
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};
use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{OnceLock, RwLock};

/// Which JSON Schema flavour to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// JSON Schema 2020-12 (the default, and what the validator uses).
    #[default]
    Draft2020_12,
    /// JSON Schema draft-07 (`definitions` instead of `$defs`).
    Draft07,
    /// The subset OpenAI's Structured Outputs accept with `strict: true`: an object at
    /// the top, every object closed (`additionalProperties: false`), every member listed
    /// in `required` (an optional one accepts `null` instead), only the keywords and
    /// formats the subset knows (see [`crate::PayloadType::strict_schema`]).
    ///
    /// For a type that has no strict form, [`crate::PayloadType::schema`] in this
    /// dialect is the best effort: every node that has a strict form is rewritten, the
    /// others are left as they were. OpenAI will reject it in strict mode, and it is not
    /// promised to accept the same values as the type's schema (closing the branches of
    /// a flattened enum, say, refuses the members beside them);
    /// [`crate::PayloadType::strict_schema`] says why there is no strict form instead.
    OpenAiStrict,
}

impl Dialect {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Draft2020_12 => "2020-12",
            Dialect::Draft07 => "draft-07",
            Dialect::OpenAiStrict => "openai-strict",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "2020-12" | "draft-2020-12" | "draft2020-12" => Ok(Dialect::Draft2020_12),
            "draft-07" | "draft07" | "7" => Ok(Dialect::Draft07),
            "openai-strict" | "openai" => Ok(Dialect::OpenAiStrict),
            other => Err(format!(
                "unknown dialect '{other}': use 2020-12, draft-07 or openai-strict"
            )),
        }
    }
}

/// The JSON Schema of `T` in `dialect`, for deserialization (what input is accepted).
pub(crate) fn generate<T: LlmPayload>(dialect: Dialect) -> Value {
    let settings = match dialect {
        Dialect::Draft2020_12 | Dialect::OpenAiStrict => SchemaSettings::draft2020_12(),
        Dialect::Draft07 => SchemaSettings::draft07(),
    };
    let schema = settings
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let schema = with_format_options(schema, T::FORMAT_OPTIONS);
    match dialect {
        Dialect::OpenAiStrict => strict::rewrite(&schema).schema,
        _ => schema,
    }
}

/// The OpenAI strict schema of `T`, or the first reason it has none.
pub(crate) fn generate_strict<T: LlmPayload>() -> Result<Value, strict::StrictRefusal> {
    strict::rewrite(&generate::<T>(Dialect::Draft2020_12)).into_result()
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

mod bounded;
pub(crate) mod dialects;
pub(crate) mod strict;
pub(crate) mod walk;

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
    let resolved = crate::schema::walk::resolve(schema, schema);
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
        walk::facts::learn(&compiled.schema);
        compiled
    })
}
