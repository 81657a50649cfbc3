//! Moving a whole store's rows to another store of either kind
//! (`devmgr copy-store`, docs/operations.md "Moving between stores").
//!
//! Both stores keep the same tables with the same columns, in their own
//! types (SQLite: whole seconds and 0/1; PostgreSQL: `timestamptz` and
//! `boolean`). The transfer speaks a neutral form both map to exactly: each
//! table is a [`Table`], each row a list of [`Value`]s in the order of
//! [`Table::columns`]. Ids travel as they are, so every foreign key, token
//! hash and password hash still matches after the copy.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use domain::Timestamp;
use thiserror::Error;

/// One stored value, in the neutral form of a transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// No value (a nullable column).
    Null,
    /// A whole number.
    Integer(i64),
    /// Text.
    Text(String),
    /// A truth value.
    Boolean(bool),
    /// An instant, in whole seconds.
    Time(Timestamp),
}

/// The type of a column, which fixes the [`Value`]s it holds (besides
/// [`Value::Null`] where the column allows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// [`Value::Integer`].
    Integer,
    /// [`Value::Text`].
    Text,
    /// [`Value::Boolean`].
    Boolean,
    /// [`Value::Time`].
    Time,
}

/// A column of a copied table: its name in both stores, and its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column's name (the same in both stores).
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
}

mod columns;

use columns::*;

/// Every table a transfer copies. Tables not listed (the schema history,
/// counters of rate limits that only live minutes) are not copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// Accounts, with their password hashes and install tokens.
    Accounts,
    /// API tokens (by hash).
    ApiTokens,
    /// Console sign-in sessions (by hash).
    ConsoleSessions,
    /// E-mailed verification and reset keys (by hash).
    EmailKeys,
    /// Failed logins and lockouts, by address.
    LoginFailures,
    /// Devices, with their device token hashes.
    Devices,
    /// The tags each device carries.
    DeviceTags,
    /// The listening ports each device reported.
    DevicePorts,
    /// Commands, with their whole history.
    DeviceCommands,
    /// Fleet jobs, with where each stands.
    Jobs,
    /// The targets of fleet jobs.
    JobTargets,
    /// Monitors, with what their evaluation remembers.
    Monitors,
    /// Alerts, open and resolved.
    Alerts,
    /// Each account's current alert mail window.
    AlertMailWindows,
    /// Alert notifications waiting for their window's digest.
    AlertDigestLines,
    /// Webhooks, with their secrets.
    Webhooks,
    /// Webhook deliveries, pending and past.
    WebhookDeliveries,
    /// Mail not yet delivered.
    Outbox,
    /// The audit log's entries (docs/audit.md).
    AuditLog,
    /// The audit chain's head and checkpoint: the one row the migration
    /// seeds (see [`Table::seeded`]).
    AuditChain,
}

impl Table {
    /// Every table, in an order where a row's references are copied before it.
    pub const ALL: [Table; 20] = [
        Table::Accounts,
        Table::ApiTokens,
        Table::ConsoleSessions,
        Table::EmailKeys,
        Table::LoginFailures,
        Table::Devices,
        Table::DeviceTags,
        Table::DevicePorts,
        Table::DeviceCommands,
        Table::Jobs,
        Table::JobTargets,
        Table::Monitors,
        Table::Alerts,
        Table::AlertMailWindows,
        Table::AlertDigestLines,
        Table::Webhooks,
        Table::WebhookDeliveries,
        Table::Outbox,
        Table::AuditLog,
        Table::AuditChain,
    ];

