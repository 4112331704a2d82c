//! The [`LlmPayload`] trait and its type-erased descriptor, [`PayloadType`].

use crate::derived;
use crate::error::PayloadError;
use crate::partial::StreamMarks;
use crate::schema::Shape;
use crate::summary;
use crate::typed::{AnyPayload, Typed};
use crate::validate::check::{self, Checked, Probe};
use crate::validate::compiled::CompiledSchema;
use crate::validate::decode::{self, TypedDecode};
use payload_schema::dialect::Dialect;
use payload_schema::dialect::openai_strict::StrictRefusal;
use payload_schema::pointer;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::any::TypeId;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// A type a model can emit inside (or as) its response.
///
/// Implement it with `#[derive(LlmPayload)]`; the derive fills in the constants from the
/// `#[payload(...)]` attribute and the doc comment. The JSON Schema comes from
/// [`JsonSchema`], so what the prompt teaches and what the validator checks are one
/// schema.
///
/// Payload types are plain data: `Send + Sync`, so that a parsed response, which keeps
/// the decoded value, can cross threads.
pub trait LlmPayload:
    Serialize + DeserializeOwned + JsonSchema + Send + Sync + Sized + 'static
{
    /// Snake_case identifier, e.g. `schema_proposal`; `custom_payload.type` in results.
    const NAME: &'static str;
    /// The marker the model writes before the JSON, without the colon, e.g.
    /// `SCHEMA_PROPOSAL`.
    const MARKER: &'static str;
    /// The tag pair the model writes around the JSON instead of the marker, without its
    /// angle brackets (`a2ui-json` for `<a2ui-json>…</a2ui-json>`); empty for a type
    /// written after its marker (`#[payload(tag = "...")]` in the derive; docs/spec.md
    /// §1.21).
    const TAG: &'static str = "";
    /// When to use it: the type's doc comment.
    const DESCRIPTION: &'static str;
    /// Rules the schema says badly, in words, for the instructions (the checks
    /// themselves are [`LlmPayload::check`]).
    const RULES: &'static [&'static str] = &[];
    /// What the app does with a payload of this type, which decides how the prompt
    /// frames it (`#[payload(kind = "command")]` in the derive; a proposal by default).
    const KIND: PayloadKind = PayloadKind::Proposal;
    /// The output-schema app's `x-format` options (`format(...)` in the derive), as a JSON object
    /// in text; merged into the root of the generated schema. Empty for none.
    const FORMAT_OPTIONS: &'static str = "";
    /// The type-erased descriptor that registries, parsers and prompts work with.
    const TYPE: PayloadType = PayloadType::of::<Self>();

    /// Gathers the members marked `#[payload(stream(not_null))]` in the type and in the
    /// types it holds, which its schema then says `"x-stream": {"not_null": true}` of
    /// (see [`StreamMarks`]). The derive writes it: through the partial forms for a
    /// `#[payload(partial)]` type, else the type's own members. The default gathers
    /// nothing.
    fn stream_marks(marks: &mut StreamMarks) {
        let _ = marks;
    }

    /// An example instance, shown in the instructions and checked by tests.
    fn example() -> Option<Self> {
        None
    }

    /// Rules beyond the schema (mode rules, cross-field rules). Every problem is
    /// returned, not only the first.
    fn check(&self) -> Vec<PayloadError> {
        Vec::new()
    }

    /// One line that describes this instance for the conversation's payload manifest.
    fn summarize(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(Value::Null);
        summary::default_summary(Self::NAME, &value)
    }
}

/// What an app does with a payload once the parser accepts it: what the model must be
/// told so it describes its own reply truthfully (`examples/payload/docs/prompts.md`, "Payload kinds").
///
/// The parser reads every kind the same way; the kind changes only the words of the
/// prompt (the preamble's rule for the kind, the type's "When to use" line) and what
/// the generated docs say of the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayloadKind {
    /// A change the user reviews and then applies or dismisses (table.that's schema and
    /// data proposals): nothing has happened when the reply arrives.
    #[default]
    Proposal,
    /// Something the app does as soon as the reply arrives, with no review (a timer, a
    /// unit conversion): it has happened once the reply is shown.
    Command,
    /// Something the app shows and nothing more (a chart, a card of facts): there is
    /// nothing to apply and nothing happens.
    Display,
}

