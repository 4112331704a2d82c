//! # table-that-web
//!
//! table.that as an app of the generic chat server ([`payload_serve`]): its SQLite
//! tables (each user table's columns as metadata, its rows in `data_<id>`), what
//! accepting its proposals does (a SCHEMA_PROPOSAL creates or alters a table, a
//! DATA_PROPOSAL changes the ticked rows), its routes (`/api/tables`, a table, its
//! CSV), the page context the model is told (the user's tables, the open table's
//! columns and rows), its page script (the tables list, a table's rows and its column
//! editor, its cards and client actions) and its recorded conversation as the replay
//! model.
//!
//! A crate of its own, not a feature of `table-that`: the pages and the recording stay
//! in a library that links no web server and no database (what `tests/all/crate_graph.rs`
//! checks, with every feature on), and this one adds the web part.

#![forbid(unsafe_code)]

pub mod accept;
mod apply;
mod column_ids;
mod column_order;
#[doc(hidden)]
pub mod fuzz;
mod routes;
pub mod tables;

pub use apply::{Applied, ApplyError, Skipped, Tables};

use payload_builtin::{DataProposal, SchemaProposal};
use payload_registry::Registry;
use payload_serve::assets::Asset;
use payload_serve::{ApiError, App, Db, Handlers, RecordedAnswer};
use serde_json::Value;
use std::path::Path;

/// The pages served, the first being where the chat starts.
pub const PAGES: &[&str] = &["tables_list", "table_view", "table_edit"];

/// The app over `registry` (which must hold table.that's pages: link `table-that`),
/// answering with the recorded conversation until [`App::model`] replaces it.
pub fn app(registry: &'static Registry) -> App {
    App::new(registry)
        .title("table.that")
        .pages(PAGES)
        .schema(tables::SCHEMA)
        .replay(recording())
        .context(context)
        .routes(routes::router())
        .on_accept::<SchemaProposal, _>(accept::schema)
        .on_accept::<DataProposal, _>(accept::data)
        .asset(Asset::script(
            "table-that.js",
            include_str!("../assets/table-that.js"),
        ))
}

/// The accept handlers alone (what the decision tests run).
pub fn handlers() -> Handlers {
    Handlers::new()
        .on_accept::<SchemaProposal, _>(accept::schema)
        .on_accept::<DataProposal, _>(accept::data)
}

/// The database with table.that's tables, in `path` or in memory.
pub fn open_db(path: Option<&Path>) -> rusqlite::Result<Db> {
    Db::open_with(path, &[tables::SCHEMA])
}

/// table.that's recorded conversation, as the replay model plays it.
pub fn recording() -> Vec<RecordedAnswer> {
    table_that::CONVERSATION
        .iter()
        .map(|turn| RecordedAnswer {
            page: turn.page,
            text: turn.text,
            cut: turn.cut,
        })
        .collect()
}

/// What the model is told about the page: the client's context with the database's
/// facts added ([`tables::page_context`]).
fn context(db: &Db, page: &str, client: &Value) -> Result<Value, ApiError> {
    Ok(tables::page_context(&db.conn(), page, client)?)
}
