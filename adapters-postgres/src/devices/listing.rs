//! Listings of a fleet: the selected devices in order, one page of them with
//! their count in one statement (`COUNT(*) OVER ()`), a second one for the
//! count only when the page starts past the end.

use super::filter::{Filter, order_by};
use crate::prepared;
use crate::rows::{self, DEVICE_COLUMNS};
use crate::store::Failure;
use application::StoreError;
use application::ports::{DevicePage, DeviceQuery};
use deadpool_postgres::Client;
use domain::AccountId;

/// The page (or every device) the query asks for, and the count.
pub(super) async fn page(
    c: &Client,
    owner: AccountId,
    query: &DeviceQuery,
) -> Result<DevicePage, Failure<StoreError>> {
    let mut filter = Filter::new(owner, &query.selector, query.online_after);
    let order = order_by(query.ordering);
    let Some(window) = query.window else {
        let sql = format!(
            "SELECT {DEVICE_COLUMNS} FROM devices WHERE {} ORDER BY {order}",
            filter.conditions()
        );
        let found = prepared::query(c, &sql, &filter.params()).await?;
        let devices = rows::all(&found, rows::device)?;
        return Ok(DevicePage {
            count: devices.len() as u64,
            devices,
        });
    };
    let count_sql = format!("SELECT COUNT(*) FROM devices WHERE {}", filter.conditions());
    // With criteria, the matches are planned as a whole (`OFFSET 0` keeps the
    // subquery apart): the window counts every one of them before the first
    // row, which the planner would otherwise take for a cheap early stop, and
    // scan the whole fleet in order instead of using the tags' index.
    let source = if query.selector.criteria().is_some() {
        format!(
            "(SELECT * FROM devices WHERE {} OFFSET 0) AS devices",
            filter.conditions()
        )
    } else {
        format!("devices WHERE {}", filter.conditions())
    };
    let limit = filter.bind(i64::from(window.limit));
    let offset = filter.bind(i64::try_from(window.offset).unwrap_or(i64::MAX));
    // The page is cut first; only its devices' tags are read.
    let sql = format!(
        "SELECT {DEVICE_COLUMNS}, total FROM (SELECT devices.*, COUNT(*) OVER () AS total \
         FROM {source} ORDER BY {order} LIMIT {limit} OFFSET {offset}) \
         AS devices ORDER BY {order}"
    );
    let params = filter.params();
    let found = prepared::query(c, &sql, &params).await?;
    let devices = rows::all(&found, rows::device)?;
    let count = match found.first() {
        Some(row) => row
            .try_get::<_, i64>(DEVICE_COLUMN_COUNT)
            .map_err(rows::read)?,
        None if window.offset == 0 => 0,
        None => {
            let without_window = &params[..params.len() - 2];
            prepared::query_one(c, &count_sql, without_window)
                .await?
                .try_get::<_, i64>(0)?
        }
    };
    Ok(DevicePage {
        count: count.unsigned_abs(),
        devices,
    })
}

/// How many columns [`DEVICE_COLUMNS`] selects: the count follows them.
const DEVICE_COLUMN_COUNT: usize = 16;
