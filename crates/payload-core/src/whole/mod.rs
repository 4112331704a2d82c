//! Whole-response mode (SPEC 3, 7.8-7.16): the entire response is one value of one
//! type, in JSON or in one of the other formats.
//!
//! - [`extract`]: finding the candidate values in a response, reading, coercing and
//!   validating them, and choosing the answer;
//! - [`formats`]: YAML-like, TOML-like, XML, tagged and delimited text, read into JSON
//!   values and rendered from them.

pub(crate) mod extract;
pub mod formats;
pub(crate) mod policy;
