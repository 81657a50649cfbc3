-- Sign-in sessions of the web console, by SHA-256 hash of the cookie's
-- secret only. A session ends when idle too long (last_used).
CREATE TABLE console_sessions (
    hash         TEXT    PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_time INTEGER NOT NULL,
    last_used    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_by_account ON console_sessions (account_id);
CREATE INDEX console_sessions_by_last_used ON console_sessions (last_used);
