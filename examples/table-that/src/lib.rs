//! # table.that
//!
//! The table.that chat (table.that) rebuilt on the framework: its three pages, with seed
//! 000's availability matrix, and their context builders. The payload types themselves
//! (SCHEMA_PROPOSAL, DATA_PROPOSAL, suggestions, `close_chat`) come from
//! `payload-builtin`; linking this crate registers the pages.
//!
//! | Element           | tables_list | table_edit | table_view |
//! |-------------------|-------------|------------|------------|
//! | SUGGESTED_VALUES  | Yes         | Yes        | Yes        |
//! | SUGGESTED_ACTIONS | Yes         | Yes        | Yes        |
//! | SCHEMA_PROPOSAL   | Yes         | Yes        | Yes        |
//! | DATA_PROPOSAL     | No          | No         | Yes        |
//!
//! On every page a proposal goes alone: a response holding one holds no suggestion
//! chips or buttons, since the user applies or dismisses the proposal first
//! ([`PROPOSAL_ALONE`], each page's `combination`).

#![forbid(unsafe_code)]

mod context;
mod recording;

pub use recording::{CONVERSATION, RecordedTurn};

use payload_builtin::{DataProposal, SchemaProposal};
use payload_core::{LlmPayload, suggestions::ActionSpec, suggestions::Combination};
use payload_registry::Page;

/// table.that's rule on which blocks go together: a response with a proposal holds no
/// SUGGESTED_VALUES and no SUGGESTED_ACTIONS (the user must apply or dismiss the
/// proposal first). Each page declares it; the prompt states it, the parser applies it
/// and the grammars hold it.
pub const PROPOSAL_ALONE: Combination = Combination::PAYLOAD_ALONE;

/// The page listing every table: create a new table from a conversation.
pub const TABLES_LIST: Page = Page::new("tables_list")
    .description("The list of the user's tables")
    .instructions(
        "The user is looking at the list of their tables. Help them decide what to track \
         and propose a new table with SCHEMA_PROPOSAL in create mode once you know enough.",
    )
    .payloads(&[<SchemaProposal as LlmPayload>::TYPE])
    .starters(&[
        "I want to track my job applications",
        "Help me set up a reading list",
    ])
    .combination(PROPOSAL_ALONE)
    .context(context::tables_list);

/// The page that edits one table's columns.
pub const TABLE_EDIT: Page = Page::new("table_edit")
    .description("The column editor of one table")
    .instructions(
        "The user is editing the columns of the current table. Propose column changes \
         with SCHEMA_PROPOSAL in update mode, referencing columns by column_id.",
    )
    .payloads(&[<SchemaProposal as LlmPayload>::TYPE])
    .actions(&[ActionSpec::client(
        "open_column_editor",
        "Open the column editor panel",
    )])
    .starters(&["Add a column for the salary range"])
    .combination(PROPOSAL_ALONE)
    .context(context::table);

/// The page that shows one table's rows.
pub const TABLE_VIEW: Page = Page::new("table_view")
    .description("The rows of one table")
    .instructions(
        "The user is looking at the rows of the current table. Propose bulk row changes \
         with DATA_PROPOSAL and column changes with SCHEMA_PROPOSAL in update mode.",
    )
    .payloads(&[
        <SchemaProposal as LlmPayload>::TYPE,
        <DataProposal as LlmPayload>::TYPE,
    ])
    .actions(&[
        ActionSpec::client("open_filters", "Open the filter panel"),
        ActionSpec::client("export_csv", "Download the table as CSV"),
    ])
    .starters(&[
        "Add a few sample rows",
        "Which applications are at the onsite stage or later?",
    ])
    .combination(PROPOSAL_ALONE)
    .context(context::table);

payload_registry::register_page!(TABLES_LIST);
payload_registry::register_page!(TABLE_EDIT);
payload_registry::register_page!(TABLE_VIEW);