impl PayloadKind {
    /// The kind's name as the derive attribute and JSON write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            PayloadKind::Proposal => "proposal",
            PayloadKind::Command => "command",
            PayloadKind::Display => "display",
        }
    }
}

impl fmt::Display for PayloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The type-erased face of a payload type: what registries, the marker parser and the
/// prompt builder need. One descriptor for both kinds of type: a Rust type's
/// ([`PayloadType::of`], built in a `const` context so it can live in a `static`, which
/// is what link-time registration needs) and one known only at run time, from a JSON
/// Schema document ([`PayloadType::from_schema`]). Which kind it is is decided once,
/// when the descriptor is made; every use then calls through one reference.
#[derive(Clone, Copy)]
pub struct PayloadType {
    /// See [`LlmPayload::NAME`].
    pub name: &'static str,
    /// See [`LlmPayload::MARKER`].
    pub marker: &'static str,
    /// See [`LlmPayload::TAG`]: when not empty, the parser reads the type between
    /// `<tag>` and `</tag>` instead of after its marker.
    pub tag: &'static str,
    /// See [`LlmPayload::DESCRIPTION`].
    pub description: &'static str,
    /// See [`LlmPayload::RULES`].
    pub rules: &'static [&'static str],
    /// See [`LlmPayload::KIND`].
    pub kind: PayloadKind,
    /// Whether a `null` for an optional member that does not accept `null` reads as
    /// the member left out ([`PayloadType::strict_nulls`]).
    strict_nulls: bool,
    source: &'static dyn Source,
}

/// Where a descriptor's schema, decoding, example and summary come from: a Rust type
/// ([`Derived`]) or a schema document read at run time
/// ([`crate::runtime::RuntimeSource`]).
pub(crate) trait Source: Send + Sync {
    /// The Rust type's id; `None` for a runtime type.
    fn type_id(&self) -> Option<TypeId>;
    /// The schema in `dialect`.
    fn schema(&self, dialect: Dialect) -> Value;
    /// The OpenAI strict schema, or why there is none.
    fn strict(&self) -> Result<Value, StrictRefusal>;
    /// The compiled 2020-12 schema.
    fn compiled(&self) -> &'static CompiledSchema;
    /// Decodes a schema-valid value and applies the type's own rules.
    fn decode(&self, value: &Value, roundtrip: bool) -> TypedDecode;
    /// The message of the first thing decoding `value` refuses
    /// ([`decode::Decoder::refusal`]).
    fn refusal(&self, value: &Value) -> Option<String> {
        decode::first_message(&self.decode(value, false))
    }
    /// The value as decoding reads it, written back ([`decode::Decoder::roundtrip`]).
    fn roundtrip(&self, value: &Value) -> Option<Value> {
        self.decode(value, true).roundtrip
    }
    /// The example, as JSON.
    fn example(&self) -> Option<Value>;
    /// The manifest line of a payload of this type.
    fn summarize(&self, payload: &CustomPayload) -> Option<String>;
}

/// The source of a Rust type's descriptor: everything comes from `T`.
struct Derived<T>(PhantomData<fn() -> T>);

impl<T: LlmPayload> Derived<T> {
    /// A `'static` reference a `const fn` can put in a descriptor.
    const SOURCE: &'static dyn Source = &Derived::<T>(PhantomData);

    /// What `T` declares for its schema beyond its `JsonSchema`.
    const DECLARED: derived::Declared = derived::Declared {
        format_options: T::FORMAT_OPTIONS,
        stream_marks: T::stream_marks,
    };
}

impl<T: LlmPayload> Source for Derived<T> {
    fn type_id(&self) -> Option<TypeId> {
        Some(TypeId::of::<T>())
    }

