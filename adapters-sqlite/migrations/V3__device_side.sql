-- The device side: agent credentials, reported ports, command outcomes.

-- SHA-256 of the device's current agent token; NULL until it enrols.
ALTER TABLE devices ADD COLUMN token_hash TEXT;
CREATE UNIQUE INDEX devices_by_token ON devices (token_hash);

-- The listening ports the agent last reported.
CREATE TABLE device_ports (
    serial   TEXT    NOT NULL REFERENCES devices (serial) ON DELETE CASCADE,
    port     INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
    protocol TEXT    NOT NULL CHECK (protocol IN ('tcp', 'udp')),
    name     TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (serial, port, protocol)
) WITHOUT ROWID;
