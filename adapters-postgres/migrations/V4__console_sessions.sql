-- Sign-in sessions of the web console, by SHA-256 hash of the cookie's
-- secret only. A session ends when idle too long (last_used).
CREATE TABLE console_sessions (
    hash         TEXT        PRIMARY KEY,
    account_id   BIGINT      NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_time TIMESTAMPTZ NOT NULL,
    last_used    TIMESTAMPTZ NOT NULL
);
CREATE INDEX console_sessions_by_account ON console_sessions (account_id);
CREATE INDEX console_sessions_by_last_used ON console_sessions (last_used);