    fn schema(&self, dialect: Dialect) -> Value {
        derived::generate::<T>(dialect, Derived::<T>::DECLARED)
    }

    fn strict(&self) -> Result<Value, StrictRefusal> {
        derived::generate_strict::<T>(Derived::<T>::DECLARED)
    }

    fn compiled(&self) -> &'static CompiledSchema {
        derived::compiled::<T>(Derived::<T>::DECLARED)
    }

    fn decode(&self, value: &Value, roundtrip: bool) -> TypedDecode {
        decode_value::<T>(value, roundtrip)
    }

    fn refusal(&self, value: &Value) -> Option<String> {
        // The words of `decode_value`'s error without the second, path-tracking decode
        // that places it: the alias test reads only the words.
        match T::deserialize(value) {
            // The alias test asks this of many probes: the words are joined in one
            // buffer of the right size rather than formatted twice.
            Err(error) => {
                let words = error.to_string();
                let mut message = String::with_capacity(DOES_NOT_DECODE.len() + 2 + words.len());
                message.push_str(DOES_NOT_DECODE);
                message.push_str(": ");
                message.push_str(&words);
                Some(message)
            }
            Ok(decoded) => decoded.check().first().map(|e| e.message().to_owned()),
        }
    }

    fn roundtrip(&self, value: &Value) -> Option<Value> {
        // `decode_value`'s roundtrip, without the rules it does not depend on and the
        // path-tracking decode of a failure.
        T::deserialize(value)
            .ok()
            .and_then(|decoded| serde_json::to_value(decoded).ok())
    }

    fn example(&self) -> Option<Value> {
        T::example().and_then(|example| serde_json::to_value(example).ok())
    }

    fn summarize(&self, payload: &CustomPayload) -> Option<String> {
        payload.get::<T>().map(T::summarize)
    }
}

impl PayloadType {
    /// The descriptor of `T`.
    pub const fn of<T: LlmPayload>() -> PayloadType {
        PayloadType {
            name: T::NAME,
            marker: T::MARKER,
            tag: T::TAG,
            description: T::DESCRIPTION,
            rules: T::RULES,
            kind: T::KIND,
            strict_nulls: false,
            source: Derived::<T>::SOURCE,
        }
    }

    /// The descriptor of a runtime type (leaked strings, a leaked source).
    pub(crate) fn runtime(
        name: &'static str,
        marker: &'static str,
        description: &'static str,
        source: &'static dyn Source,
    ) -> PayloadType {
        PayloadType {
            name,
            marker,
            tag: "",
            description,
            rules: &[],
            kind: PayloadKind::Proposal,
            strict_nulls: false,
            source,
        }
    }

    /// The type's JSON Schema in `dialect`.
    pub fn schema(&self, dialect: Dialect) -> Value {
        self.source.schema(dialect)
    }

    /// The type's schema in OpenAI's strict subset (Structured Outputs with
    /// `strict: true`), accepting exactly the values the type's 2020-12 schema accepts;
    /// or, when no strict schema can say that, the first reason why.
    ///
    /// The subset: an object at the top; every object closed and every member required
    /// (an optional member accepts `null` instead, which [`PayloadType::strict_nulls`]
    /// reads back as absent); the keywords `type`, `properties`, `required`,
    /// `additionalProperties: false`, `items`, `enum`, `const`, `anyOf`, `$ref` into
    /// `$defs` or `#`, `description`, `title`, `pattern`, the formats `date-time`,
    /// `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`, the
    /// number bounds and `multipleOf`, `minItems` and `maxItems`; at most 10 levels of
    /// object nesting, 5000 properties, 1000 enum values and 120,000 characters of names
    /// and values.
    ///
    /// Rewrites that keep the accepted values are made: an integer `format` becomes
    /// `minimum`/`maximum`; a `oneOf` whose branches are provably exclusive (distinct
    /// types, constants or required tags) becomes an `anyOf`; a `$ref` with keywords
    /// beside it is inlined with them when its definition is not recursive (the
    /// member's `description` is kept that way; beside a recursive `$ref` it is
    /// dropped); `default`, `examples`, `$schema`, `x-...` extension keys and a float's
    /// `format` only annotate and are dropped. Anything else the subset lacks
    /// (`minLength`, `uniqueItems`, a free-form map, an overlapping `oneOf`, an array or
    /// enum at the top) is refused. [`PayloadType::schema`] with
    /// [`Dialect::OpenAiStrict`] is this schema when there is one, the best effort
    /// otherwise.
    pub fn strict_schema(&self) -> Result<Value, StrictRefusal> {
        self.source.strict()
    }

