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
        .on_accept(accept::schema)
        .on_accept(accept::data)
        .asset(Asset::script(
            "table-that.js",
            include_str!("../assets/table-that.js"),
        ))
}

/// The accept handlers alone (what the decision tests run).
pub fn handlers() -> Handlers {
    Handlers::new()
        .on_accept(accept::schema)
        .on_accept(accept::data)
}

/// The database with table.that's tables, in `path` or in memory.
pub fn open_db(path: Option<&Path>) -> Result<Db, payload_serve::StoreError> {
    Db::open_with(path, &[tables::SCHEMA])
}

/// The SQLite connection of a database of table.that's, for blocking code (tests, the
/// benches, the fuzz target).
pub trait SqliteConn {
    /// The connection; table.that's database is SQLite ([`open_db`]), so another is
    /// a mistake of the caller's.
    fn conn(&self) -> std::sync::MutexGuard<'_, rusqlite::Connection>;
}

impl SqliteConn for Db {
    fn conn(&self) -> std::sync::MutexGuard<'_, rusqlite::Connection> {
        self.sqlite()
            .expect("table.that's database is SQLite")
            .conn()
    }
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
async fn context(db: Db, page: String, client: Value) -> Result<Value, ApiError> {
    Ok(db
        .with_sqlite(move |conn| tables::page_context(conn, &page, &client))
        .await??)
}
