//! The transfer port on PostgreSQL (`devmgr copy-store`, docs/operations.md,
//! "Moving between stores"): times are `timestamptz` and truth values
//! `boolean` here. Each export or import has a session of its own, out of
//! the pool and without the time limits of requests: an export reads one
//! snapshot (a repeatable-read, read-only transaction) through a cursor, a
//! batch at a time; an import writes each batch with one statement (arrays
//! unnested into rows) in one transaction, then moves the identity
//! sequences past the copied ids before it commits. A session dropped
//! halfway closes, which rolls its transaction back.

use super::PgStore;
use application::StoreError;
use application::ports::{
    Batch, Counts, Kind, RowSink, RowSource, StoreTransfer, Table, TransferError, Value,
};
use async_trait::async_trait;
use deadpool_postgres::ClientWrapper;
use domain::Timestamp;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

/// Rows in one batch of an export.
const BATCH_ROWS: usize = 1000;
/// The identity columns, which continue after the largest copied value.
const IDENTITIES: [(&str, &str); 9] = [
    ("accounts", "id"),
    ("email_keys", "seq"),
    ("device_commands", "seq"),
    ("jobs", "seq"),
    ("monitors", "seq"),
    ("alerts", "seq"),
    ("alert_digest_lines", "seq"),
    ("webhooks", "seq"),
    ("webhook_deliveries", "seq"),
];

fn sql(what: &'static str) -> impl Fn(tokio_postgres::Error) -> StoreError {
    move |e| StoreError::new(what, e)
}

#[async_trait]
impl StoreTransfer for PgStore {
    async fn export(&self) -> Result<Box<dyn RowSource>, StoreError> {
        let session = self.session("export the database").await?;
        session
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .await
            .map_err(sql("export the database"))?;
        check_schema(&session).await?;
        Ok(Box::new(Export {
            session,
            next: 0,
            open: false,
        }))
    }

    async fn import(&self) -> Result<Box<dyn RowSink>, TransferError> {
        let session = self.session("import into the database").await?;
        session
            .batch_execute("BEGIN")
            .await
            .map_err(sql("import into the database"))?;
        check_schema(&session).await?;
        let counts = counts(&session).await?;
        if counts.iter().any(|(_, n)| *n > 0) {
            return Err(TransferError::NotEmpty(counts));
        }
        Ok(Box::new(Import { session }))
    }
}

/// Refuses tables whose columns are not exactly the transfer's.
async fn check_schema(session: &ClientWrapper) -> Result<(), StoreError> {
    for table in Table::ALL {
        let stored: Vec<String> = session
            .query(
                "SELECT column_name::text FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1",
                &[&table.name()],
            )
            .await
            .map_err(sql("read the schema"))?
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(sql("read the schema"))?;
        table.check_columns(&stored)?;
    }
    Ok(())
}

async fn counts(session: &ClientWrapper) -> Result<Counts, StoreError> {
    let mut counts = Vec::with_capacity(Table::ALL.len());
    for table in Table::ALL {
        // A seeded table's migration row (the audit chain's) is no content.
        let query = format!(
            "SELECT COUNT(*) FROM {} WHERE {}",
            table.name(),
            table.held_rows()
        );
        let n: i64 = session
            .query_one(&query, &[])
            .await
            .and_then(|row| row.try_get(0))
            .map_err(sql("count rows"))?;
        counts.push((table, n.unsigned_abs()));
    }
    Ok(counts)
}

/// An export's session, its transaction and where it stands.
struct Export {
    session: ClientWrapper,
    /// The index in [`Table::ALL`] of the table being read.
    next: usize,
    /// Whether the cursor over that table is open.
    open: bool,
}

#[async_trait]
impl RowSource for Export {
    async fn next_batch(&mut self) -> Result<Option<Batch>, StoreError> {
        let what = "export rows";
        while let Some(table) = Table::ALL.get(self.next).copied() {
            if !self.open {
                let select: Vec<String> = table
                    .columns()
                    .iter()
                    .map(|c| match c.kind {
                        Kind::Integer => format!("{}::bigint", c.name),
                        _ => c.name.to_owned(),
                    })
                    .collect();
                let declare = format!(
                    "DECLARE export NO SCROLL CURSOR FOR SELECT {} FROM {} ORDER BY {}",
                    select.join(", "),
                    table.name(),
                    table.key().join(", ")
                );
                self.session
                    .batch_execute(&declare)
                    .await
                    .map_err(sql(what))?;
                self.open = true;
            }
            let fetch = format!("FETCH {BATCH_ROWS} FROM export");
            let rows = self.session.query(&fetch, &[]).await.map_err(sql(what))?;
            if rows.is_empty() {
                self.session
                    .batch_execute("CLOSE export")
                    .await
                    .map_err(sql(what))?;
                self.open = false;
                self.next += 1;
                continue;
            }
            let rows = rows
                .iter()
                .map(|row| read_row(table, row))
                .collect::<Result<_, _>>()?;
            return Ok(Some(Batch { table, rows }));
        }
        Ok(None)
    }
}

