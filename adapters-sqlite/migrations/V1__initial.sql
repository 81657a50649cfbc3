-- Times are whole seconds since the Unix epoch, UTC.

CREATE TABLE accounts (
    id             INTEGER PRIMARY KEY,
    email          TEXT    NOT NULL,
    -- The whole address lowercased: addresses are unique ignoring case.
    email_key      TEXT    NOT NULL UNIQUE,
    name           TEXT    NOT NULL DEFAULT '',
    password_hash  TEXT,
    email_verified INTEGER NOT NULL DEFAULT 0 CHECK (email_verified IN (0, 1)),
    install_token  TEXT    NOT NULL UNIQUE,
    created_time   INTEGER NOT NULL
);

-- API tokens, by SHA-256 hash only.
CREATE TABLE api_tokens (
    token_hash   TEXT    PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_time INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX api_tokens_by_account ON api_tokens (account_id);

-- Keys of e-mailed links, by SHA-256 hash only.
CREATE TABLE email_keys (
    key_hash     TEXT    PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose      TEXT    NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    expires_time INTEGER NOT NULL,
    used_time    INTEGER
) WITHOUT ROWID;
CREATE INDEX email_keys_by_account ON email_keys (account_id, purpose);

CREATE TABLE devices (
    serial           TEXT    PRIMARY KEY,
    account_id       INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name             TEXT    NOT NULL,
    description      TEXT    NOT NULL DEFAULT '',
    wormhole_slug    TEXT    NOT NULL UNIQUE,
    agent_version    TEXT    NOT NULL DEFAULT '',
    operating_system TEXT    NOT NULL DEFAULT '',
    uname            TEXT    NOT NULL DEFAULT '',
    machine_type     TEXT    NOT NULL DEFAULT 'unknown',
    disk_capacity    INTEGER,
    disk_used        INTEGER,
    processor_speed  INTEGER NOT NULL DEFAULT 0,
    ram_capacity     INTEGER NOT NULL DEFAULT 0,
    last_seen        INTEGER,
    created_time     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX devices_by_account ON devices (account_id, created_time, serial);

-- Commands for devices. Pending until handed out; lapse when old.
CREATE TABLE device_commands (
    id             TEXT    PRIMARY KEY,
    serial         TEXT    NOT NULL REFERENCES devices (serial) ON DELETE CASCADE,
    action         TEXT    NOT NULL CHECK (action IN ('reboot')),
    issued_time    INTEGER NOT NULL,
    delivered_time INTEGER,
    acked_time     INTEGER,
    status         TEXT,
    detail         TEXT
) WITHOUT ROWID;
CREATE INDEX device_commands_pending ON device_commands (serial, delivered_time, issued_time);
