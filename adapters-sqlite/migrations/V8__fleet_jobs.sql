-- Fleet jobs (docs/architecture.md, "Fleet jobs"): reboots in waves over the devices a
-- selector picked, and where each target stands.

-- A job. `seq` orders jobs by creation, also within one second. The
-- selector is kept twice: as the store reads it back (`selector`) and as the
-- client sent it (`selector_json`, shown as it is). `halt_failure_ratio` is
-- the number as text, read back exactly. `current_wave` is 0 until the first
-- wave starts; `next_wave_time` is set while no wave is under way.
CREATE TABLE jobs (
    id                    TEXT    PRIMARY KEY,
    account_id            INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seq                   INTEGER NOT NULL UNIQUE,
    action                TEXT    NOT NULL CHECK (action IN ('reboot')),
    selector              TEXT    NOT NULL,
    selector_json         TEXT    NOT NULL,
    status                TEXT    NOT NULL
        CHECK (status IN ('scheduled', 'running', 'halted', 'completed', 'cancelled')),
    start_time            INTEGER NOT NULL,
    wave_size             INTEGER CHECK (wave_size >= 1),
    wave_interval_seconds INTEGER NOT NULL CHECK (wave_interval_seconds >= 0),
    halt_failure_ratio    TEXT    NOT NULL,
    created_time          INTEGER NOT NULL,
    finished_time         INTEGER,
    target_count          INTEGER NOT NULL DEFAULT 0,
    current_wave          INTEGER NOT NULL DEFAULT 0,
    next_wave_time        INTEGER
) WITHOUT ROWID;
-- An account's jobs, newest first.
CREATE INDEX jobs_by_account ON jobs (account_id, seq);
-- The jobs the engine looks at on each tick: few among many finished ones.
CREATE INDEX jobs_active ON jobs (status, start_time)
    WHERE status IN ('scheduled', 'running');

-- The targets of a job, in list order (`position`, from 0); a wave's targets
-- are a run of positions. No foreign key to devices: a target outlives its
-- device. `status` is a kept status ('skipped', or the final one written
-- when its wave settled, or when its command or device went); NULL: read
-- through the command.
CREATE TABLE job_targets (
    job_id     TEXT    NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    serial     TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    wave       INTEGER NOT NULL,
    command_id TEXT,
    status     TEXT,
    detail     TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (job_id, position)
) WITHOUT ROWID;
-- The targets of commands about to be purged.
CREATE INDEX job_targets_by_command ON job_targets (command_id);
-- The targets a deleted device leaves whose status is still read through
-- its commands.
CREATE INDEX job_targets_unkept_by_serial ON job_targets (serial) WHERE status IS NULL;
