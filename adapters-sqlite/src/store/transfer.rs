//! The transfer port on SQLite (`devmgr copy-store`, docs/operations.md,
//! "Moving between stores"): times are whole seconds and truth values 0 or
//! 1 here. An export reads one snapshot (a read transaction) on a thread of
//! its own and hands batches over a short channel; an import writes in one
//! `BEGIN IMMEDIATE` transaction. SQLite continues its ids from the largest
//! stored ones by itself (rowids, and `MAX(seq) + 1`), so nothing needs
//! resetting after an import.

use super::SqliteStore;
use crate::rows::{from_secs, to_secs};
use application::StoreError;
use application::ports::{
    Batch, Counts, Kind, RowSink, RowSource, StoreTransfer, Table, TransferError, Value,
};
use async_trait::async_trait;
use r2d2::PooledConnection;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::types::Value as Stored;
use rusqlite::{Connection, Row};
use tokio::sync::mpsc;

/// Rows in one batch of an export.
const BATCH_ROWS: usize = 1000;

type Pooled = PooledConnection<SqliteConnectionManager>;

impl SqliteStore {
    /// A pooled connection of its own, for the whole of an export or import.
    async fn dedicated(&self, what: &'static str) -> Result<Pooled, StoreError> {
        let pool = self.pool.clone();
        tokio::task::spawn_blocking(move || pool.get().map_err(|e| StoreError::new(what, e)))
            .await
            .map_err(|e| StoreError::new(what, e))?
    }
}

#[async_trait]
impl StoreTransfer for SqliteStore {
    async fn export(&self) -> Result<Box<dyn RowSource>, StoreError> {
        let conn = self.dedicated("export the database").await?;
        let (sender, batches) = mpsc::channel(2);
        std::thread::Builder::new()
            .name("devmgr-export".into())
            .spawn(move || export_all(&conn, &sender))
            .map_err(|e| StoreError::new("export the database", e))?;
        Ok(Box::new(Export { batches }))
    }

    async fn import(&self) -> Result<Box<dyn RowSink>, TransferError> {
        let conn = self.dedicated("import into the database").await?;
        let (conn, counts) = blocking(conn, |conn| {
            conn.execute_batch("BEGIN IMMEDIATE")
                .map_err(sql("import into the database"))?;
            for table in Table::ALL {
                check_columns(conn, table)?;
            }
            counts(conn)
        })
        .await?;
        let sink = Import { conn: Some(conn) };
        match counts {
            Ok(counts) if counts.iter().all(|(_, n)| *n == 0) => Ok(Box::new(sink)),
            Ok(counts) => Err(TransferError::NotEmpty(counts)),
            Err(e) => Err(e.into()),
        }
    }
}

/// Runs `work` on `conn` on the blocking pool; hands the connection back.
async fn blocking<T: Send + 'static>(
    mut conn: Pooled,
    work: impl FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
) -> Result<(Pooled, Result<T, StoreError>), StoreError> {
    tokio::task::spawn_blocking(move || {
        let outcome = work(&mut conn);
        (conn, outcome)
    })
    .await
    .map_err(|e| StoreError::new("transfer rows", e))
}

fn sql(what: &'static str) -> impl Fn(rusqlite::Error) -> StoreError {
    move |e| StoreError::new(what, e)
}

/// Rows in each table.
fn counts(conn: &Connection) -> Result<Counts, StoreError> {
    Table::ALL
        .iter()
        .map(|table| {
            let sql_text = format!(
                "SELECT COUNT(*) FROM {} WHERE {}",
                table.name(),
                table.held_rows()
            );
            let n: i64 = conn
                .query_row(&sql_text, [], |row| row.get(0))
                .map_err(sql("count rows"))?;
            Ok((*table, n.unsigned_abs()))
        })
        .collect()
}

/// Refuses a table whose columns are not exactly the transfer's: a column
/// this build does not know would be lost.
fn check_columns(conn: &Connection, table: Table) -> Result<(), StoreError> {
    let mut statement = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(sql("read the schema"))?;
    let stored: Vec<String> = statement
        .query_map([table.name()], |row| row.get(0))
        .and_then(Iterator::collect)
        .map_err(sql("read the schema"))?;
    table.check_columns(&stored)
}

/// Reads every table in one read transaction, sending batches until done,
/// the reader gone, or a failure (which is sent too).
fn export_all(conn: &Connection, sender: &mpsc::Sender<Result<Batch, StoreError>>) {
    let outcome = conn
        .execute_batch("BEGIN")
        .map_err(sql("export the database"))
        .and_then(|()| export_tables(conn, sender));
    // A read transaction: ending it either way changes nothing.
    let _ = conn.execute_batch("ROLLBACK");
    if let Err(e) = outcome {
        let _ = sender.blocking_send(Err(e));
    }
}

