-- Monitors, alerts, alert mail windows and webhooks (docs/architecture.md,
-- "Alerts and webhooks"). Times are whole seconds, as elsewhere.

-- A monitor. `seq` orders monitors by creation, also within one second.
-- `ratio` is the fleet monitor's share as text, read back exactly (NULL for
-- a device monitor). The selector is kept as the store reads it back
-- (`selector`) and as the client sent it (`selector_json`). `above_since`:
-- since when a fleet monitor's share has been above its ratio with no
-- alert open.
CREATE TABLE monitors (
    id            TEXT    PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL UNIQUE,
    name          TEXT    NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('device_offline', 'fleet_offline_ratio')),
    ratio         TEXT,
    selector      TEXT    NOT NULL,
    selector_json TEXT    NOT NULL,
    after_seconds INTEGER NOT NULL CHECK (after_seconds >= 0),
    snoozed_until INTEGER,
    above_since   INTEGER,
    created_time  INTEGER NOT NULL
) WITHOUT ROWID;
-- An account's monitors, newest first.
CREATE INDEX monitors_by_account ON monitors (account_id, seq);

-- An alert. No foreign key to devices: a deleted device's alert keeps its
-- serial (NULL: a fleet alert). `calm_since`: since when its condition has
-- been calm without a break, while it is open.
CREATE TABLE alerts (
    id            TEXT    PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    monitor_id    TEXT    NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL UNIQUE,
    serial        TEXT,
    state         TEXT    NOT NULL CHECK (state IN ('open', 'resolved')),
    started_time  INTEGER NOT NULL,
    resolved_time INTEGER,
    reason        TEXT    NOT NULL,
    calm_since    INTEGER
) WITHOUT ROWID;
-- An account's alerts, newest first.
CREATE INDEX alerts_by_account ON alerts (account_id, seq);
-- A monitor's alerts (its listing filter, and the cascade of its deletion).
CREATE INDEX alerts_by_monitor ON alerts (monitor_id, seq);
-- At most one open alert per monitor and device (one fleet alert: serial
-- NULL); the engine reads a monitor's open alerts through it.
CREATE UNIQUE INDEX alerts_one_open ON alerts (monitor_id, COALESCE(serial, ''))
    WHERE state = 'open';

-- Each account's current alert mail window: when it opened and how many of
-- its notifications were mailed one by one.
CREATE TABLE alert_mail_windows (
    account_id  INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    opened_time INTEGER NOT NULL,
    mailed      INTEGER NOT NULL
);

-- Notifications waiting for the digest of their window (`window_opened`),
-- in the order they came (`seq`). No foreign key to alerts: a line stays
-- when its monitor is deleted (the notification was made).
CREATE TABLE alert_digest_lines (
    account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    window_opened INTEGER NOT NULL,
    subject       TEXT    NOT NULL,
    alert_id      TEXT    NOT NULL,
    PRIMARY KEY (account_id, seq)
) WITHOUT ROWID;
CREATE INDEX alert_digest_lines_by_window ON alert_digest_lines (account_id, window_opened, seq);

-- A webhook. `events`: the codes it subscribes to, comma-separated.
CREATE TABLE webhooks (
    id           TEXT    PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL UNIQUE,
    target_url   TEXT    NOT NULL,
    events       TEXT    NOT NULL,
    secret       TEXT    NOT NULL,
    created_time INTEGER NOT NULL
) WITHOUT ROWID;
-- An account's webhooks, newest first (and those an event goes to).
CREATE INDEX webhooks_by_account ON webhooks (account_id, seq);

-- A delivery of an event to a webhook. `created_time` is the event's time;
-- a pending delivery is due at `next_attempt_time`, and hidden from other
-- workers until `lease_until` while one attempts it.
CREATE TABLE webhook_deliveries (
    id                TEXT    PRIMARY KEY,
    webhook_id        TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    account_id        INTEGER NOT NULL,
    seq               INTEGER NOT NULL UNIQUE,
    event             TEXT    NOT NULL,
    data              TEXT    NOT NULL,
    status            TEXT    NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    response_code     INTEGER,
    error             TEXT    NOT NULL DEFAULT '',
    created_time      INTEGER NOT NULL,
    last_attempt_time INTEGER,
    next_attempt_time INTEGER,
    lease_until       INTEGER
) WITHOUT ROWID;
-- The deliveries due: pending ones, earliest due first.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_time)
    WHERE status = 'pending';
-- A webhook's deliveries, newest first (and the cascade of its deletion).
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);