fn read_row(table: Table, row: &Row) -> Result<Vec<Value>, StoreError> {
    let read = sql("export rows");
    table
        .columns()
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let value = match column.kind {
                Kind::Integer => row
                    .try_get::<_, Option<i64>>(i)
                    .map(|v| v.map(Value::Integer)),
                Kind::Text => row
                    .try_get::<_, Option<String>>(i)
                    .map(|v| v.map(Value::Text)),
                Kind::Boolean => row
                    .try_get::<_, Option<bool>>(i)
                    .map(|v| v.map(Value::Boolean)),
                Kind::Time => row
                    .try_get::<_, Option<Timestamp>>(i)
                    .map(|v| v.map(|at| Value::Time(crate::rows::at(at)))),
            };
            value.map(|v| v.unwrap_or(Value::Null)).map_err(&read)
        })
        .collect()
}

/// An import's session, in its transaction.
struct Import {
    session: ClientWrapper,
}

/// One column of a batch, as the array parameter `UNNEST` takes.
enum Array {
    Integer(Vec<Option<i64>>),
    Text(Vec<Option<String>>),
    Boolean(Vec<Option<bool>>),
    Time(Vec<Option<Timestamp>>),
}

impl Array {
    fn of(kind: Kind, rows: usize) -> Self {
        match kind {
            Kind::Integer => Array::Integer(Vec::with_capacity(rows)),
            Kind::Text => Array::Text(Vec::with_capacity(rows)),
            Kind::Boolean => Array::Boolean(Vec::with_capacity(rows)),
            Kind::Time => Array::Time(Vec::with_capacity(rows)),
        }
    }

    /// Appends `value`; `false` when it is not of the column's kind.
    fn push(&mut self, value: &Value) -> bool {
        match (self, value) {
            (Array::Integer(v), Value::Null) => v.push(None),
            (Array::Text(v), Value::Null) => v.push(None),
            (Array::Boolean(v), Value::Null) => v.push(None),
            (Array::Time(v), Value::Null) => v.push(None),
            (Array::Integer(v), Value::Integer(n)) => v.push(Some(*n)),
            (Array::Text(v), Value::Text(text)) => v.push(Some(text.clone())),
            (Array::Boolean(v), Value::Boolean(b)) => v.push(Some(*b)),
            (Array::Time(v), Value::Time(at)) => v.push(Some(*at)),
            _ => return false,
        }
        true
    }

    fn parameter(&self) -> &(dyn ToSql + Sync) {
        match self {
            Array::Integer(v) => v,
            Array::Text(v) => v,
            Array::Boolean(v) => v,
            Array::Time(v) => v,
        }
    }

    fn sql_type(kind: Kind) -> &'static str {
        match kind {
            Kind::Integer => "bigint[]",
            Kind::Text => "text[]",
            Kind::Boolean => "boolean[]",
            Kind::Time => "timestamptz[]",
        }
    }
}

#[async_trait]
impl RowSink for Import {
    async fn write(&mut self, batch: Batch) -> Result<(), StoreError> {
        let columns = batch.table.columns();
        let mut arrays: Vec<Array> = columns
            .iter()
            .map(|c| Array::of(c.kind, batch.rows.len()))
            .collect();
        for row in &batch.rows {
            let fits = row.len() == columns.len()
                && arrays.iter_mut().zip(row).all(|(array, v)| array.push(v));
            if !fits {
                return Err(StoreError::message(format!(
                    "a row of {} does not match its columns",
                    batch.table.name()
                )));
            }
        }
        let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
        let unnest: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| format!("${}::{}", i + 1, Array::sql_type(c.kind)))
            .collect();
        let insert = format!(
            "INSERT INTO {} ({}) OVERRIDING SYSTEM VALUE SELECT * FROM UNNEST({})",
            batch.table.name(),
            names.join(", "),
            unnest.join(", ")
        );
        let parameters: Vec<&(dyn ToSql + Sync)> = arrays.iter().map(Array::parameter).collect();
        if batch.table.seeded() {
            // The migration's row gives way to the copied one.
            let delete = format!("DELETE FROM {}", batch.table.name());
            self.session
                .batch_execute(&delete)
                .await
                .map_err(sql("import rows"))?;
        }
        self.session
            .execute(&insert, &parameters)
            .await
            .map_err(sql("import rows"))?;
        Ok(())
    }

    async fn commit(self: Box<Self>) -> Result<(), StoreError> {
        for (table, column) in IDENTITIES {
            let reset = format!(
                "SELECT setval(pg_get_serial_sequence('{table}', '{column}'), \
                 COALESCE(MAX({column}), 0) + 1, false) FROM {table}"
            );
            self.session
                .batch_execute(&reset)
                .await
                .map_err(sql("continue the ids after the copied ones"))?;
        }
        self.session
            .batch_execute("COMMIT")
            .await
            .map_err(sql("commit the import"))
    }
}
