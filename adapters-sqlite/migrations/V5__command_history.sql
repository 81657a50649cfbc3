-- The order a device's commands were requested in (several may share a
-- second), for its command history.
ALTER TABLE device_commands ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX device_commands_history ON device_commands (serial, seq);
