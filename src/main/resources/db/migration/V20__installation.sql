-- This database's identity: one row, a random id made once. A payload store (an S3 bucket and prefix, or a folder)
-- is claimed by the installation whose records name its objects (quarantine/PayloadStores.claim), so two databases
-- never share one: objects are named by their content, and an erase or expiry in one database would otherwise
-- delete bytes the other's records still name.
CREATE TABLE installation (
    one_row     boolean     PRIMARY KEY DEFAULT true CHECK (one_row),
    id          uuid        NOT NULL DEFAULT gen_random_uuid(),
    created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO installation DEFAULT VALUES;
