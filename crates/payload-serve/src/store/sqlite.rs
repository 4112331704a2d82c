//! SQLite, embedded: one connection behind a mutex, used only on threads for blocking
//! work (tokio's blocking pool), so the async workers go on serving however long SQLite
//! takes. A transaction is a blocking thread holding the connection and an open
//! rusqlite transaction, running the statements sent to it one by one; when its handle
//! is dropped without a commit the thread ends, and rusqlite rolls it back.

use super::schema::{self, AppSchema};
use super::tx::{SqliteWork, Tx, TxBackend};
use super::value::{Row, SqlValue};
use super::{Backend, Storage, StoreError, TxMode};
use futures::future::BoxFuture;
use rusqlite::types::{ToSqlOutput, Value as Lite, ValueRef};
use rusqlite::{Connection, TransactionBehavior};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{mpsc, oneshot};

/// The SQLite database of one server.
#[derive(Debug, Clone)]
pub struct SqliteStorage {
    conn: Arc<Mutex<Connection>>,
}

impl SqliteStorage {
    /// Opens (or creates) the file at `path`, or a database in memory, with the chat's
    /// tables and the app's (`app`: batches run in order on every open, so they say
    /// `CREATE TABLE IF NOT EXISTS`).
    pub fn open(path: Option<&Path>, app: &AppSchema) -> Result<SqliteStorage, StoreError> {
        let conn = match path {
            Some(path) => Connection::open(path)?,
            None => Connection::open_in_memory()?,
        };
        set_up(&conn)?;
        for batch in app.for_backend(Backend::Sqlite) {
            conn.execute_batch(batch)?;
        }
        Ok(SqliteStorage {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// The connection, for blocking code (a test, or work already on a blocking
    /// thread). A panic while it was held leaves nothing half-written that SQLite
    /// would not have rolled back, so a poisoned lock is taken anyway.
    pub fn conn(&self) -> MutexGuard<'_, Connection> {
        lock(&self.conn)
    }

    /// Runs `work` with the connection on a thread for blocking work.
    pub async fn run<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> T + Send + 'static,
    {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || work(&lock(&conn)))
            .await
            .map_err(|e| StoreError::Worker(e.to_string()))
    }
}

/// The lock, even after a panic elsewhere while it was held.
fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes the chat's tables, bringing a file of an older version up to date.
fn set_up(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(&schema::tables(Backend::Sqlite))?;
    // A database made before turns could be interrupted gains the column.
    if !has_column(conn, "messages", "interrupted")? {
        conn.execute_batch("ALTER TABLE messages ADD COLUMN interrupted TEXT")?;
    }
    // One made when payloads kept a table id, not their page context, gains the
    // context, holding that id as table.that's context did.
    if !has_column(conn, "payloads", "context")? {
        conn.execute_batch("ALTER TABLE payloads ADD COLUMN context TEXT")?;
        if has_column(conn, "payloads", "table_id")? {
            conn.execute_batch(
                "UPDATE payloads SET context = json_object('table_id', table_id)
                 WHERE table_id IS NOT NULL",
            )?;
        }
    }
    // One made when a turn held one proposal gains each proposal's index.
    if !has_column(conn, "payloads", "idx")? {
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; {} COMMIT;",
            schema::sqlite_add_index()
        ))?;
    }
    // A file made when AG-UI thread ids were the client's names for conversations
    // loses them: a thread is now the conversation's own id, and a client-picked name
    // must open nothing.
    conn.execute_batch("DROP TABLE IF EXISTS agui_threads")?;
    let repeated: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM messages WHERE role = 'user'
         GROUP BY conversation_id, turn HAVING COUNT(*) > 1)",
        [],
        |row| row.get(0),
    )?;
    if repeated {
        tracing::warn!(
            "the database holds a repeated turn from an older version; new turns are numbered past it"
        );
    } else {
        conn.execute_batch(schema::ONE_USER_MESSAGE_PER_TURN)?;
    }
    Ok(())
}

/// Whether `table` has a column named `column`.
pub(crate) fn has_column(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT COUNT(*) > 0 FROM pragma_table_info(?1) WHERE name = ?2",
        rusqlite::params![table, column],
        |row| row.get(0),
    )
}

impl Storage for SqliteStorage {
    fn backend(&self) -> Backend {
        Backend::Sqlite
    }

    fn begin(&self, mode: TxMode) -> BoxFuture<'_, Result<Tx, StoreError>> {
        let conn = self.conn.clone();
        Box::pin(async move {
            let (commands, receive) = mpsc::unbounded_channel();
            let (ready, started) = oneshot::channel();
            tokio::task::spawn_blocking(move || serve_transaction(&conn, mode, receive, ready));
            started
                .await
                .map_err(|_| StoreError::Worker("the transaction's thread stopped".into()))??;
            Ok(Tx::new(Backend::Sqlite, Box::new(SqliteTx { commands })))
        })
    }

    fn as_sqlite(&self) -> Option<&SqliteStorage> {
        Some(self)
    }
}

/// What a transaction's thread is asked to do.
enum Command {
    Execute(
        String,
        Vec<SqlValue>,
        oneshot::Sender<Result<u64, StoreError>>,
    ),
    Query(
        String,
        Vec<SqlValue>,
        oneshot::Sender<Result<Vec<Row>, StoreError>>,
    ),
    Sqlite(SqliteWork, oneshot::Sender<()>),
    Commit(oneshot::Sender<Result<(), StoreError>>),
}

