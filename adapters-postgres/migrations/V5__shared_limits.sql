-- Limits that every instance on the database counts together: rate budgets
-- and the open long polls of each device (docs/operations.md, "What is
-- shared, what is per instance"). UNLOGGED: counters need no crash safety
-- (after a crash PostgreSQL empties these tables, which only gives every
-- budget back early), and writing them costs no WAL.

-- GCRA's theoretical arrival time of each key ('addr:192.0.2.1',
-- 'pwchange:42'); a key whose time has passed has its whole budget and can
-- go. `allowed` is the verdict on the key's latest request.
CREATE UNLOGGED TABLE rate_budgets (
    key     TEXT        PRIMARY KEY,
    tat     TIMESTAMPTZ NOT NULL,
    allowed BOOLEAN     NOT NULL
);

-- The long polls open on every instance. `waker` names the poll in the
-- notification that ends it. A row older than a poll's lifetime was left by
-- an instance that stopped, and no longer counts.
CREATE UNLOGGED TABLE open_long_polls (
    id        BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    serial    TEXT        NOT NULL,
    waker     TEXT        NOT NULL,
    opened_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX open_long_polls_by_serial ON open_long_polls (serial, id);

-- Registers a long poll of a device and ends the oldest of its open polls
-- beyond `cap`, wherever they are, by a notification on `channel` naming
-- each one's waker; returns the new poll's id. One call from the client;
-- inside, opens of one device take turns (an advisory lock held until the
-- call commits), and each statement sees the polls every earlier turn
-- committed, so the cap holds however many opens race.
CREATE FUNCTION open_long_poll(
    device   TEXT,
    poll     TEXT,
    cap      INTEGER,
    lifetime INTERVAL,
    channel  TEXT
) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    opened BIGINT;
    ended  TEXT;
BEGIN
    -- 1685483628 is 'dvpl', this lock's class (two-key advisory locks never
    -- meet the one-key lock that migrations take).
    PERFORM pg_advisory_xact_lock(1685483628, hashtext(device));
    DELETE FROM open_long_polls
     WHERE serial = device AND opened_at < clock_timestamp() - lifetime;
    INSERT INTO open_long_polls (serial, waker) VALUES (device, poll)
    RETURNING id INTO opened;
    FOR ended IN
        DELETE FROM open_long_polls
         WHERE id IN (SELECT id FROM open_long_polls WHERE serial = device
                       ORDER BY id DESC OFFSET cap)
        RETURNING waker
    LOOP
        PERFORM pg_notify(channel, ended);
    END LOOP;
    RETURN opened;
END;
$$;