    /// This descriptor, reading strict output: a `null` written for a member that the
    /// type's schema leaves optional (not in `required`) and whose own schema does not
    /// accept `null` counts as the member left out, everywhere this descriptor
    /// validates (marker mode, whole-response extraction, [`PayloadType::validate`]).
    ///
    /// A model answering with [`PayloadType::strict_schema`] must write every member,
    /// and writes `null` for those it has no value for; without this, such a `null` is
    /// refused where the type's schema does not allow it. The member is removed from
    /// the value before it is checked, so `data` holds it absent. Where the value does
    /// not decide which branch of a union applies, the members of the branches are left
    /// as they are. Off by default; the descriptor is still equal to the plain one.
    pub const fn strict_nulls(mut self) -> PayloadType {
        self.strict_nulls = true;
        self
    }

    /// Whether [`PayloadType::strict_nulls`] is on.
    pub fn reads_strict_nulls(&self) -> bool {
        self.strict_nulls
    }

    /// The compiled 2020-12 schema the validator uses (built once per type).
    pub(crate) fn compiled(&self) -> &'static CompiledSchema {
        self.source.compiled()
    }

    /// Whether the value's top level is a JSON object, array, or either.
    pub fn shape(&self) -> Shape {
        self.compiled().shape()
    }

    /// Validates `value` against the schema, then decodes it and applies the type's
    /// rules. Every problem found is returned (at most 100, then one error that counts
    /// the rest). The steps, in order: integer-valued floats where integers are wanted are
    /// read as integers, the schema is checked, members the type does not declare are
    /// compared with the absent ones (a near miss is an error), and the value is decoded
    /// and the type's own rules run.
    pub fn validate(&self, value: &Value) -> Result<(), Vec<PayloadError>> {
        let checked = self.check(&mut value.clone());
        if checked.is_valid() {
            Ok(())
        } else {
            Err(checked.errors)
        }
    }

    /// Checks `value` as the parsers do ([`crate::validate::check`]): integer-valued floats
    /// where integers are wanted are rewritten as integers in place, the schema and the
    /// type's rules are checked, and members the type does not declare are warned about
    /// (or, when they are near misses of absent members, reported as errors).
    pub(crate) fn check(&self, value: &mut Value) -> Checked {
        self.absent_nulls(value);
        check::check(value, self.compiled(), BySource(self.source))
    }

    /// [`PayloadType::check`] that stops without building errors when the schema
    /// refuses the value ([`check::probe`]).
    pub(crate) fn probe(&self, value: &mut Value) -> Probe {
        self.absent_nulls(value);
        check::probe(value, self.compiled(), BySource(self.source))
    }

    /// Why decoding `value` fails, twice: as the alias test asks it
    /// ([`decode::Decoder::refusal`]), and as the first message of the full decode. They
    /// agree (`tests/all/validation_plan.rs`).
    #[cfg(feature = "__internals")]
    pub(crate) fn refusals(&self, value: &Value) -> (Option<String>, Option<String>) {
        let full = decode::first_message(&self.source.decode(value, false));
        (self.source.refusal(value), full)
    }

    /// The value as decoding reads it, written back, twice: as the alias test asks it
    /// ([`decode::Decoder::roundtrip`]), and as the full decode gives it. They agree
    /// (`tests/all/validation_plan.rs`).
    #[cfg(feature = "__internals")]
    pub(crate) fn roundtrips(&self, value: &Value) -> (Option<Value>, Option<Value>) {
        let full = self.source.decode(value, true).roundtrip;
        (self.source.roundtrip(value), full)
    }

    /// [`PayloadType::check`] with validation's step 0 done eagerly
    /// ([`check::check_eagerly`]): the reference the lazy step is compared with.
    #[cfg(feature = "__internals")]
    pub(crate) fn check_eagerly(&self, value: &mut Value) -> Checked {
        self.absent_nulls(value);
        check::check_eagerly(value, self.compiled(), BySource(self.source))
    }

    /// Removes the `null`s [`PayloadType::strict_nulls`] reads as absent (when on).
    fn absent_nulls(&self, value: &mut Value) {
        if self.strict_nulls {
            crate::validate::strict_nulls::remove(value, self.compiled().schema());
        }
    }

    /// `value` as this type's decoding reads it, written back: what an application that
    /// decodes the payload keeps (members the type does not have left out, defaults
    /// filled in, each member under its own name); `None` when it does not decode.
    pub fn roundtrip(&self, value: &Value) -> Option<Value> {
        self.source.roundtrip(value)
    }

    /// The example instance as JSON, if the type has one.
    pub fn example(&self) -> Option<Value> {
        self.source.example()
    }

    /// The one-line summary of a payload of this type ([`LlmPayload::summarize`] on the
    /// value validation decoded; `None` when it is of another type or does not decode).
    pub fn summarize(&self, payload: &CustomPayload) -> Option<String> {
        self.source.summarize(payload)
    }

    /// Whether this descriptor is the one of `T` (never, for a runtime type).
    pub fn is<T: 'static>(&self) -> bool {
        self.source.type_id() == Some(TypeId::of::<T>())
    }

    /// Whether the type is known only at run time ([`PayloadType::from_schema`]).
    pub fn is_runtime(&self) -> bool {
        self.source.type_id().is_none()
    }
}

