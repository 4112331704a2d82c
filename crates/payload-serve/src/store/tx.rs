//! A transaction on whichever database the app runs on: what an accept handler gets
//! ([`crate::App::on_accept`]) and what the server's own writes go through. Statements
//! are written once, with `$1`, `$2`, ... for their parameters, and run on SQLite or
//! PostgreSQL alike.

use super::value::{Param, Row, SqlValue};
use super::{Backend, StoreError};
use futures::future::BoxFuture;
use std::sync::Arc;
use tokio::sync::Mutex;

/// What a database's transaction does; each backend has one. Dropping it without
/// [`TxBackend::commit`] rolls it back.
pub trait TxBackend: Send {
    /// Runs one statement, answering how many rows it changed.
    fn execute(
        &mut self,
        sql: String,
        params: Vec<SqlValue>,
    ) -> BoxFuture<'_, Result<u64, StoreError>>;
    /// Runs one query, answering its rows.
    fn query(
        &mut self,
        sql: String,
        params: Vec<SqlValue>,
    ) -> BoxFuture<'_, Result<Vec<Row>, StoreError>>;
    /// Makes what it wrote durable and visible to others.
    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>>;
    /// Runs `work` on the SQLite connection inside the transaction (`None` on another
    /// database): what an app with SQLite-only tables does ([`Tx::with_sqlite`]).
    fn with_sqlite(&mut self, work: SqliteWork) -> Option<BoxFuture<'_, Result<(), StoreError>>> {
        drop(work);
        None
    }
}

/// Work an app runs on the SQLite connection of a transaction.
pub type SqliteWork = Box<dyn FnOnce(&rusqlite::Connection) + Send>;

/// An open transaction. Cloning it gives another handle to the same transaction (so an
/// `async fn` handler can take it by value); the server commits it when the handler
/// succeeds and rolls it back otherwise, after which every handle answers
/// [`StoreError::Ended`]. Statements on one transaction run one at a time.
#[derive(Clone)]
pub struct Tx {
    backend: Backend,
    inner: Arc<Mutex<Option<Box<dyn TxBackend>>>>,
}

impl std::fmt::Debug for Tx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tx")
            .field("backend", &self.backend)
            .finish()
    }
}

impl Tx {
    /// A transaction of `backend`.
    pub fn new(backend: Backend, inner: Box<dyn TxBackend>) -> Tx {
        Tx {
            backend,
            inner: Arc::new(Mutex::new(Some(inner))),
        }
    }

    /// Which database it runs on (for the rare statement that must differ).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Runs `sql` with `params` bound to `$1`, `$2`, ..., answering how many rows it
    /// changed.
    pub async fn execute(
        &self,
        sql: &str,
        params: &[&(dyn Param + Sync)],
    ) -> Result<u64, StoreError> {
        let values = values(params);
        let mut inner = self.inner.lock().await;
        let tx = inner.as_mut().ok_or(StoreError::Ended)?;
        tx.execute(sql.to_string(), values).await
    }

    /// Runs the query `sql` with `params`, answering every row.
    pub async fn query(
        &self,
        sql: &str,
        params: &[&(dyn Param + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let values = values(params);
        let mut inner = self.inner.lock().await;
        let tx = inner.as_mut().ok_or(StoreError::Ended)?;
        tx.query(sql.to_string(), values).await
    }

    /// Runs the query `sql`, answering its first row, or `None` when it has none.
    pub async fn query_opt(
        &self,
        sql: &str,
        params: &[&(dyn Param + Sync)],
    ) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params).await?.into_iter().next())
    }

    /// Runs the query `sql`, answering its first row; no row is [`StoreError::NoRow`].
    pub async fn query_one(
        &self,
        sql: &str,
        params: &[&(dyn Param + Sync)],
    ) -> Result<Row, StoreError> {
        self.query_opt(sql, params).await?.ok_or(StoreError::NoRow)
    }

    /// Runs `work` with the transaction's SQLite connection (on a thread for blocking
    /// work), for an app whose own tables are SQLite's alone; on another database it
    /// answers [`StoreError::Unsupported`]. Portable handlers use [`Tx::execute`] and
    /// [`Tx::query`].
    pub async fn with_sqlite<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Connection) -> T + Send + 'static,
    {
        let (send, receive) = tokio::sync::oneshot::channel();
        let work: SqliteWork = Box::new(move |conn| {
            let _ = send.send(work(conn));
        });
        {
            let mut inner = self.inner.lock().await;
            let tx = inner.as_mut().ok_or(StoreError::Ended)?;
            match tx.with_sqlite(work) {
                Some(running) => running.await?,
                None => {
                    return Err(StoreError::Unsupported(format!(
                        "this work needs SQLite and the database is {}",
                        self.backend
                    )));
                }
            }
        }
        receive.await.map_err(|_| StoreError::Ended)
    }

    /// Commits it: what it wrote is kept, and every handle is ended.
    pub async fn commit(&self) -> Result<(), StoreError> {
        let tx = self.inner.lock().await.take().ok_or(StoreError::Ended)?;
        tx.commit().await
    }

    /// Rolls it back now (dropping every handle does too): nothing it wrote is kept.
    pub async fn rollback(&self) {
        drop(self.inner.lock().await.take());
    }
}

/// The parameters' values, taken before the statement is sent (so no borrow is held
/// across it).
fn values(params: &[&(dyn Param + Sync)]) -> Vec<SqlValue> {
    params.iter().map(|p| p.to_sql_value()).collect()
}
