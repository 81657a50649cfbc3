//! Statements prepared once per connection (deadpool's statement cache), so
//! each later run is one round trip.

use deadpool_postgres::GenericClient;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Error, Row};

/// The parameters of a statement.
pub(crate) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// Runs a statement; the number of rows it changed.
pub(crate) async fn execute(
    c: &impl GenericClient,
    sql: &str,
    params: Params<'_>,
) -> Result<u64, Error> {
    let statement = c.prepare_cached(sql).await?;
    c.execute(&statement, params).await
}

/// Every row a statement returns.
pub(crate) async fn query(
    c: &impl GenericClient,
    sql: &str,
    params: Params<'_>,
) -> Result<Vec<Row>, Error> {
    let statement = c.prepare_cached(sql).await?;
    c.query(&statement, params).await
}

/// The row a statement returns, if any (more than one is an error).
pub(crate) async fn query_opt(
    c: &impl GenericClient,
    sql: &str,
    params: Params<'_>,
) -> Result<Option<Row>, Error> {
    let statement = c.prepare_cached(sql).await?;
    c.query_opt(&statement, params).await
}

/// The one row a statement returns.
pub(crate) async fn query_one(
    c: &impl GenericClient,
    sql: &str,
    params: Params<'_>,
) -> Result<Row, Error> {
    let statement = c.prepare_cached(sql).await?;
    c.query_one(&statement, params).await
}
