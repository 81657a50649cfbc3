-- The audit log (docs/audit.md): one row per entry of the chain, and the
-- chain's head and checkpoint in a single row, as on SQLite.

-- An entry. `id` is assigned as the head's id + 1 under the row lock on
-- audit_chain, never by a sequence (a sequence hands out numbers that a
-- rolled-back transaction loses, leaving gaps). `account_id`: whose log
-- shows it; no foreign key, since entries outlive the accounts, devices,
-- jobs, monitors and webhooks they name. `time` is the API's text form
-- (fixed width, so text order is time order); `detail` the canonical JSON
-- text the hash was computed over.
CREATE TABLE audit_log (
    id            BIGINT PRIMARY KEY,
    account_id    BIGINT NOT NULL,
    time          TEXT   NOT NULL,
    actor_kind    TEXT   NOT NULL,
    actor_label   TEXT   NOT NULL,
    action        TEXT   NOT NULL,
    target        TEXT   NOT NULL,
    ip            TEXT,
    detail        TEXT   NOT NULL,
    previous_hash TEXT   NOT NULL,
    hash          TEXT   NOT NULL
);
-- An account's log, newest first, unfiltered, by action, by target.
CREATE INDEX audit_log_by_account ON audit_log (account_id, id);
CREATE INDEX audit_log_by_action ON audit_log (account_id, action, id);
CREATE INDEX audit_log_by_target ON audit_log (account_id, target, id);
-- Retention: the newest entry older than a time.
CREATE INDEX audit_log_by_time ON audit_log (time);

-- The chain's ends: the newest entry written (0 and 64 zeros before the
-- first) and the newest entry retention deleted, where verification starts.
-- Its one row is the lock every append takes (SELECT … FOR UPDATE).
CREATE TABLE audit_chain (
    singleton       INTEGER PRIMARY KEY CHECK (singleton = 1),
    head_id         BIGINT  NOT NULL,
    head_hash       TEXT    NOT NULL,
    checkpoint_id   BIGINT,
    checkpoint_hash TEXT
);
INSERT INTO audit_chain (singleton, head_id, head_hash)
VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');
