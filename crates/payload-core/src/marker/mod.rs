//! Marker mode (docs/spec.md §1): a response is prose with marked blocks
//! (`SCHEMA_PROPOSAL: {...}`, `SUGGESTED_VALUES: [...]`).
//!
//! - [`parse`]: the one-shot parser, [`Parser`](parse::Parser) and
//!   [`ParseOptions`](parse::ParseOptions);
//! - [`response`]: what it returns, in the serde form docs/spec.md §1 shows;
//! - [`suggestions`]: suggestion chips, client-action buttons and the actions a page allows;
//! - [`combination`]: which blocks a page lets one response hold together;
//! - [`count`]: how many custom payloads a page lets one response hold;
//! - [`message`]: the prose left when the blocks are removed;
//! - [`parts`]: the answer as ordered parts; [`part_builder`] builds them,
//!   [`placing`] places reasoning sections among them, [`parts_json`] reads what they
//!   hold and writes them; [`rejected`]: a block not accepted;
//! - [`near_miss`]: page markers written in another case or spelling (docs/spec.md §1.16).

pub(crate) mod combination;
pub(crate) mod count;
pub(crate) mod message;
pub(crate) mod near_miss;
pub(crate) mod parse;
pub(crate) mod part_builder;
pub(crate) mod parts;
pub(crate) mod parts_json;
pub(crate) mod placing;
pub(crate) mod rejected;
pub(crate) mod response;
pub(crate) mod suggestions;
