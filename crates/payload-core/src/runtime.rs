//! Payload types known only at run time: a JSON Schema document (2020-12 or draft-07)
//! read from a file, a database or a config service becomes a [`PayloadType`] that
//! works wherever a derived type does — whole-response extraction in every format,
//! marker mode on a page, streaming, instructions, docs, errors and retry — because it
//! is the same descriptor, with its schema, example and summary coming from the
//! document instead of a Rust type.
//!
//! The schema is checked first (the output-schema app's `validateSchema`): a document that is not a
//! JSON Schema, a `$ref` that leads nowhere, an `x-format` that is not consistent, or an
//! example the schema refuses is a [`SchemaError`] listing every problem, never a panic.
//!
//! A runtime type lives as long as the program, like a derived one (its compiled schema
//! is made once and kept). Asking again for the same document and options returns the
//! type made the first time, so memory grows with the number of different schemas an
//! app uses, not with the number of calls.

use crate::payload::CustomPayload;
use crate::payload::{PayloadType, Source};
use crate::summary;
use crate::validate::compiled::CompiledSchema;
use crate::validate::decode::TypedDecode;
use heck::{ToShoutySnakeCase, ToSnakeCase};
use payload_schema::dialect::openai_strict::{self, StrictRefusal};
use payload_schema::dialect::{Dialect, drafts};
use serde_json::Value;
use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// What a runtime type is called and shown with; each is optional.
#[derive(Debug, Clone, Default)]
pub struct RuntimeOptions {
    /// The type's name (`custom_payload.type`); default: the schema's `title` in
    /// snake_case, else `payload`.
    pub name: Option<String>,
    /// Its marker; default: the name in SHOUTY_SNAKE_CASE.
    pub marker: Option<String>,
    /// The tag pair it is written in instead of a marker, without angle brackets
    /// (`a2ui-json` for `<a2ui-json>…</a2ui-json>`; docs/spec.md §1.21): an ASCII
    /// letter, then letters, digits, `-` and `_`, at most 64 in all. Giving both a
    /// marker and a tag is a problem of the options: a type is written one way.
    pub tag: Option<String>,
    /// When to use it; default: the schema's `description`.
    pub description: Option<String>,
    /// An example value, shown in the instructions (checked against the schema, and
    /// against `rules`).
    pub example: Option<Value>,
    /// The app's own rules beyond the schema (cross-field rules, uniqueness), run on a
    /// value the schema accepts, as a derived type's [`crate::LlmPayload::check`] is:
    /// every problem returned is an error of the value.
    pub rules: Option<Rules>,
    /// Rules the schema says badly, in words, for the instructions (what a derived
    /// type's `rules(...)` attribute gives); say there what `rules` checks.
    pub rule_text: Vec<String>,
    /// What the app does with a payload of this type (a proposal by default), as a
    /// derived type's `kind` attribute says.
    pub kind: crate::PayloadKind,
}

/// Rules beyond a runtime type's schema: every problem with a schema-valid value.
pub type Rules = fn(&Value) -> Vec<crate::PayloadError>;

pub use payload_schema::document::SchemaProblem;

