-- Each account's fleet version (docs/architecture.md, "Listing answers"):
-- a number that every committed change of the account's devices or of
-- their tags moves on, whichever process or statement made it, so that a
-- listing answer kept from an earlier request is sent again only while
-- the version it was read at still holds.
--
-- The triggers bump the version in the writing transaction itself. A row
-- outlives its account (no foreign key, and the account's deletion bumps
-- it once more), so an account id that SQLite gives out again never finds
-- a version that an answer of the account before it was kept at.
CREATE TABLE fleet_versions (
    account_id INTEGER PRIMARY KEY,
    version    INTEGER NOT NULL
);

CREATE TRIGGER fleet_version_device_added AFTER INSERT ON devices
BEGIN
    INSERT INTO fleet_versions (account_id, version) VALUES (NEW.account_id, 1)
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_version_device_changed AFTER UPDATE ON devices
BEGIN
    INSERT INTO fleet_versions (account_id, version) VALUES (NEW.account_id, 1)
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
    INSERT INTO fleet_versions (account_id, version)
        SELECT OLD.account_id, 1 WHERE OLD.account_id IS NOT NEW.account_id
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_version_device_removed AFTER DELETE ON devices
BEGIN
    INSERT INTO fleet_versions (account_id, version) VALUES (OLD.account_id, 1)
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_version_tag_added AFTER INSERT ON device_tags
BEGIN
    INSERT INTO fleet_versions (account_id, version) VALUES (NEW.account_id, 1)
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_version_tag_changed AFTER UPDATE ON device_tags
BEGIN
    INSERT INTO fleet_versions (account_id, version) VALUES (NEW.account_id, 1)
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
    INSERT INTO fleet_versions (account_id, version)
        SELECT OLD.account_id, 1 WHERE OLD.account_id IS NOT NEW.account_id
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_version_tag_removed AFTER DELETE ON device_tags
BEGIN
    INSERT INTO fleet_versions (account_id, version) VALUES (OLD.account_id, 1)
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_version_account_removed AFTER DELETE ON accounts
BEGIN
    INSERT INTO fleet_versions (account_id, version) VALUES (OLD.id, 1)
        ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;
