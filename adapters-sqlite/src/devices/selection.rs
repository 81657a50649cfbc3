//! A selector and an ordering as SQL over `devices` (docs/api.md, the
//! listing's filters and orderings): conditions with bound values only,
//! in a few fixed shapes (one per set of criteria given), so statements are
//! cached and the planner sees what it can use.

use crate::rows::{self, DEVICE_COLUMNS};
use application::ports::{DevicePage, DeviceQuery};
use domain::{AccountId, Criteria, DeviceOrdering, OrderKey, Selector, Tag, Timestamp};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::Value;
use rusqlite::{Connection, params_from_iter};

/// The SQL function `devmgr_found(needle, text, …)`: whether any text,
/// lowercased as Rust does (Unicode-aware, unlike SQLite's `lower`),
/// holds the needle (already lowercased) as a plain substring.
const FOUND: &str = "devmgr_found";

/// Registers the functions the conditions use; on every connection.
pub(crate) fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        FOUND,
        -1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        found,
    )
}

fn found(ctx: &Context<'_>) -> rusqlite::Result<bool> {
    let needle = ctx.get_raw(0).as_str_or_null()?.unwrap_or_default();
    for i in 1..ctx.len() {
        if let Some(text) = ctx.get_raw(i).as_str_or_null()?
            && text.to_lowercase().contains(needle)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Conditions on `devices` (not aliased), with their values in order.
pub(crate) struct Filter {
    /// The `WHERE` clause's text.
    pub(crate) sql: String,
    /// The values of its `?`s, in order.
    pub(crate) values: Vec<Value>,
}

impl Filter {
    /// The devices of `owner` the selector selects; online means a last
    /// heartbeat later than `online_after`.
    pub(crate) fn new(owner: AccountId, selector: &Selector, online_after: Timestamp) -> Self {
        let mut filter = Self {
            sql: "devices.account_id = ?".to_owned(),
            values: vec![Value::Integer(owner.0)],
        };
        if let Some(criteria) = selector.criteria() {
            filter.add_criteria(owner, criteria, online_after);
        }
        filter
    }

    fn and(&mut self, condition: &str, values: impl IntoIterator<Item = Value>) {
        self.sql.push_str(" AND ");
        self.sql.push_str(condition);
        self.values.extend(values);
    }

    fn add_criteria(&mut self, owner: AccountId, criteria: &Criteria, online_after: Timestamp) {
        if let Some(serials) = &criteria.serials {
            self.and(
                "devices.serial IN (SELECT value FROM json_each(?))",
                [Value::Text(json_array(serials.iter().map(String::as_str)))],
            );
        }
        if !criteria.tags.is_empty() {
            let tags = distinct(&criteria.tags);
            self.and(
                "devices.serial IN (SELECT device_tags.serial FROM device_tags \
                 WHERE device_tags.account_id = ? AND device_tags.tag IN (SELECT value FROM json_each(?)) \
                 GROUP BY device_tags.serial HAVING COUNT(*) = ?)",
                [
                    Value::Integer(owner.0),
                    Value::Text(json_array(tags.iter().copied())),
                    Value::Integer(i64::try_from(tags.len()).unwrap_or(i64::MAX)),
                ],
            );
        }
        if !criteria.any_tags.is_empty() {
            let tags = distinct(&criteria.any_tags);
            self.and(
                "devices.serial IN (SELECT device_tags.serial FROM device_tags \
                 WHERE device_tags.account_id = ? AND device_tags.tag IN (SELECT value FROM json_each(?)))",
                [
                    Value::Integer(owner.0),
                    Value::Text(json_array(tags.iter().copied())),
                ],
            );
        }
        let after = Value::Integer(rows::to_secs(online_after));
        match criteria.online {
            Some(true) => self.and("devices.last_seen > ?", [after]),
            Some(false) => self.and(
                "(devices.last_seen IS NULL OR devices.last_seen <= ?)",
                [after],
            ),
            None => {}
        }
        if let Some(kind) = criteria.machine_type {
            self.and(
                "devices.machine_type = ?",
                [Value::Text(kind.code().to_owned())],
            );
        }
        if let Some(search) = &criteria.search {
            self.and(
                &format!("{FOUND}(?, devices.name, devices.description, devices.serial)"),
                [Value::Text(search.needle().to_owned())],
            );
        }
    }
}

/// The `ORDER BY` list of an ordering over `devices`: its key, then
/// creation time and serial, both ascending. SQLite's default BINARY
/// collation compares names by code point; NULL, a device never seen,
/// comes first ascending and last descending.
pub(crate) fn order_by(ordering: DeviceOrdering) -> &'static str {
    match (ordering.key, ordering.descending) {
        (OrderKey::CreatedTime, false) => "devices.created_time, devices.serial",
        (OrderKey::CreatedTime, true) => "devices.created_time DESC, devices.serial",
        (OrderKey::Name, false) => "devices.name, devices.created_time, devices.serial",
        (OrderKey::Name, true) => "devices.name DESC, devices.created_time, devices.serial",
        (OrderKey::LastSeenTime, false) => {
            "devices.last_seen, devices.created_time, devices.serial"
        }
        (OrderKey::LastSeenTime, true) => {
            "devices.last_seen DESC, devices.created_time, devices.serial"
        }
    }
}

/// The query's page and the count of all it selects, in one statement: the
/// window's serials and the count come from the inner select (no device's
/// tags gathered but the page's); only a window starting past the end takes
/// a second statement, for the count.
pub(crate) fn query(
    conn: &Connection,
    owner: AccountId,
    query: &DeviceQuery,
) -> rusqlite::Result<DevicePage> {
    let filter = Filter::new(owner, &query.selector, query.online_after);
    let order = order_by(query.ordering);
    let (limit, offset) = query.window.map_or((-1, 0), |window| {
        (
            i64::from(window.limit),
            i64::try_from(window.offset).unwrap_or(i64::MAX),
        )
    });
    let text = format!(
        "SELECT {DEVICE_COLUMNS}, page.total FROM \
         (SELECT devices.serial AS serial, COUNT(*) OVER () AS total FROM devices \
          WHERE {where_} ORDER BY {order} LIMIT ? OFFSET ?) AS page \
         JOIN devices ON devices.serial = page.serial ORDER BY {order}",
        where_ = filter.sql
    );
    let values = filter
        .values
        .iter()
        .cloned()
        .chain([Value::Integer(limit), Value::Integer(offset)]);
    let mut total = 0_i64;
    let devices = conn
        .prepare_cached(&text)?
        .query_map(params_from_iter(values), |row| {
            total = row.get(16)?;
            rows::device(row)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    if devices.is_empty() && offset > 0 {
        total = conn
            .prepare_cached(&format!(
                "SELECT COUNT(*) FROM devices WHERE {}",
                filter.sql
            ))?
            .query_row(params_from_iter(filter.values), |row| row.get(0))?;
    }
    Ok(DevicePage {
        count: total.unsigned_abs(),
        devices,
    })
}

/// The distinct tags of a list, as text.
pub(crate) fn distinct(tags: &[Tag]) -> Vec<&str> {
    let mut names: Vec<&str> = tags.iter().map(Tag::as_str).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// A JSON array of strings, for `json_each` (one bound value for a list).
pub(crate) fn json_array<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let mut json = String::from("[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push('"');
        for c in item.chars() {
            match c {
                '"' => json.push_str("\\\""),
                '\\' => json.push_str("\\\\"),
                c if u32::from(c) < 0x20 => json.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => json.push(c),
            }
        }
        json.push('"');
    }
    json.push(']');
    json
}

#[cfg(test)]
mod tests {
    use super::json_array;

    #[test]
    fn json_arrays_read_back_as_the_strings_given() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let items = ["a", "b\"c", "d\\e", "f\ng\u{1}", "é%_", ""];
        let json = json_array(items);
        let read: Vec<String> = conn
            .prepare("SELECT value FROM json_each(?1)")
            .unwrap()
            .query_map([&json], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(read, items);
        assert_eq!(json_array([]), "[]");
    }
}