    /// The table's name in both stores.
    pub fn name(self) -> &'static str {
        match self {
            Table::Accounts => "accounts",
            Table::ApiTokens => "api_tokens",
            Table::ConsoleSessions => "console_sessions",
            Table::EmailKeys => "email_keys",
            Table::LoginFailures => "login_failures",
            Table::Devices => "devices",
            Table::DeviceTags => "device_tags",
            Table::DevicePorts => "device_ports",
            Table::DeviceCommands => "device_commands",
            Table::Jobs => "jobs",
            Table::JobTargets => "job_targets",
            Table::Monitors => "monitors",
            Table::Alerts => "alerts",
            Table::AlertMailWindows => "alert_mail_windows",
            Table::AlertDigestLines => "alert_digest_lines",
            Table::Webhooks => "webhooks",
            Table::WebhookDeliveries => "webhook_deliveries",
            Table::Outbox => "outbox",
            Table::AuditLog => "audit_log",
            Table::AuditChain => "audit_chain",
        }
    }

    /// What `devmgr copy-store` calls the table's rows when it counts them.
    pub fn label(self) -> &'static str {
        match self {
            Table::EmailKeys => "keys",
            Table::DeviceCommands => "commands",
            Table::JobTargets => "job targets",
            Table::AlertMailWindows => "alert mail windows",
            Table::AlertDigestLines => "alert digest lines",
            Table::WebhookDeliveries => "webhook deliveries",
            Table::AuditLog => "audit entries",
            Table::AuditChain => "audit chain",
            other => other.name(),
        }
    }

    /// The columns of a row, in the order of its values.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Accounts => ACCOUNTS_COLUMNS,
            Table::ApiTokens => API_TOKENS_COLUMNS,
            Table::ConsoleSessions => CONSOLE_SESSIONS_COLUMNS,
            Table::EmailKeys => EMAIL_KEYS_COLUMNS,
            Table::LoginFailures => LOGIN_FAILURES_COLUMNS,
            Table::Devices => DEVICE_COLUMNS,
            Table::DeviceTags => DEVICE_TAGS_COLUMNS,
            Table::DevicePorts => DEVICE_PORTS_COLUMNS,
            Table::DeviceCommands => DEVICE_COMMANDS_COLUMNS,
            Table::Jobs => JOBS_COLUMNS,
            Table::JobTargets => JOB_TARGETS_COLUMNS,
            Table::Monitors => MONITORS_COLUMNS,
            Table::Alerts => ALERTS_COLUMNS,
            Table::AlertMailWindows => ALERT_MAIL_WINDOWS_COLUMNS,
            Table::AlertDigestLines => ALERT_DIGEST_LINES_COLUMNS,
            Table::Webhooks => WEBHOOKS_COLUMNS,
            Table::WebhookDeliveries => WEBHOOK_DELIVERIES_COLUMNS,
            Table::Outbox => OUTBOX_COLUMNS,
            Table::AuditLog => AUDIT_LOG_COLUMNS,
            Table::AuditChain => AUDIT_CHAIN_COLUMNS,
        }
    }

    /// Checks that a store's columns of this table, `stored`, are exactly
    /// the transfer's: a column this build does not know would be lost.
    pub fn check_columns(self, stored: &[String]) -> Result<(), StoreError> {
        let known = self.columns();
        if let Some(unknown) = stored.iter().find(|s| !known.iter().any(|c| c.name == *s)) {
            return Err(StoreError::message(format!(
                "cannot copy the table {}: this devmgr does not know its column {unknown}",
                self.name()
            )));
        }
        if let Some(missing) = known.iter().find(|c| !stored.iter().any(|s| *s == c.name)) {
            return Err(StoreError::message(format!(
                "cannot copy the table {}: it has no column {} (is the database migrated?)",
                self.name(),
                missing.name
            )));
        }
        Ok(())
    }

    /// The columns that order the table's rows: its primary key.
    pub fn key(self) -> &'static [&'static str] {
        match self {
            Table::Accounts => &["id"],
            Table::ApiTokens => &["token_hash"],
            Table::ConsoleSessions => &["hash"],
            Table::EmailKeys => &["key_hash"],
            Table::LoginFailures => &["address"],
            Table::Devices => &["serial"],
            Table::DeviceTags => &["serial", "tag"],
            Table::DevicePorts => &["serial", "port", "protocol"],
            Table::JobTargets => &["job_id", "position"],
            Table::AlertMailWindows => &["account_id"],
            Table::AlertDigestLines => &["account_id", "seq"],
            Table::AuditChain => &["singleton"],
            Table::DeviceCommands
            | Table::Jobs
            | Table::Monitors
            | Table::Alerts
            | Table::Webhooks
            | Table::WebhookDeliveries
            | Table::Outbox
            | Table::AuditLog => &["id"],
        }
    }

    /// Whether a migrated, empty store already holds this table's rows (the
    /// audit chain's one row, head 0): an import deletes them before it
    /// writes the table's rows, which replace them.
    pub fn seeded(self) -> bool {
        self == Table::AuditChain
    }

    /// The SQL condition, the same in both stores, of the rows that make a
    /// store not empty: all of them, but for a [`seeded`](Self::seeded)
    /// table only those that differ from the seed.
    pub fn held_rows(self) -> &'static str {
        match self {
            Table::AuditChain => "head_id <> 0 OR checkpoint_id IS NOT NULL",
            _ => "1 = 1",
        }
    }
}

/// Some rows of one table, each with one value per column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Their table.
    pub table: Table,
    /// The rows.
    pub rows: Vec<Vec<Value>>,
}

/// Rows in each table, in [`Table::ALL`]'s order (tables without rows too).
pub type Counts = Vec<(Table, u64)>;

/// Why a transfer cannot go on.
#[derive(Debug, Error)]
pub enum TransferError {
    /// The target already has rows (the tables that have some, with their counts).
    #[error("{}", describe_not_empty(.0))]
    NotEmpty(Counts),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn describe_not_empty(counts: &Counts) -> String {
    let held: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(table, n)| format!("{n} {}", table.label()))
        .collect();
    format!(
        "the target database is not empty ({}): copy-store only fills an empty database",
        held.join(", ")
    )
}

/// A store whose rows can be copied out and in, whole.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait StoreTransfer: Send + Sync {
    /// Reads every row of every table, in batches, from one consistent
    /// snapshot of the store, tables in [`Table::ALL`]'s order.
    async fn export(&self) -> Result<Box<dyn RowSource>, StoreError>;
    /// Starts writing rows into the store in one transaction, which refuses
    /// ([`TransferError::NotEmpty`]) when any table already has rows.
    async fn import(&self) -> Result<Box<dyn RowSink>, TransferError>;
}

/// The rows of an export, batch after batch.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait RowSource: Send {
    /// The next batch (never empty), or `None` once every table is read.
    async fn next_batch(&mut self) -> Result<Option<Batch>, StoreError>;
}

/// Where an import writes: nothing is visible before [`commit`](Self::commit).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait RowSink: Send {
    /// Writes a batch, its ids as they are.
    async fn write(&mut self, batch: Batch) -> Result<(), StoreError>;
    /// Makes the store's own id generators continue after the copied ids,
    /// then commits every row written.
    async fn commit(self: Box<Self>) -> Result<(), StoreError>;
}