/// A transaction's thread: takes the connection, begins, runs each command in order
/// until a commit, or until the handle is gone (then rusqlite rolls back as the
/// transaction drops).
fn serve_transaction(
    conn: &Mutex<Connection>,
    mode: TxMode,
    mut commands: mpsc::UnboundedReceiver<Command>,
    ready: oneshot::Sender<Result<(), StoreError>>,
) {
    let mut conn = lock(conn);
    let behavior = match mode {
        TxMode::Read => TransactionBehavior::Deferred,
        TxMode::Write => TransactionBehavior::Immediate,
    };
    let tx = match conn.transaction_with_behavior(behavior) {
        Ok(tx) => tx,
        Err(e) => {
            let _ = ready.send(Err(e.into()));
            return;
        }
    };
    if ready.send(Ok(())).is_err() {
        return;
    }
    while let Some(command) = commands.blocking_recv() {
        match command {
            Command::Execute(sql, params, reply) => {
                let _ = reply.send(execute(&tx, &sql, &params));
            }
            Command::Query(sql, params, reply) => {
                let _ = reply.send(query(&tx, &sql, &params));
            }
            Command::Sqlite(work, done) => {
                work(&tx);
                let _ = done.send(());
            }
            Command::Commit(reply) => {
                let _ = reply.send(tx.commit().map_err(StoreError::from));
                return;
            }
        }
    }
}

/// A value bound to a SQLite statement.
struct Bind<'a>(&'a SqlValue);

impl rusqlite::ToSql for Bind<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self.0 {
            SqlValue::Null => ValueRef::Null,
            SqlValue::Integer(i) => ValueRef::Integer(*i),
            SqlValue::Real(f) => ValueRef::Real(*f),
            SqlValue::Text(s) => ValueRef::Text(s.as_bytes()),
            SqlValue::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

/// Runs one statement of `$n` placeholders.
pub(crate) fn execute(
    conn: &Connection,
    sql: &str,
    params: &[SqlValue],
) -> Result<u64, StoreError> {
    let mut statement = conn.prepare(&placeholders(sql))?;
    let binds: Vec<Bind<'_>> = params.iter().map(Bind).collect();
    let changed = statement.execute(rusqlite::params_from_iter(binds.iter()))?;
    Ok(changed as u64)
}

/// Runs one query of `$n` placeholders, reading every row.
pub(crate) fn query(
    conn: &Connection,
    sql: &str,
    params: &[SqlValue],
) -> Result<Vec<Row>, StoreError> {
    let mut statement = conn.prepare(&placeholders(sql))?;
    let columns: Arc<[String]> = statement
        .column_names()
        .into_iter()
        .map(str::to_string)
        .collect();
    let binds: Vec<Bind<'_>> = params.iter().map(Bind).collect();
    let mut rows = statement.query(rusqlite::params_from_iter(binds.iter()))?;
    let mut read = Vec::new();
    while let Some(row) = rows.next()? {
        let values = (0..columns.len())
            .map(|i| {
                Ok(match row.get::<_, Lite>(i)? {
                    Lite::Null => SqlValue::Null,
                    Lite::Integer(i) => SqlValue::Integer(i),
                    Lite::Real(f) => SqlValue::Real(f),
                    Lite::Text(s) => SqlValue::Text(s),
                    Lite::Blob(b) => SqlValue::Blob(b),
                })
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        read.push(Row {
            columns: columns.clone(),
            values,
        });
    }
    Ok(read)
}

/// `sql` with each `$n` parameter written `?n`, SQLite's numbered form (SQLite reads
/// `$1` as a *named* parameter, numbered by first appearance, so `$2 ... $1` would
/// swap). Quoted text, quoted names and comments are left as they are.
pub(crate) fn placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += 1;
                }
                i += 1;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'$' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                out.push_str(&sql[copied..i]);
                out.push('?');
                i += 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[copied.min(sql.len())..]);
    out
}

/// The handle of a transaction's thread.
struct SqliteTx {
    commands: mpsc::UnboundedSender<Command>,
}

impl SqliteTx {
    /// Sends `command` and waits for its answer.
    async fn ask<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(command(reply))
            .map_err(|_| StoreError::Worker("the transaction's thread stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Worker("the transaction's thread stopped".into()))
    }
}

impl TxBackend for SqliteTx {
    fn execute(
        &mut self,
        sql: String,
        params: Vec<SqlValue>,
    ) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move { self.ask(|r| Command::Execute(sql, params, r)).await? })
    }

    fn query(
        &mut self,
        sql: String,
        params: Vec<SqlValue>,
    ) -> BoxFuture<'_, Result<Vec<Row>, StoreError>> {
        Box::pin(async move { self.ask(|r| Command::Query(sql, params, r)).await? })
    }

    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async move { self.ask(Command::Commit).await? })
    }

    fn with_sqlite(&mut self, work: SqliteWork) -> Option<BoxFuture<'_, Result<(), StoreError>>> {
        Some(Box::pin(async move {
            self.ask(|r| Command::Sqlite(work, r)).await
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn numbered_parameters_become_sqlites_and_quoted_text_stays() {
        assert_eq!(
            placeholders("SELECT $2, '$1', \"$3\" -- $4\n, $10 /* $5 */ FROM t WHERE a = $1"),
            "SELECT ?2, '$1', \"$3\" -- $4\n, ?10 /* $5 */ FROM t WHERE a = ?1"
        );
        // An unclosed quote or comment does not panic nor drop the text.
        assert_eq!(placeholders("'$1"), "'$1");
        assert_eq!(placeholders("/* $1"), "/* $1");
        assert_eq!(placeholders("a $"), "a $");
    }
}
