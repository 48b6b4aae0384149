-- Issue 23 item 6: the fingerprint's algorithm is versioned (failure.ErrorFingerprint.VERSION; its history is in
-- that class's comment). fingerprint_version is the version that computed the record's error_fingerprint, written
-- with the fingerprint by sql/quarantine-record.sql and stamped by `fingerprints remap` once it has recomputed it.
--
-- Rows written before this migration get NULL, "before versioning": which version wrote a row cannot be told from
-- the database. Version 2 (a Reasoned root cause's reason code in the key) came with V22's release but not with V22
-- (the migration changed no fingerprint and was committed before the algorithm changed), so neither the time V22
-- was applied here nor a row's last_seen_at separates the two (a process of the previous release may still have
-- been writing beside one that had migrated); version 1 itself changed once without a version (plumbing frames,
-- 2026-12-01); and for a root cause that is not Reasoned both versions give the same fingerprint, which only the
-- stack trace in the payload store can tell. `fingerprints remap` reads that evidence per record.
ALTER TABLE quarantine ADD COLUMN fingerprint_version smallint CHECK (fingerprint_version >= 1);

-- The open records of a version other than the running one (NULL as 0), for the cohort listings' flag: few once
-- remap has run, so cohorts reads them from this index rather than every open record.
CREATE INDEX quarantine_open_fingerprint_version ON quarantine ((COALESCE(fingerprint_version, 0)))
    WHERE disposition = 'open';
