-- Mail queued in the transaction of the change that causes it; a row is
-- deleted once delivered (its links are secrets) or given up.
CREATE TABLE outbox (
    id                TEXT    PRIMARY KEY,
    recipient         TEXT    NOT NULL,
    subject           TEXT    NOT NULL,
    text_body         TEXT    NOT NULL,
    html_body         TEXT    NOT NULL,
    queued_time       INTEGER NOT NULL,
    -- Due from this time; a worker sending it pushes it to the end of its lease.
    next_attempt_time INTEGER NOT NULL,
    attempts          INTEGER NOT NULL DEFAULT 0,
    last_error        TEXT
) WITHOUT ROWID;
CREATE INDEX outbox_due ON outbox (next_attempt_time, queued_time);

-- Failed logins per lowercased address (whether or not an account has it).
CREATE TABLE login_failures (
    address      TEXT    PRIMARY KEY,
    failures     INTEGER NOT NULL,
    -- Failures before window_start + period count; later ones start anew.
    window_start INTEGER NOT NULL,
    locked_until INTEGER
) WITHOUT ROWID;
