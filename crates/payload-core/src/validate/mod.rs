//! Validation: checking one value against a payload type, the steps marker mode and
//! whole-response mode share (docs/spec.md §2, §7.1, §7.2, §7.3, §7.4).
//!
//! - [`aliases`]: undeclared members serde reads under another name, renamed to it;
//! - [`check`]: the steps in order: the schema, members the type does not declare,
//!   integer-valued numbers, decoding into the type and its own rules;
//! - [`decode`]: decoding a schema-valid value into its type (the check's last step);
//! - [`compiled`]: a type's schema compiled into the validator, and [`bounded`]: its
//!   errors, in work and memory bounded by the value;
//! - [`plan`]: the schema compiled into a plan that finds a clean value (valid, nothing
//!   to report) in one walk, so that it skips the validator and the walk below;
//! - [`schema_errors`]: `jsonschema` errors turned into errors a model can act on;
//! - [`walk`]: one walk over the value for the two rules serde alone would not report,
//!   [`numbers`] (integer-valued floats) and [`members`] (undeclared members);
//! - [`coerce`]: schema-aligned coercion, whole-response mode only;
//! - [`variant`]: errors of a per-variant rule, placed where the variant sits;
//! - [`strict_nulls`]: the `null`s of strict output read as absent members, when a
//!   descriptor opts in.

pub(crate) mod aliases;
pub(crate) mod bounded;
pub(crate) mod catch_all;
pub(crate) mod check;
pub(crate) mod coerce;
pub(crate) mod compiled;
pub(crate) mod decode;
pub(crate) mod members;
pub(crate) mod numbers;
pub(crate) mod plan;
pub(crate) mod schema_errors;
pub(crate) mod strict_nulls;
pub(crate) mod variant;
pub(crate) mod walk;
