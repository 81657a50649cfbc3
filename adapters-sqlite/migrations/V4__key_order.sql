-- The order keys were made in, so an account's oldest reset keys can be
-- ended first (keys made in the same second share an expiry time).
ALTER TABLE email_keys ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