impl PartialEq for PayloadType {
    /// The same Rust type, or the same runtime type (the one made by one
    /// [`PayloadType::from_schema`] call).
    fn eq(&self, other: &Self) -> bool {
        match (self.source.type_id(), other.source.type_id()) {
            (Some(a), Some(b)) => a == b,
            (None, None) => std::ptr::addr_eq(self.source, other.source),
            _ => false,
        }
    }
}

impl Eq for PayloadType {}

impl fmt::Debug for PayloadType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PayloadType")
            .field("name", &self.name)
            .field("marker", &self.marker)
            .field("tag", &self.tag)
            .field("strict_nulls", &self.strict_nulls)
            .finish_non_exhaustive()
    }
}

/// Decodes a schema-valid value into `T` and applies its rules; with `roundtrip`,
/// also writes the decoded value back as JSON (to see which members serde took in).
fn decode_value<T: LlmPayload>(value: &Value, roundtrip: bool) -> TypedDecode {
    // Tracking the path costs a wrapper around every seed and visitor, and it is needed
    // only for the message of a failure: decode plainly, and again with the path only
    // when that fails.
    let decoded = match T::deserialize(value) {
        Ok(decoded) => decoded,
        Err(_) => {
            let error = match serde_path_to_error::deserialize::<_, T>(value) {
                Err(error) => decode_error(error),
                // Deserializing the same value twice gave two answers (a `Deserialize`
                // with state of its own): report the first failure, at the root.
                Ok(_) => PayloadError::validation("", "the value does not decode")
                    .with_suggestion("follow the schema exactly"),
            };
            return TypedDecode {
                errors: vec![error],
                roundtrip: None,
                typed: None,
            };
        }
    };
    let errors = decoded.check();
    TypedDecode {
        roundtrip: roundtrip
            .then(|| serde_json::to_value(&decoded).ok())
            .flatten(),
        typed: errors.is_empty().then(|| Arc::new(decoded) as AnyPayload),
        errors,
    }
}

