//! PostgreSQL, for an app that runs several server processes on one database: a pool
//! of connections (deadpool-postgres over tokio-postgres), each transaction on one of
//! them. The chat's tables are made on the first transaction, under an advisory lock so
//! processes starting together do not race on `CREATE TABLE IF NOT EXISTS`.
//!
//! Connections are made without TLS: the server is meant to be reached on a private
//! network or the loopback (`sslmode=require` is refused by the connector).

use super::schema::{self, AppSchema};
use super::tx::{Tx, TxBackend};
use super::value::{Row, SqlValue};
use super::{Backend, Storage, StoreError, TxMode};
use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use futures::future::BoxFuture;
use std::error::Error;
use std::sync::Arc;
use tokio::sync::OnceCell;
use tokio_postgres::NoTls;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

/// How many connections one server process keeps at most.
const POOL_SIZE: usize = 16;

/// How long making one connection may take.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long a request may wait for a connection of the pool.
const WAIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The advisory lock the schema is made under (any constant, the same in every
/// process).
const SCHEMA_LOCK: i64 = 0x7061_796c_6f61_6400;

/// A PostgreSQL database.
#[derive(Clone)]
pub struct PgStorage {
    pool: Pool,
    app: Arc<AppSchema>,
    ready: Arc<OnceCell<()>>,
}

impl std::fmt::Debug for PgStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStorage")
            .field("status", &self.pool.status())
            .finish()
    }
}

impl PgStorage {
    /// A pool for the database at `url` (`postgres://user:password@host:port/name` or a
    /// key=value string). No connection is made yet: the first transaction makes one,
    /// and the chat's tables and the app's (`app`).
    pub fn new(url: &str, app: AppSchema) -> Result<PgStorage, StoreError> {
        let config: tokio_postgres::Config = url.parse()?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        // Bounded waits: a server that does not answer, or a pool whose connections
        // are all held, fails a request with an error instead of hanging it.
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .create_timeout(Some(CONNECT_TIMEOUT))
            .wait_timeout(Some(WAIT_TIMEOUT))
            .build()
            .map_err(|e| StoreError::Pool(e.to_string()))?;
        Ok(PgStorage {
            pool,
            app: Arc::new(app),
            ready: Arc::new(OnceCell::new()),
        })
    }

    /// A connection of the pool.
    async fn connection(&self) -> Result<Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| StoreError::Pool(e.to_string()))
    }

    /// Makes the tables, once per process, in one transaction under the advisory lock.
    async fn set_up(&self) -> Result<(), StoreError> {
        self.ready
            .get_or_try_init(|| async {
                let mut client = self.connection().await?;
                let tx = client.transaction().await?;
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
                    .await?;
                tx.batch_execute(&schema::tables(Backend::Postgres)).await?;
                for batch in self.app.for_backend(Backend::Postgres) {
                    tx.batch_execute(batch).await?;
                }
                tx.commit().await?;
                Ok::<(), StoreError>(())
            })
            .await
            .map(|_| ())
    }
}

impl Storage for PgStorage {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    fn begin(&self, _mode: TxMode) -> BoxFuture<'_, Result<Tx, StoreError>> {
        Box::pin(async move {
            self.set_up().await?;
            let client = self.connection().await?;
            // The handle exists before BEGIN is sent, so a cancelled begin still
            // rolls back what it may have opened.
            let mut tx = PgTx {
                client: Some(client),
            };
            tx.client()?.batch_execute("BEGIN").await?;
            Ok(Tx::new(Backend::Postgres, Box::new(tx)))
        })
    }
}

/// A transaction on one pooled connection, begun with `BEGIN` (read committed: a
/// decision's row lock, `SELECT ... FOR UPDATE`, orders two accepts of one proposal).
struct PgTx {
    client: Option<Object>,
}

impl PgTx {
    fn client(&mut self) -> Result<&mut Object, StoreError> {
        self.client.as_mut().ok_or(StoreError::Ended)
    }
}

/// The parameters as tokio-postgres takes them.
fn bound(params: &[SqlValue]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl TxBackend for PgTx {
    fn execute(
        &mut self,
        sql: String,
        params: Vec<SqlValue>,
    ) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let client = self.client()?;
            Ok(client.execute(sql.as_str(), &bound(&params)).await?)
        })
    }

    fn query(
        &mut self,
        sql: String,
        params: Vec<SqlValue>,
    ) -> BoxFuture<'_, Result<Vec<Row>, StoreError>> {
        Box::pin(async move {
            let client = self.client()?;
            let rows = client.query(sql.as_str(), &bound(&params)).await?;
            let Some(first) = rows.first() else {
                return Ok(Vec::new());
            };
            let columns: Arc<[String]> = first
                .columns()
                .iter()
                .map(|c| c.name().to_string())
                .collect();
            rows.iter()
                .map(|row| {
                    let values = (0..columns.len())
                        .map(|i| row.try_get::<_, SqlValue>(i))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(Row {
                        columns: columns.clone(),
                        values,
                    })
                })
                .collect()
        })
    }

    fn commit(mut self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.client.take().ok_or(StoreError::Ended)?;
            client.batch_execute("COMMIT").await?;
            Ok(())
        })
    }
}

