-- devmgr's schema on PostgreSQL: the same tables as on SQLite, in native types.
-- Times are whole seconds, UTC. Serials compare byte by byte (COLLATE "C"),
-- so devices sort as they do on SQLite.

CREATE TABLE accounts (
    id             BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email          TEXT        NOT NULL,
    -- The whole address lowercased: addresses are unique ignoring case.
    email_key      TEXT        NOT NULL CONSTRAINT accounts_email_key_unique UNIQUE,
    name           TEXT        NOT NULL DEFAULT '',
    password_hash  TEXT,
    email_verified BOOLEAN     NOT NULL DEFAULT FALSE,
    install_token  TEXT        NOT NULL CONSTRAINT accounts_install_token_unique UNIQUE,
    created_time   TIMESTAMPTZ NOT NULL
);

-- API tokens, by SHA-256 hash only.
CREATE TABLE api_tokens (
    token_hash   TEXT        PRIMARY KEY,
    account_id   BIGINT      NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_time TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_tokens_by_account ON api_tokens (account_id);

-- Keys of e-mailed links, by SHA-256 hash only.
CREATE TABLE email_keys (
    key_hash     TEXT        PRIMARY KEY,
    account_id   BIGINT      NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose      TEXT        NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    expires_time TIMESTAMPTZ NOT NULL,
    used_time    TIMESTAMPTZ
);
CREATE INDEX email_keys_by_account ON email_keys (account_id, purpose);

CREATE TABLE devices (
    serial           TEXT        COLLATE "C" PRIMARY KEY,
    account_id       BIGINT      NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name             TEXT        NOT NULL,
    description      TEXT        NOT NULL DEFAULT '',
    wormhole_slug    TEXT        NOT NULL CONSTRAINT devices_wormhole_slug_unique UNIQUE,
    agent_version    TEXT        NOT NULL DEFAULT '',
    operating_system TEXT        NOT NULL DEFAULT '',
    uname            TEXT        NOT NULL DEFAULT '',
    machine_type     TEXT        NOT NULL DEFAULT 'unknown',
    disk_capacity    BIGINT,
    disk_used        BIGINT,
    processor_speed  BIGINT      NOT NULL DEFAULT 0,
    ram_capacity     BIGINT      NOT NULL DEFAULT 0,
    last_seen        TIMESTAMPTZ,
    created_time     TIMESTAMPTZ NOT NULL,
    -- SHA-256 of the device's current agent token; NULL until it enrols.
    token_hash       TEXT        CONSTRAINT devices_token_hash_unique UNIQUE
);
CREATE INDEX devices_by_account ON devices (account_id, created_time, serial);

-- The listening ports the agent last reported.
CREATE TABLE device_ports (
    serial   TEXT    COLLATE "C" NOT NULL REFERENCES devices (serial) ON DELETE CASCADE,
    port     INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
    protocol TEXT    NOT NULL CHECK (protocol IN ('tcp', 'udp')),
    name     TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (serial, port, protocol)
);

-- Commands for devices. Pending until handed out; lapse when old.
CREATE TABLE device_commands (
    id             TEXT        PRIMARY KEY,
    serial         TEXT        COLLATE "C" NOT NULL REFERENCES devices (serial) ON DELETE CASCADE,
    action         TEXT        NOT NULL CHECK (action IN ('reboot')),
    issued_time    TIMESTAMPTZ NOT NULL,
    delivered_time TIMESTAMPTZ,
    acked_time     TIMESTAMPTZ,
    status         TEXT,
    detail         TEXT
);
CREATE INDEX device_commands_pending ON device_commands (serial, delivered_time, issued_time);

-- Mail queued in the transaction of the change that causes it; a row is
-- deleted once delivered (its links are secrets) or given up.
CREATE TABLE outbox (
    id                TEXT        PRIMARY KEY,
    recipient         TEXT        NOT NULL,
    subject           TEXT        NOT NULL,
    text_body         TEXT        NOT NULL,
    html_body         TEXT        NOT NULL,
    queued_time       TIMESTAMPTZ NOT NULL,
    -- Due from this time; a worker sending it pushes it to the end of its lease.
    next_attempt_time TIMESTAMPTZ NOT NULL,
    attempts          INTEGER     NOT NULL DEFAULT 0,
    last_error        TEXT
);
CREATE INDEX outbox_due ON outbox (next_attempt_time, queued_time);

-- Failed logins per lowercased address (whether or not an account has it).
CREATE TABLE login_failures (
    address      TEXT        PRIMARY KEY,
    failures     INTEGER     NOT NULL,
    -- Failures before window_start + period count; later ones start anew.
    window_start TIMESTAMPTZ NOT NULL,
    locked_until TIMESTAMPTZ
);
