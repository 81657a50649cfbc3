//! A selector and an ordering as SQL over `devices` (docs/api.md, the
//! listing's filters and orderings): conditions with bound values only,
//! in a few fixed shapes (one per set of criteria given), so statements are
//! cached and the planner sees what it can use.

use crate::rows::{self, LISTED_DEVICE_COLUMNS};
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
            && holds(text, needle)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether `text`, lowercased as Rust does, holds `needle` (lowercase).
/// Both steps are the standard library's (optimised even in a debug build).
fn holds(text: &str, needle: &str) -> bool {
    if text.is_ascii() {
        text.to_ascii_lowercase().contains(needle)
    } else {
        text.to_lowercase().contains(needle)
    }
}

/// The serials of the account's devices carrying every tag of a JSON array
/// (of distinct tags) whose length is the second value.
const WITH_EVERY_TAG: &str = "SELECT device_tags.serial AS serial FROM device_tags \
     WHERE device_tags.account_id = ? AND device_tags.tag IN (SELECT value FROM json_each(?)) \
     GROUP BY device_tags.serial HAVING COUNT(*) = ?";
/// The serials of the account's devices carrying a tag of a JSON array.
const WITH_ANY_TAG: &str = "SELECT DISTINCT device_tags.serial AS serial FROM device_tags \
     WHERE device_tags.account_id = ? AND device_tags.tag IN (SELECT value FROM json_each(?))";
/// The serials of a JSON array.
const NAMED: &str = "SELECT DISTINCT value AS serial FROM json_each(?)";

/// The devices a selector selects, as the `FROM` and `WHERE` clauses of a
/// select of `devices` (not aliased), with their values in order.
///
/// Without statistics SQLite takes an account's devices for a few, so it
/// would walk all of them, checking each against the serials or tags
/// asked for. When the criteria name serials or tags, those serials drive
/// instead (the left side of a `CROSS JOIN`, which SQLite keeps outer): the
/// serials given, else the tag index's devices with every tag, else with
/// any; the other criteria are conditions on each.
pub(crate) struct Filter {
    /// The `FROM` clause's text.
    pub(crate) from: String,
    /// Whether serials drive the select (else the account's devices do).
    driven: bool,
    /// Whether a search is among the conditions.
    searches: bool,
    /// The `WHERE` clause's text.
    pub(crate) sql: String,
    /// The values of the `?`s of both, in order.
    pub(crate) values: Vec<Value>,
}

impl Filter {
    /// The devices of `owner` the selector selects; online means a last
    /// heartbeat later than `online_after`.
    pub(crate) fn new(owner: AccountId, selector: &Selector, online_after: Timestamp) -> Self {
        let mut filter = Self {
            from: "devices".to_owned(),
            driven: false,
            searches: false,
            sql: "devices.account_id = ?".to_owned(),
            values: vec![Value::Integer(owner.0)],
        };
        if let Some(criteria) = selector.criteria() {
            filter.add_criteria(owner, criteria, online_after);
        }
        filter
    }

    /// Makes the serials of `subquery` (with its `values`) drive the select.
    fn drive(&mut self, subquery: &str, values: impl IntoIterator<Item = Value>) {
        self.from =
            format!("({subquery}) AS chosen CROSS JOIN devices ON devices.serial = chosen.serial");
        self.driven = true;
        let mut all: Vec<Value> = values.into_iter().collect();
        all.append(&mut self.values);
        self.values = all;
    }

    /// The `FROM` clause of a select in `ordering`: the account's devices
    /// are read through the index in that order (which SQLite, taking an
    /// account's devices for a few, would not always choose), so that a
    /// page stops after its window.
    fn source_in(&self, ordering: DeviceOrdering) -> String {
        if self.driven {
            return self.from.clone();
        }
        let index = match ordering.key {
            OrderKey::CreatedTime => "devices_by_account",
            OrderKey::Name => "devices_by_name",
            OrderKey::LastSeenTime => "devices_by_last_seen",
        };
        format!("devices INDEXED BY {index}")
    }

    /// The `FROM` clause of a select of the devices by last heartbeat (the
    /// down devices of a monitor): through the index on it, unless serials
    /// drive the select.
    pub(crate) fn source_by_last_seen(&self) -> String {
        self.source_in(DeviceOrdering {
            key: OrderKey::LastSeenTime,
            descending: false,
        })
    }

    fn and(&mut self, condition: &str, values: impl IntoIterator<Item = Value>) {
        self.sql.push_str(" AND ");
        self.sql.push_str(condition);
        self.values.extend(values);
    }

