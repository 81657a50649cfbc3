//! The Alerts page's live updates: the `alerts` event of
//! `/console/events/?alerts=1` (with the page's filters and `page`) carries
//! a version of what the page shows (its alerts, their states, how many
//! match); when it differs from the page's own, the script reads the page
//! again and puts its list in place. The monitor engine announces each
//! alert that opens or resolves to the account's fleet, so the stream wakes
//! when one does.

use super::alerts::{AlertFilters, read_alerts};
use crate::state::HttpState;
use application::StoreError;
use domain::Account;
use serde::Serialize;

/// The filters of a stream's query when it watches the Alerts page
/// (`alerts=1`); `None` otherwise.
pub(super) fn watched_alerts(query: &str) -> Option<AlertFilters> {
    super::notice_query::url_query_value(query, "alerts").map(|_| AlertFilters::from_query(query))
}

/// The `alerts` event.
#[derive(Debug, Serialize)]
pub(super) struct AlertsState {
    version: String,
}

/// How the page of `filters` stands now, for `account`.
pub(super) async fn alerts_state(
    state: &HttpState,
    account: &Account,
    filters: &AlertFilters,
) -> Result<AlertsState, StoreError> {
    let read = read_alerts(state, account, filters).await?;
    Ok(AlertsState {
        version: read.version(),
    })
}
