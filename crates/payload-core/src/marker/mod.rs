//! Marker mode (SPEC section 1): a response is prose with marked blocks
//! (`SCHEMA_PROPOSAL: {...}`, `SUGGESTED_VALUES: [...]`).
//!
//! - [`parse`]: the one-shot parser, [`Parser`](parse::Parser) and [`ParseOptions`](parse::ParseOptions);
//! - [`response`]: what it returns, in the serde form SPEC shows;
//! - [`suggestions`]: suggestion chips, client-action buttons and the actions a page allows;
//! - [`message`]: the prose left when the blocks are removed.

pub(crate) mod message;
pub(crate) mod parse;
pub(crate) mod response;
pub(crate) mod suggestions;
