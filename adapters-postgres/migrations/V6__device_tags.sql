-- Tags on devices (docs/api.md, "Fleet"): at most 20 per device, lowercase
-- ASCII, compared byte by byte. `account_id` repeats the device's account so
-- that one index answers "the account's devices with tag T" and the tag
-- counts without reading the devices.
CREATE TABLE device_tags (
    serial     TEXT   COLLATE "C" NOT NULL REFERENCES devices (serial) ON DELETE CASCADE,
    account_id BIGINT NOT NULL,
    tag        TEXT   COLLATE "C" NOT NULL,
    PRIMARY KEY (serial, tag)
);
CREATE INDEX device_tags_by_account ON device_tags (account_id, tag, serial);

-- The online devices of an account (a heartbeat in the last minutes) without
-- reading the others.
CREATE INDEX devices_by_last_seen ON devices (account_id, last_seen);
