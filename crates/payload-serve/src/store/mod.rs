//! Where the chat is kept: conversations, their turns' messages, the payloads each
//! answer proposed and the user's decisions on them, beside the app's own tables.
//!
//! A database is a [`Storage`]: something that opens transactions ([`Tx`]). The chat's
//! own statements ([`crate::Db`]) and an app's accept handlers run through them, written
//! once with `$1`, `$2`, ... parameters, so they work on either database:
//!
//! - **SQLite** ([`SqliteStorage`], the default): one file, or memory; one connection
//!   on threads for blocking work, so the async workers never wait on it. Several
//!   processes may share the file (SQLite's write lock orders them).
//! - **PostgreSQL** (`PgStorage`, cargo feature `postgres`): a pool of connections, for
//!   an app that runs several server processes on one database.
//!
//! Which one is said by a location ([`Database::parse`]): a path or `sqlite:PATH`, or
//! `postgres://...`.

#[cfg(feature = "postgres")]
mod postgres;
mod schema;
mod sqlite;
mod tx;
mod value;

#[cfg(feature = "postgres")]
pub use postgres::PgStorage;
pub use schema::AppSchema;
pub use sqlite::SqliteStorage;
#[cfg(test)]
pub(crate) use sqlite::has_column as sqlite_has_column;
pub use tx::{SqliteWork, Tx, TxBackend};
pub use value::{FromColumn, Param, Row, SqlValue};

use futures::future::BoxFuture;
use std::path::PathBuf;

/// Which database a storage runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// SQLite, embedded.
    Sqlite,
    /// PostgreSQL, a server.
    Postgres,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        })
    }
}

/// How a transaction begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxMode {
    /// It only reads.
    Read,
    /// It writes: on SQLite it takes the write lock at once (`BEGIN IMMEDIATE`), so
    /// what it read cannot change before it writes.
    Write,
}

/// A database the chat can be kept in: it opens transactions. Everything the server
/// stores goes through them ([`crate::Db`]), so another database is one more of these.
pub trait Storage: Send + Sync + 'static {
    /// Which database it is.
    fn backend(&self) -> Backend;

    /// Opens a transaction.
    fn begin(&self, mode: TxMode) -> BoxFuture<'_, Result<Tx, StoreError>>;

    /// The SQLite storage, when it is one (for an app whose own tables are SQLite's).
    fn as_sqlite(&self) -> Option<&SqliteStorage> {
        None
    }
}

/// Where the database is, as `--database` says it. Its `Debug` leaves out a
/// PostgreSQL URL's password, so logging the options never prints it.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum Database {
    /// SQLite in memory (gone when the process stops).
    #[default]
    Memory,
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL server: a `postgres://` URL (or key=value connection string).
    Postgres(String),
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Memory => f.write_str("Memory"),
            Database::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Database::Postgres(url) => f
                .debug_tuple("Postgres")
                .field(&without_password(url))
                .finish(),
        }
    }
}

/// `url` with the password of its user part (`user:password@`) written `***`.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{scheme}://{name}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

impl Database {
    /// Reads a location: `postgres://...` or `postgresql://...` is PostgreSQL;
    /// `sqlite::memory:` or `:memory:` is SQLite in memory; `sqlite:PATH` or
    /// `sqlite://PATH` is that SQLite file; anything else is a SQLite file's path. An
    /// empty location, or PostgreSQL in a build without the `postgres` feature, is an
    /// error saying so.
    pub fn parse(location: &str) -> Result<Database, StoreError> {
        let location = location.trim();
        if location.is_empty() {
            return Err(StoreError::Location(
                "the database location is empty".into(),
            ));
        }
        if location.starts_with("postgres://") || location.starts_with("postgresql://") {
            if cfg!(feature = "postgres") {
                return Ok(Database::Postgres(location.to_string()));
            }
            return Err(StoreError::Location(
                "this build has no PostgreSQL support (payload-serve's `postgres` feature)".into(),
            ));
        }
        if location == ":memory:" || location == "sqlite::memory:" {
            return Ok(Database::Memory);
        }
        let path = location
            .strip_prefix("sqlite://")
            .or_else(|| location.strip_prefix("sqlite:"))
            .unwrap_or(location);
        if path.is_empty() {
            return Err(StoreError::Location(
                "the SQLite file's path is empty".into(),
            ));
        }
        Ok(Database::Sqlite(PathBuf::from(path)))
    }
}

/// Why the database failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("SQLite failed")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed.
    #[cfg(feature = "postgres")]
    #[error("PostgreSQL failed")]
    Postgres(#[from] tokio_postgres::Error),
    /// No connection could be had from the pool.
    #[error("no database connection could be had: {0}")]
    Pool(String),
    /// A column could not be read as asked.
    #[error("column {column}: {message}")]
    Column {
        /// The column's name (or its index).
        column: String,
        /// Why.
        message: String,
    },
    /// A query that must answer a row answered none.
    #[error("the query answered no row")]
    NoRow,
    /// The transaction was committed or rolled back already.
    #[error("the transaction has ended")]
    Ended,
    /// This database cannot do what was asked.
    #[error("{0}")]
    Unsupported(String),
    /// The database location cannot be read.
    #[error("{0}")]
    Location(String),
    /// The database's worker stopped.
    #[error("the database's worker stopped: {0}")]
    Worker(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_names_its_database_and_never_prints_a_password() {
        assert_eq!(
            Database::parse("chat.db").unwrap(),
            Database::Sqlite("chat.db".into())
        );
        assert_eq!(
            Database::parse("sqlite:x.db").unwrap(),
            Database::Sqlite("x.db".into())
        );
        assert_eq!(
            Database::parse("sqlite:///tmp/x.db").unwrap(),
            Database::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            Database::parse("sqlite::memory:").unwrap(),
            Database::Memory
        );
        for bad in ["", "  ", "sqlite:", "sqlite://"] {
            assert!(Database::parse(bad).is_err(), "{bad:?}");
        }
        let url = "postgres://app:s3cret@db.internal:5432/chat?sslmode=disable";
        match Database::parse(url) {
            Ok(database) => {
                let shown = format!("{database:?}");
                assert!(!shown.contains("s3cret"), "{shown}");
                assert!(shown.contains("app:***@db.internal:5432/chat"), "{shown}");
            }
            // A build without PostgreSQL says so.
            Err(e) => assert!(e.to_string().contains("PostgreSQL"), "{e}"),
        }
        assert_eq!(without_password("postgres://app@h/x"), "postgres://app@h/x");
        assert_eq!(
            without_password("postgres://a:b@c@h/x"),
            "postgres://a:***@h/x"
        );
    }
}
