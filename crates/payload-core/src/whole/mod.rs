//! Whole-response mode (docs/spec.md §3, §4.4, §4.5, §7.1, §7.2, §7.3, §7.4, §8.1, §8.2, §8.3): the
//! entire response is one value of one type, in JSON or in one of the other formats.
//!
//! - [`extract`]: finding the candidate values in a response, reading, coercing and
//!   validating them, and choosing the answer;
//!
//! The other formats' readers ([`crate::formats`]: YAML-like, TOML-like, XML, tagged
//! and delimited text) and a type's `x-parsing` (`crate::policy`) sit lower, in modules
//! of their own: the layers of schemas and validation below this mode use them.

pub(crate) mod extract;
