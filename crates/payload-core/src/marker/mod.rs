//! Marker mode (SPEC section 1): a response is prose with marked blocks
//! (`SCHEMA_PROPOSAL: {...}`, `SUGGESTED_VALUES: [...]`).
//!
//! - [`parse`]: the one-shot parser, [`Parser`](parse::Parser) and [`ParseOptions`](parse::ParseOptions);
//! - [`response`]: what it returns, in the serde form SPEC shows;
//! - [`suggestions`]: suggestion chips, client-action buttons and the actions a page allows;
//! - [`message`]: the prose left when the blocks are removed;
//! - [`near_miss`]: page markers written in another case or spelling (SPEC 8.6).

pub(crate) mod message;
pub(crate) mod near_miss;
pub(crate) mod parse;
pub(crate) mod response;
pub(crate) mod suggestions;