    fn add_criteria(&mut self, owner: AccountId, criteria: &Criteria, online_after: Timestamp) {
        let account = || Value::Integer(owner.0);
        let all_tags = distinct(&criteria.tags);
        let every = [
            account(),
            Value::Text(json_array(all_tags.iter().copied())),
            Value::Integer(i64::try_from(all_tags.len()).unwrap_or(i64::MAX)),
        ];
        let any = [
            account(),
            Value::Text(json_array(distinct(&criteria.any_tags))),
        ];
        let (has_every, has_any) = (!all_tags.is_empty(), !criteria.any_tags.is_empty());
        if let Some(serials) = &criteria.serials {
            let named = json_array(serials.iter().map(String::as_str));
            self.drive(NAMED, [Value::Text(named)]);
            if has_every {
                self.and(&format!("devices.serial IN ({WITH_EVERY_TAG})"), every);
            }
            if has_any {
                self.and(&format!("devices.serial IN ({WITH_ANY_TAG})"), any);
            }
        } else if has_every {
            self.drive(WITH_EVERY_TAG, every);
            if has_any {
                self.and(&format!("devices.serial IN ({WITH_ANY_TAG})"), any);
            }
        } else if has_any {
            self.drive(WITH_ANY_TAG, any);
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
            self.searches = true;
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
/// count is an uncorrelated subquery, evaluated once, over an index where
/// the criteria allow; the page is read in the order of an index where one
/// fits, so a listing stops after its window instead of sorting every
/// device (which `COUNT(*) OVER ()` would make it do). Only a window
/// starting past the end takes a second statement, for the count.
pub(crate) fn query(
    conn: &Connection,
    owner: AccountId,
    query: &DeviceQuery,
) -> rusqlite::Result<DevicePage> {
    crate::snapshot::in_one_snapshot(conn, || read_page(conn, owner, query))
}

/// [`query`]'s statements: the page, its devices' tags, and the count
/// when the window starts past the end.
fn read_page(
    conn: &Connection,
    owner: AccountId,
    query: &DeviceQuery,
) -> rusqlite::Result<DevicePage> {
    let filter = Filter::new(owner, &query.selector, query.online_after);
    let (limit, offset) = query.window.map_or((-1, 0), |window| {
        (
            i64::from(window.limit),
            i64::try_from(window.offset).unwrap_or(i64::MAX),
        )
    });
    let (text, values) = page_statement(&filter, query.ordering, limit, offset);
    let mut total = 0_i64;
    let mut devices = conn
        .prepare_cached(&text)?
        .query_map(params_from_iter(values), |row| {
            total = row.get(16)?;
            rows::device(row)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // Without criteria the total is the account's: the page is most of it
    // when it holds half or more.
    let most_of_account = query.selector.criteria().is_none()
        && devices.len().saturating_mul(2) >= total.unsigned_abs() as usize;
    super::tags::attach(conn, owner, &mut devices, most_of_account)?;
    if devices.is_empty() && offset > 0 {
        total = conn
            .prepare_cached(&format!(
                "SELECT COUNT(*) FROM {} WHERE {}",
                filter.from, filter.sql
            ))?
            .query_row(params_from_iter(filter.values), |row| row.get(0))?;
    }
    Ok(DevicePage {
        count: total.unsigned_abs(),
        devices,
    })
}

/// The statement of [`query`] (a page of `limit` devices, -1 for all,
/// after `offset`, and the count of all), with its values. A search of the
/// account's devices reads every one of them anyway, so they are read once:
/// the selected devices' serials are counted (`COUNT(*) OVER ()`) and
/// sorted, and only the page's are read again. Otherwise the count is a
/// subquery, over an index or the serials given, and the page stops after
/// its window.
fn page_statement(
    filter: &Filter,
    ordering: DeviceOrdering,
    limit: i64,
    offset: i64,
) -> (String, Vec<Value>) {
    let (from, where_, order) = (&filter.from, &filter.sql, order_by(ordering));
    let window = [Value::Integer(limit), Value::Integer(offset)];
    if filter.searches && !filter.driven {
        let text = format!(
            "SELECT {LISTED_DEVICE_COLUMNS}, page.total FROM \
             (SELECT devices.serial AS serial, COUNT(*) OVER () AS total FROM {from} \
              WHERE {where_} ORDER BY {order} LIMIT ? OFFSET ?) AS page \
             CROSS JOIN devices ON devices.serial = page.serial ORDER BY {order}"
        );
        return (text, filter.values.iter().cloned().chain(window).collect());
    }
    let text = format!(
        "SELECT {LISTED_DEVICE_COLUMNS}, (SELECT COUNT(*) FROM {from} WHERE {where_}) \
         FROM {in_order} WHERE {where_} ORDER BY {order} LIMIT ? OFFSET ?",
        in_order = filter.source_in(ordering),
    );
    let values = filter
        .values
        .iter()
        .chain(&filter.values)
        .cloned()
        .chain(window)
        .collect();
    (text, values)
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
mod plans;

#[cfg(test)]
mod tests {
    use super::{holds, json_array};

    #[test]
    fn texts_hold_a_needle_as_rust_lowercases_them() {
        let cases = [
            ("Kitchen Pi", "kitchen", true),
            ("Kitchen Pi", "n p", true),
            ("Kitchen Pi", "pi", true),
            ("Kitchen Pi", "ki ", false),
            ("Kitchen Pi", "é", false),
            ("ÉCOLE 12", "école", true),
            ("ÉCOLE 12", "ecole", false),
            ("Straße", "straße", true),
            ("KELVIN \u{212A}", "k", true),
            ("ab", "abc", false),
            ("", "a", false),
            ("any", "", true),
        ];
        for (text, needle, expected) in cases {
            assert_eq!(holds(text, needle), expected, "{text:?} {needle:?}");
            assert_eq!(
                text.to_lowercase().contains(needle),
                expected,
                "as the domain's search: {text:?} {needle:?}"
            );
        }
    }

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