impl Drop for PgTx {
    /// Rolls back a transaction that was not committed before its connection goes back
    /// to the pool; with no runtime left to send it, the connection is closed instead
    /// (and the server rolls back).
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if client.batch_execute("ROLLBACK").await.is_err() {
                        drop(Object::take(client));
                    }
                });
            }
            Err(_) => drop(Object::take(client)),
        }
    }
}

/// Why a value cannot be bound where PostgreSQL expects `ty`.
fn mismatch(value: &SqlValue, ty: &Type) -> Box<dyn Error + Sync + Send> {
    format!("{value:?} cannot be bound to a parameter of type {ty}").into()
}

impl ToSql for SqlValue {
    /// Binds to the type PostgreSQL inferred for the parameter: an integer to any
    /// integer type in its range (or `boolean` as 0 or 1, or a float when exact), text
    /// to text types and `json`/`jsonb`, a real to a float, bytes to `bytea`. Anything
    /// else is an error naming both, never a conversion that changes the value.
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self {
            SqlValue::Null => Ok(IsNull::Yes),
            SqlValue::Integer(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)
                    .map_err(|_| mismatch(self, ty))?
                    .to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)
                    .map_err(|_| mismatch(self, ty))?
                    .to_sql(ty, out),
                Type::BOOL if *i == 0 || *i == 1 => (*i == 1).to_sql(ty, out),
                Type::FLOAT8 if i.unsigned_abs() <= 1 << 53 => (*i as f64).to_sql(ty, out),
                _ => Err(mismatch(self, ty)),
            },
            SqlValue::Real(f) => match *ty {
                Type::FLOAT8 => f.to_sql(ty, out),
                Type::FLOAT4 if f64::from(*f as f32) == *f || f.is_nan() => {
                    (*f as f32).to_sql(ty, out)
                }
                _ => Err(mismatch(self, ty)),
            },
            SqlValue::Text(s) => match *ty {
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                    s.as_str().to_sql(ty, out)
                }
                Type::JSON => {
                    out.extend_from_slice(s.as_bytes());
                    Ok(IsNull::No)
                }
                Type::JSONB => {
                    // jsonb's binary form: version 1, then the text.
                    out.extend_from_slice(&[1]);
                    out.extend_from_slice(s.as_bytes());
                    Ok(IsNull::No)
                }
                _ => Err(mismatch(self, ty)),
            },
            SqlValue::Blob(b) => match *ty {
                Type::BYTEA => b.as_slice().to_sql(ty, out),
                _ => Err(mismatch(self, ty)),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for SqlValue {
    /// Reads integers, floats, booleans (as 0 or 1), text, `json`/`jsonb` (as their
    /// text) and `bytea`; another type is an error asking the query to cast it.
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<SqlValue, Box<dyn Error + Sync + Send>> {
        Ok(match *ty {
            Type::BOOL => SqlValue::Integer(i64::from(bool::from_sql(ty, raw)?)),
            Type::INT2 => SqlValue::Integer(i64::from(i16::from_sql(ty, raw)?)),
            Type::INT4 => SqlValue::Integer(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT8 => SqlValue::Integer(i64::from_sql(ty, raw)?),
            Type::OID => SqlValue::Integer(i64::from(u32::from_sql(ty, raw)?)),
            Type::FLOAT4 => SqlValue::Real(f64::from(f32::from_sql(ty, raw)?)),
            Type::FLOAT8 => SqlValue::Real(f64::from_sql(ty, raw)?),
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                SqlValue::Text(String::from_sql(ty, raw)?)
            }
            Type::JSON => SqlValue::Text(std::str::from_utf8(raw)?.to_string()),
            Type::JSONB => match raw.split_first() {
                Some((1, text)) => SqlValue::Text(std::str::from_utf8(text)?.to_string()),
                _ => return Err("a jsonb value of an unknown version".into()),
            },
            Type::BYTEA => SqlValue::Blob(raw.to_vec()),
            _ => {
                return Err(format!(
                    "a column of type {ty} cannot be read: cast it in the query (::text, ::bigint)"
                )
                .into());
            }
        })
    }

    fn from_sql_null(_: &Type) -> Result<SqlValue, Box<dyn Error + Sync + Send>> {
        Ok(SqlValue::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::Db;
    use crate::store::{AppSchema, Database};
    use std::time::{Duration, Instant};

    #[tokio::test]
    async fn a_server_that_never_answers_is_an_error_in_bounded_time() {
        // Accepts connections and says nothing.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let held = std::thread::spawn(move || {
            let (_socket, _) = listener.accept().unwrap();
            std::thread::sleep(super::CONNECT_TIMEOUT + Duration::from_secs(5));
        });
        let url = format!("postgres://app@127.0.0.1:{port}/chat");
        let db = Db::connect(&Database::parse(&url).unwrap(), AppSchema::new()).unwrap();
        let start = Instant::now();
        assert!(db.ready().await.is_err());
        assert!(start.elapsed() < super::CONNECT_TIMEOUT + Duration::from_secs(3));
        drop(held);
    }
}