fn export_tables(
    conn: &Connection,
    sender: &mpsc::Sender<Result<Batch, StoreError>>,
) -> Result<(), StoreError> {
    for table in Table::ALL {
        check_columns(conn, table)?;
        let names: Vec<&str> = table.columns().iter().map(|c| c.name).collect();
        let query = format!(
            "SELECT {} FROM {} ORDER BY {}",
            names.join(", "),
            table.name(),
            table.key().join(", ")
        );
        let mut statement = conn.prepare(&query).map_err(sql("export rows"))?;
        let mut rows = statement.query([]).map_err(sql("export rows"))?;
        let mut batch = Vec::with_capacity(BATCH_ROWS);
        while let Some(row) = rows.next().map_err(sql("export rows"))? {
            batch.push(read_row(table, row)?);
            if batch.len() == BATCH_ROWS {
                let rows = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_ROWS));
                if sender.blocking_send(Ok(Batch { table, rows })).is_err() {
                    return Ok(());
                }
            }
        }
        if !batch.is_empty()
            && sender
                .blocking_send(Ok(Batch { table, rows: batch }))
                .is_err()
        {
            return Ok(());
        }
    }
    Ok(())
}

fn read_row(table: Table, row: &Row<'_>) -> Result<Vec<Value>, StoreError> {
    table
        .columns()
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let stored: Stored = row.get(i).map_err(sql("export rows"))?;
            Ok(match (column.kind, stored) {
                (_, Stored::Null) => Value::Null,
                (Kind::Integer, Stored::Integer(n)) => Value::Integer(n),
                (Kind::Boolean, Stored::Integer(n)) => Value::Boolean(n != 0),
                (Kind::Time, Stored::Integer(n)) => Value::Time(from_secs(n)),
                (Kind::Text, Stored::Text(text)) => Value::Text(text),
                (kind, other) => {
                    return Err(StoreError::message(format!(
                        "{}.{} holds {:?} where {kind:?} belongs",
                        table.name(),
                        column.name,
                        other.data_type()
                    )));
                }
            })
        })
        .collect()
}

/// The batches of an export, as its thread reads them.
struct Export {
    batches: mpsc::Receiver<Result<Batch, StoreError>>,
}

#[async_trait]
impl RowSource for Export {
    async fn next_batch(&mut self) -> Result<Option<Batch>, StoreError> {
        self.batches.recv().await.transpose()
    }
}

/// An import's open transaction; rolled back unless committed.
struct Import {
    /// `None` while a batch is being written on the blocking pool, or once committed.
    conn: Option<Pooled>,
}

impl Import {
    async fn on_connection(
        &mut self,
        work: impl FnOnce(&mut Connection) -> Result<(), StoreError> + Send + 'static,
    ) -> Result<(), StoreError> {
        let conn = self
            .conn
            .take()
            .ok_or_else(|| StoreError::message("the import was abandoned"))?;
        let (conn, outcome) = blocking(conn, work).await?;
        self.conn = Some(conn);
        outcome
    }
}

#[async_trait]
impl RowSink for Import {
    async fn write(&mut self, batch: Batch) -> Result<(), StoreError> {
        self.on_connection(move |conn| insert(conn, &batch)).await
    }

    async fn commit(mut self: Box<Self>) -> Result<(), StoreError> {
        self.on_connection(|conn| {
            conn.execute_batch("COMMIT")
                .map_err(sql("commit the import"))
        })
        .await?;
        self.conn = None;
        Ok(())
    }
}

impl Drop for Import {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // Never hand an open transaction back to the pool.
            let _ = conn.execute_batch("ROLLBACK");
        }
    }
}

fn insert(conn: &Connection, batch: &Batch) -> Result<(), StoreError> {
    let columns = batch.table.columns();
    let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
    let marks: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let text = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        batch.table.name(),
        names.join(", "),
        marks.join(", ")
    );
    if batch.table.seeded() {
        // The migration's row gives way to the copied one.
        conn.execute(&format!("DELETE FROM {}", batch.table.name()), [])
            .map_err(sql("import rows"))?;
    }
    let mut statement = conn.prepare_cached(&text).map_err(sql("import rows"))?;
    for row in &batch.rows {
        if row.len() != columns.len() {
            return Err(StoreError::message(format!(
                "a row of {} has {} values for {} columns",
                batch.table.name(),
                row.len(),
                columns.len()
            )));
        }
        let values = row.iter().map(|value| match value {
            Value::Null => Stored::Null,
            Value::Integer(n) => Stored::Integer(*n),
            Value::Text(text) => Stored::Text(text.clone()),
            Value::Boolean(b) => Stored::Integer(i64::from(*b)),
            Value::Time(at) => Stored::Integer(to_secs(*at)),
        });
        statement
            .execute(rusqlite::params_from_iter(values))
            .map_err(sql("import rows"))?;
    }
    Ok(())
}