/// Why a schema document cannot be a payload type: every problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The problems, in document order where it has one.
    pub problems: Vec<SchemaProblem>,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the schema cannot be used as a payload type:")?;
        for problem in &self.problems {
            let at = if problem.pointer.is_empty() {
                "the root"
            } else {
                &problem.pointer
            };
            write!(f, "\n- at {at}: {}", problem.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for SchemaError {}

/// The source of a runtime type: the document, compiled once.
struct RuntimeSource {
    /// The schema as 2020-12 (what is validated against and shown by default).
    schema: Value,
    compiled: &'static CompiledSchema,
    example: Option<Value>,
    rules: Option<Rules>,
}

impl Source for RuntimeSource {
    fn type_id(&self) -> Option<TypeId> {
        None
    }

    fn schema(&self, dialect: Dialect) -> Value {
        dialect.write(&self.schema)
    }

    fn strict(&self) -> Result<Value, StrictRefusal> {
        openai_strict::rewrite(&self.schema).into_result()
    }

    fn compiled(&self) -> &'static CompiledSchema {
        self.compiled
    }

    fn decode(&self, value: &Value, _roundtrip: bool) -> TypedDecode {
        // No Rust value to decode into: a value the schema accepts is the payload, as
        // JSON, and only the app's rules remain.
        TypedDecode {
            errors: self.rules.map(|rules| rules(value)).unwrap_or_default(),
            roundtrip: None,
            typed: None,
        }
    }

    fn example(&self) -> Option<Value> {
        self.example.clone()
    }

    fn summarize(&self, payload: &CustomPayload) -> Option<String> {
        Some(summary::default_summary(&payload.kind, payload.data()))
    }
}

impl PayloadType {
    /// A payload type from a JSON Schema document (2020-12, or draft-07 when its
    /// `$schema` says so), checked first: see [`SchemaError`]. The type is kept for the
    /// life of the program (see the [module docs](crate::runtime)).
    pub fn from_schema(
        schema: &Value,
        options: RuntimeOptions,
    ) -> Result<&'static PayloadType, SchemaError> {
        // One type per distinct document and options: asking again (a config reloaded,
        // a schema read per request) returns the type made the first time, so memory
        // grows with the number of different schemas, not with the number of calls.
        static MADE: OnceLock<Mutex<HashMap<String, &'static PayloadType>>> = OnceLock::new();
        let key = serde_json::to_string(&(
            schema,
            &options.name,
            &options.marker,
            &options.tag,
            &options.description,
            &options.example,
            &options.rule_text,
            options.kind,
            options.rules.map(|rules| rules as usize),
        ))
        .unwrap_or_default();
        let made = MADE.get_or_init(Default::default);
        if let Some(found) = made.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(found);
        }
        let payload = Self::make(schema, options)?;
        Ok(*made
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_insert(payload))
    }

    /// [`PayloadType::from_schema`] without the cache.
    fn make(schema: &Value, options: RuntimeOptions) -> Result<&'static PayloadType, SchemaError> {
        let mut problems = Vec::new();
        let problem = |pointer: &str, message: String| SchemaProblem {
            pointer: pointer.to_string(),
            message,
        };
        if !schema.is_object() {
            return Err(SchemaError {
                problems: vec![problem(
                    "",
                    "a payload type's schema must be a JSON object".into(),
                )],
            });
        }
        let schema = match drafts::declared(schema) {
            Ok(Dialect::Draft07) => drafts::to_2020_12(schema),
            Ok(_) => drafts::as_2020_12(schema),
            Err(message) => {
                return Err(SchemaError {
                    problems: vec![problem("/$schema", message.to_string())],
                });
            }
        };
        if let Err(error) = jsonschema::meta::validate(&schema) {
            problems.push(problem(
                error.instance_path().as_str(),
                format!("not a valid JSON Schema: {error}"),
            ));
        }
        crate::runtime_check::x_format(&schema, "", &mut problems);
        crate::runtime_check::x_parsing(&schema, &mut problems);
        problems.extend(payload_schema::document::unresolved_references(&schema));
        problems.extend(payload_schema::document::undeclared_required(&schema));
        let compiled = if problems.is_empty() {
            match CompiledSchema::try_new(schema.clone()) {
                Ok(compiled) => Some(compiled),
                Err(message) => {
                    problems.push(problem(
                        "",
                        format!("the schema does not compile: {message}"),
                    ));
                    None
                }
            }
        } else {
            None
        };
        let name = options.name.clone().unwrap_or_else(|| {
            match schema
                .get("title")
                .and_then(Value::as_str)
                .map(|t| t.to_snake_case())
            {
                Some(name) if !name.is_empty() => name,
                _ => "payload".to_string(),
            }
        });
        if !crate::runtime_check::is_name(&name) {
            problems.push(problem(
                "",
                format!(
                    "the name '{name}' is not snake_case (a lowercase letter, then a-z, 0-9, _)"
                ),
            ));
        }
        let marker = options
            .marker
            .clone()
            .unwrap_or_else(|| name.to_shouty_snake_case());
        if !crate::runtime_check::is_marker(&marker) {
            problems.push(problem(
                "",
                format!("the marker '{marker}' is not SHOUTY_SNAKE_CASE (A-Z, 0-9, _)"),
            ));
        }
        if let Some(tag) = &options.tag {
            if !crate::runtime_check::is_tag(tag) {
                problems.push(problem(
                    "",
                    format!(
                        "the tag '{tag}' is not a tag name (an ASCII letter, then letters, \
                         digits, - and _, at most 64; not think, thinking or reasoning)"
                    ),
                ));
            }
            if options.marker.is_some() {
                problems.push(problem(
                    "",
                    "both a marker and a tag are given: a type is written one way".to_string(),
                ));
            }
        }
        if let (Some(compiled), Some(example)) = (&compiled, &options.example) {
            if !compiled.is_valid(example) {
                let messages: Vec<String> = jsonschema::validator_for(compiled.schema())
                    .map(|validator| {
                        validator
                            .iter_errors(example)
                            .take(5)
                            .map(|e| format!("{e} at '{}'", e.instance_path()))
                            .collect()
                    })
                    .unwrap_or_default();
                problems.push(problem(
                    "",
                    format!(
                        "the example does not satisfy the schema: {}",
                        messages.join("; ")
                    ),
                ));
            }
        }
        if let (Some(compiled), Some(example)) = (&compiled, &options.example) {
            if compiled.is_valid(example) {
                if let Some(refused) = refused_by_policy(compiled, example) {
                    problems.push(problem(
                        "",
                        format!("the example is refused under the schema's x-parsing: {refused}"),
                    ));
                }
            }
        }
        if let (Some(rules), Some(example)) = (options.rules, &options.example) {
            if compiled.as_ref().is_some_and(|c| c.is_valid(example)) {
                for error in rules(example) {
                    problems.push(problem(
                        "",
                        format!(
                            "the example breaks a rule at '{}': {}",
                            error.path(),
                            error.message()
                        ),
                    ));
                }
            }
        }
        let Some(compiled) = compiled.filter(|_| problems.is_empty()) else {
            return Err(SchemaError { problems });
        };
        let description = options.description.clone().unwrap_or_else(|| {
            schema
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        });
        // Kept for the life of the program, as a derived type's compiled schema is.
        let compiled: &'static CompiledSchema = Box::leak(Box::new(compiled));
        let source: &'static RuntimeSource = Box::leak(Box::new(RuntimeSource {
            schema,
            compiled,
            example: options.example,
            rules: options.rules,
        }));
        let rule_text: Vec<&'static str> = options.rule_text.into_iter().map(leak).collect();
        let mut payload = PayloadType::runtime(leak(name), leak(marker), leak(description), source);
        payload.tag = options.tag.map_or("", leak);
        payload.rules = Box::leak(rule_text.into_boxed_slice());
        payload.kind = options.kind;
        Ok(Box::leak(Box::new(payload)))
    }
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Why the schema's `x-parsing` refuses a schema-valid example (an undeclared member
/// when `additional-properties` is `error`), if it does: the example is what the
/// instructions show, so it must read as a success.
fn refused_by_policy(compiled: &CompiledSchema, example: &Value) -> Option<String> {
    let mut value = example.clone();
    let untyped = |_: &Value, _: bool| TypedDecode {
        errors: Vec::new(),
        roundtrip: None,
        typed: None,
    };
    let checked = crate::validate::check::check(&mut value, compiled, untyped);
    let result = if checked.errors.is_empty() {
        crate::ExtractResult::success(value, "json", 1.0, checked.warnings.finish())
    } else {
        crate::ExtractResult::failure("json", 1.0, checked.errors)
    };
    let result = crate::whole::extract::policy::finish(compiled.policy(), result);
    (!result.success).then(|| {
        result
            .errors
            .iter()
            .map(|e| e.message().to_owned())
            .collect::<Vec<_>>()
            .join("; ")
    })
}
