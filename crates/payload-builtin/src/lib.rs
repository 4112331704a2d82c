//! # payload-builtin
//!
//! The payload types every chat app of the table.that family uses, and the global
//! `close_chat` action. Linking this crate registers them; it registers no pages (pages
//! belong to apps).
//!
//! - [`SuggestedValues`] / [`SuggestedActions`]: chips and buttons (parsed natively on
//!   every page with suggestions; registered so their schema and format are documented).
//! - [`SchemaProposal`]: create a table or change its columns, with table.that's mode rules.
//! - [`DataProposal`]: add, update or delete rows in bulk.
//!
//! Both proposals have partial forms ([`SchemaProposalPartial`], [`DataProposalPartial`]):
//! a client renders the card from `event.partial::<DataProposal>()` while the rows
//! arrive.

#![forbid(unsafe_code)]

mod data_proposal;
mod examples;
mod schema_proposal;
mod schema_rules;
mod suggestions;

pub use data_proposal::{DataOperation, DataOperationPartial, DataProposal, DataProposalPartial};
pub use schema_proposal::{
    ColumnChanges, ColumnChangesPartial, ColumnSpec, ColumnSpecPartial, ColumnType, FilterDisplay,
    SchemaMode, SchemaOperation, SchemaOperationPartial, SchemaProposal, SchemaProposalPartial,
};
pub use suggestions::{SuggestedActions, SuggestedValues};

use payload_core::suggestions::ActionSpec;

/// The action that closes the chat panel, offered on every page.
pub const CLOSE_CHAT: ActionSpec = ActionSpec::client("close_chat", "Close the chat panel");

payload_registry::register_action!(CLOSE_CHAT);

#[cfg(test)]
mod caps_tests;