/// A descriptor's source as the decoder of validation's steps.
struct BySource(&'static dyn Source);

impl decode::Decoder for BySource {
    fn decode(&self, value: &Value, roundtrip: bool) -> TypedDecode {
        self.0.decode(value, roundtrip)
    }

    fn refusal(&self, value: &Value) -> Option<String> {
        self.0.refusal(value)
    }

    fn roundtrip(&self, value: &Value) -> Option<Value> {
        self.0.roundtrip(value)
    }
}

/// How a decode error's message begins.
const DOES_NOT_DECODE: &str = "the value does not decode";

/// A serde error on a value that passed the schema: the schema and the type disagree
/// somewhere (a custom `Deserialize`, a number out of a field's range). The error is
/// placed at the member serde was decoding (docs/spec.md §7.2: no empty path when the member is
/// known).
fn decode_error(error: serde_path_to_error::Error<serde_json::Error>) -> PayloadError {
    let path = pointer_of(error.path());
    PayloadError::validation(path, format!("{DOES_NOT_DECODE}: {}", error.inner()))
        .with_suggestion("follow the schema exactly")
}

/// The JSON Pointer of a serde path. A path that passes through a buffered enum
/// (internally tagged, untagged) ends at the enum, which is as far as serde can tell.
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        let token = match segment {
            Segment::Seq { index } => index.to_string(),
            // An externally tagged variant is the key of its one member.
            Segment::Map { key } | Segment::Enum { variant: key } => pointer::escape_token(key),
            Segment::Unknown => break,
        };
        pointer.push('/');
        pointer.push_str(&token);
    }
    pointer
}

/// The custom payload of a response: `{"type": name, "data": value}`.
///
/// The value is kept twice, as what the model wrote (`data`, JSON) and as the Rust
/// value validation decoded it into, so that [`CustomPayload::get`] is a lookup, not a
/// second decode. `data` is reached through accessors so the two cannot drift apart.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CustomPayload {
    /// The payload type's name (e.g. `schema_proposal`).
    #[serde(rename = "type")]
    pub kind: String,
    data: Value,
    #[serde(skip)]
    typed: Typed,
}

impl PartialEq for CustomPayload {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.data == other.data
    }
}

impl CustomPayload {
    /// A payload of type `kind` holding `data`.
    pub fn new(kind: impl Into<String>, data: Value) -> Self {
        CustomPayload {
            kind: kind.into(),
            data,
            typed: Typed::default(),
        }
    }

    /// A validated payload with the value it was decoded into.
    pub(crate) fn validated(kind: &str, data: Value, decoded: Option<AnyPayload>) -> Self {
        CustomPayload {
            kind: kind.to_string(),
            data,
            typed: Typed::holding(decoded),
        }
    }

    /// Wraps a typed payload.
    pub fn of<T: LlmPayload>(payload: &T) -> Result<Self, serde_json::Error> {
        Ok(CustomPayload::new(T::NAME, serde_json::to_value(payload)?))
    }

    /// The validated value, as JSON.
    pub fn data(&self) -> &Value {
        &self.data
    }

    /// The value as JSON, for changing it; what was decoded from it is forgotten.
    pub fn data_mut(&mut self) -> &mut Value {
        self.typed = Typed::default();
        &mut self.data
    }

    /// The value as JSON, taken out.
    pub fn into_data(self) -> Value {
        self.data
    }

    /// The data as `T`, if this payload is of type `T`: the value validation decoded,
    /// without decoding again.
    pub fn get<T: LlmPayload>(&self) -> Option<&T> {
        if self.kind != T::NAME {
            return None;
        }
        self.typed.get::<T>(&self.data)
    }

    /// The data as an owned `T`, if this payload is of type `T` (decoded again only when
    /// a clone of this payload still shares the decoded value).
    pub fn into_typed<T: LlmPayload>(self) -> Option<T> {
        if self.kind != T::NAME {
            return None;
        }
        self.typed.take::<T>(&self.data)
    }
}
