-- The fleet view: tags on devices, and what its listing filters and orders by.

-- The tags each device carries (lowercase, without spaces). The account is
-- kept beside the serial, so an account's devices with a tag are found, and
-- its tags counted, through one index.
CREATE TABLE device_tags (
    serial     TEXT    NOT NULL REFERENCES devices (serial) ON DELETE CASCADE,
    account_id INTEGER NOT NULL,
    tag        TEXT    NOT NULL,
    PRIMARY KEY (serial, tag)
) WITHOUT ROWID;
CREATE INDEX device_tags_by_account ON device_tags (account_id, tag, serial);

-- The listing by name and by last heartbeat reads an account's devices in
-- the order of these (ties sorted within equal keys), and stops after its
-- page.
CREATE INDEX devices_by_name ON devices (account_id, name);
CREATE INDEX devices_by_last_seen ON devices (account_id, last_seen);
