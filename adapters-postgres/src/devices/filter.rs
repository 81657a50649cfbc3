//! A selector as SQL: conditions on `devices` (under its own name) with
//! bound parameters only. The statement's text depends only on which
//! criteria are given (and the order), never on their values, so each shape
//! is prepared once per connection and cached.

use crate::rows;
use domain::{AccountId, Criteria, DeviceOrdering, OrderKey, Selector, Tag, Timestamp};
use tokio_postgres::types::ToSql;

/// A parameter of the statement being built.
type Param = Box<dyn ToSql + Sync + Send>;

/// The conditions selecting an account's devices, and their parameters
/// (`$1` is the account).
pub(crate) struct Filter {
    conditions: String,
    params: Vec<Param>,
}

impl Filter {
    /// The account's devices the selector selects; online means a heartbeat
    /// later than `online_after`.
    pub(crate) fn new(owner: AccountId, selector: &Selector, online_after: Timestamp) -> Self {
        let mut filter = Self {
            conditions: "devices.account_id = $1".to_owned(),
            params: vec![Box::new(owner.0)],
        };
        if let Some(criteria) = selector.criteria() {
            filter.add(criteria, online_after);
        }
        filter
    }

    /// The conditions, for a `WHERE` clause.
    pub(crate) fn conditions(&self) -> &str {
        &self.conditions
    }

    /// Binds `value` to the next parameter; its placeholder.
    pub(crate) fn bind(&mut self, value: impl ToSql + Sync + Send + 'static) -> String {
        self.params.push(Box::new(value));
        format!("${}", self.params.len())
    }

    /// The parameters bound so far, in order.
    pub(crate) fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params
            .iter()
            .map(|p| &**p as &(dyn ToSql + Sync))
            .collect()
    }

    fn and(&mut self, condition: &str) {
        self.conditions.push_str(" AND ");
        self.conditions.push_str(condition);
    }

    /// Devices carrying `tag`: the commonest criterion, in the shape whose
    /// row estimate is the column statistics' own.
    fn carrying(&mut self, tag: String) {
        let tag = self.bind(tag);
        self.and(&format!(
            "devices.serial IN (SELECT t.serial FROM device_tags t \
             WHERE t.account_id = $1 AND t.tag = {tag})"
        ));
    }

    fn add(&mut self, criteria: &Criteria, online_after: Timestamp) {
        if let Some(serials) = &criteria.serials {
            let serials = self.bind(serials.clone());
            self.and(&format!("devices.serial = ANY({serials}::text[])"));
        }
        let every = distinct(&criteria.tags);
        match every.as_slice() {
            [] => {}
            [tag] => self.carrying(tag.clone()),
            _ => {
                let count = i64::try_from(every.len()).unwrap_or(i64::MAX);
                let tags = self.bind(every);
                let count = self.bind(count);
                self.and(&format!(
                    "devices.serial IN (SELECT t.serial FROM device_tags t \
                     WHERE t.account_id = $1 AND t.tag = ANY({tags}::text[]) \
                     GROUP BY t.serial HAVING COUNT(*) = {count})"
                ));
            }
        }
        let any = distinct(&criteria.any_tags);
        match any.as_slice() {
            [] => {}
            [tag] => self.carrying(tag.clone()),
            _ => {
                // A probe of each candidate's own tags (the primary key):
                // without statistics, a generic plan of the `IN` form was
                // seen to probe the account's index by serial, 1 ms a device.
                let tags = self.bind(any);
                self.and(&format!(
                    "EXISTS (SELECT 1 FROM device_tags t \
                     WHERE t.serial = devices.serial AND t.tag = ANY({tags}::text[]))"
                ));
            }
        }
        if let Some(online) = criteria.online {
            let after = self.bind(rows::at(online_after));
            self.and(&if online {
                format!("devices.last_seen > {after}")
            } else {
                format!("(devices.last_seen IS NULL OR devices.last_seen <= {after})")
            });
        }
        if let Some(kind) = criteria.machine_type {
            let kind = self.bind(kind.code());
            self.and(&format!("devices.machine_type = {kind}"));
        }
        if let Some(search) = &criteria.search {
            // `strpos` takes the needle literally (`%` and `_` too). `lower`
            // follows the database's character type: a UTF-8 one lowercases
            // as Rust does (`É` to `é`); serials take it too, being `"C"`.
            let needle = self.bind(search.needle().to_owned());
            self.and(&format!(
                "(strpos(lower(devices.name), {needle}) > 0 \
                 OR strpos(lower(devices.description), {needle}) > 0 \
                 OR strpos(lower(devices.serial COLLATE \"default\"), {needle}) > 0)"
            ));
        }
    }
}

/// The tags' texts, ascending, each once.
pub(super) fn distinct(tags: &[Tag]) -> Vec<String> {
    let mut texts: Vec<String> = tags.iter().map(|t| t.as_str().to_owned()).collect();
    texts.sort();
    texts.dedup();
    texts
}

/// The `ORDER BY` list of an ordering, on the columns of `devices` (or of a
/// subquery named so): names by code point, a device never seen before any
/// other, ties by creation time then serial, both ascending.
pub(super) fn order_by(ordering: DeviceOrdering) -> &'static str {
    match (ordering.key, ordering.descending) {
        (OrderKey::CreatedTime, false) => "devices.created_time, devices.serial",
        (OrderKey::CreatedTime, true) => "devices.created_time DESC, devices.serial",
        (OrderKey::Name, false) => {
            "devices.name COLLATE \"C\", devices.created_time, devices.serial"
        }
        (OrderKey::Name, true) => {
            "devices.name COLLATE \"C\" DESC, devices.created_time, devices.serial"
        }
        (OrderKey::LastSeenTime, false) => {
            "devices.last_seen NULLS FIRST, devices.created_time, devices.serial"
        }
        (OrderKey::LastSeenTime, true) => {
            "devices.last_seen DESC NULLS LAST, devices.created_time, devices.serial"
        }
    }
}
