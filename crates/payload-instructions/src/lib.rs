//! Prompt instructions generated from a payload type's schema: the text that teaches a
//! model to emit the type, in marker mode ([`payload_instructions`]) or as a whole
//! response ([`whole_response_instructions`]), and the format rules of suggestion chips
//! and action buttons ([`suggestion_format_rules`]).
//!
//! Everything is derived from the one schema the validator checks
//! (`PayloadType::schema(Dialect::Draft2020_12)`), so what the prompt teaches and what is
//! accepted cannot drift apart. The schema is not pasted into the prompt: it is written
//! as the value's shape ([`render_shape`]), which a model follows more reliably and
//! which costs a fraction of the tokens ([`size_report`] measures it).
//!
//! The shape is kept as short as the most compact peer's rendering while stating more:
//! against BAML's `ctx.output_format` for the same schemas (`benches/peers/baml`), the
//! structure of `schema_proposal` was 1.01 times BAML's, `selfhelp_response` 0.98 and
//! `contacts_command` 1.10 (measured before shared definitions were named: that took
//! `schema_proposal`'s shape from 4,246 to 3,480 characters, the others unchanged; the
//! peer script was not rerun), and unlike BAML's it also states every bound, each
//! variant's meaning and the members a flattened enum shares. Comments follow the text
//! after two spaces (aligning them in a column costs as many tokens as they hold), an
//! optional member is `?` without `| null`, "no other fields" is said once in the
//! legend, and a shared definition is written out once, labelled with its name at its
//! first use and named everywhere else, across all the payload types of a page
//! ([`Definitions`], [`payload_instructions_in`]).
//!
//! Hand-written because no crate does this: schema-to-TypeScript generators write type
//! declarations (names, `interface`s) rather than the value itself with its bounds, and
//! the marker conventions are ours. Output is deterministic, so it can be compared
//! with expected text in tests. A type's members are listed in the order its schema
//! holds them: as declared when the app turns on payload-core's `preserve_order`
//! feature, sorted by name otherwise.

#![forbid(unsafe_code)]

mod count;
mod formats;
mod shape;
mod suggestions;
mod text;

pub use count::payload_count_sentence;
pub use formats::whole_response_instructions_in;
pub use shape::{Definitions, TopLevel, render_shape, render_shape_in, top_level};
pub use suggestions::suggestion_format_rules;
pub use text::{
    payload_instructions, payload_instructions_in, section_sizes, whole_response_instructions,
};

use serde_json::Value;

/// How much the instructions say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verbosity {
    /// Only what a model cannot do without: the marker line, the shape and the rules.
    Concise,
    /// Also the constraints in words, the common mistakes and the example.
    #[default]
    Detailed,
}

impl Verbosity {
    /// Every verbosity, least first.
    pub const ALL: [Verbosity; 2] = [Verbosity::Concise, Verbosity::Detailed];

    /// The lowercase name (`concise`, `detailed`), as a command line or a config writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verbosity::Concise => "concise",
            Verbosity::Detailed => "detailed",
        }
    }
}

impl std::fmt::Display for Verbosity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Verbosity {
    type Err = UnknownVerbosity;

    /// Reads the name [`Verbosity::as_str`] writes.
    fn from_str(name: &str) -> Result<Verbosity, UnknownVerbosity> {
        Verbosity::ALL
            .into_iter()
            .find(|verbosity| verbosity.as_str() == name)
            .ok_or_else(|| UnknownVerbosity(name.to_string()))
    }
}

/// A name that is no [`Verbosity`]; its `Display` names the ones there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVerbosity(String);

impl std::fmt::Display for UnknownVerbosity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown verbosity '{}' (use concise or detailed)",
            self.0
        )
    }
}

impl std::error::Error for UnknownVerbosity {}

/// What the generated instructions include (the output-schema app's `generateInstructions`
/// options).
///
/// The default is everything, detailed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstructionOptions {
    /// Concise instructions leave out the example, the constraint list and the warnings.
    pub verbosity: Verbosity,
    /// Show the type's example instance (detailed only).
    pub include_example: bool,
    /// State bounds (min/max, lengths, item counts, patterns, formats, defaults) in the
    /// shape, and list required members and bounds in words (detailed only).
    pub include_constraints: bool,
    /// Write the schema's descriptions (the doc comments) as comments in the shape.
    pub include_descriptions: bool,
    /// Warn about the mistakes models make most (detailed only).
    pub error_prevention: bool,
    /// How many payloads one response may hold on the page the instructions are for
    /// ([`payload_core::PayloadCount::ONE`] by default): the common mistakes say how
    /// many blocks of the type one response may hold.
    pub payload_count: payload_core::PayloadCount,
}

impl Default for InstructionOptions {
    fn default() -> Self {
        InstructionOptions {
            verbosity: Verbosity::Detailed,
            include_example: true,
            include_constraints: true,
            include_descriptions: true,
            error_prevention: true,
            payload_count: payload_core::PayloadCount::ONE,
        }
    }
}

impl InstructionOptions {
    /// The concise variant of the defaults.
    pub fn concise() -> Self {
        InstructionOptions {
            verbosity: Verbosity::Concise,
            ..Self::default()
        }
    }

    fn detailed(&self) -> bool {
        self.verbosity == Verbosity::Detailed
    }
}

/// How long a type's shape is next to its schema, in characters: what the shape saves
/// in the prompt ([`size_report`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeReport {
    /// The length of [`render_shape`] with the default options.
    pub shape: usize,
    /// The length of the schema pretty-printed.
    pub schema: usize,
}

/// The length in characters of [`render_shape`] with the default options, and of the
/// schema pretty-printed.
pub fn size_report(schema: &Value) -> SizeReport {
    let shape = render_shape(schema, &InstructionOptions::default());
    let dump = serde_json::to_string_pretty(schema).unwrap_or_default();
    SizeReport {
        shape: shape.chars().count(),
        schema: dump.chars().count(),
    }
}

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;
