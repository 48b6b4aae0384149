-- Issue 23: which evidence decided a repair's verdict, drains that attempted nothing, and attempts that count
-- deliveries.
--
-- verdict_by: what decided a record's repaired_content_changed / repaired_parser_fixed (ingest.RepairClose):
-- 'sha256' (the record's payload digest against the bytes indexed now), 'version' (the source version, etag or
-- a folder's content sha256, where no digest is held on both sides) or 'none' (neither held: no evidence that the
-- bytes changed). Null for an open record, one closed otherwise, or one closed before this version.
ALTER TABLE quarantine ADD COLUMN verdict_by text CHECK (verdict_by IN ('sha256', 'version', 'none'));
ALTER TABLE drain_run_items ADD COLUMN verdict_by text CHECK (verdict_by IN ('sha256', 'version', 'none'));

-- A drain whose selection was not attempted at all (every record not_attempted:<reason>, nothing asked of a
-- source) is no drain: it is recorded as such, and "time since the last drain" does not count it.
ALTER TABLE drain_runs DROP CONSTRAINT drain_runs_status_check;
ALTER TABLE drain_runs ADD CONSTRAINT drain_runs_status_check
    CHECK (status IN ('running', 'finished', 'interrupted', 'nothing_attempted'));
UPDATE drain_runs r SET status = 'nothing_attempted'
WHERE status = 'finished' AND selected > 0
  AND NOT EXISTS (SELECT 1 FROM jsonb_object_keys(r.outcome_counts) k WHERE k NOT LIKE 'not_attempted:%');

-- attempts counts deliveries (each broker delivery of the document that ended in this record, as the delivery
-- count knows them), quarantine_writes the failures recorded (the attempt history's rows; attempt_no is its
-- count). Until now attempts counted the writes: they are kept as the writes, and attempts becomes the
-- deliveries the history knows (per delivery key its highest delivery count; a write without a key is one),
-- never fewer than before. A row written by anything but sql/quarantine-record.sql may leave quarantine_writes
-- null: that statement reads attempts then, as before.
ALTER TABLE quarantine ADD COLUMN quarantine_writes integer CHECK (quarantine_writes >= 0);
UPDATE quarantine SET quarantine_writes = attempts;
UPDATE quarantine q SET attempts = d.deliveries
FROM (
    SELECT dlq_id, sum(n) AS deliveries FROM (
        SELECT dlq_id, CASE WHEN delivery_key IS NULL THEN count(*) ELSE GREATEST(max(delivery_count), 1) END AS n
        FROM quarantine_attempt GROUP BY dlq_id, delivery_key
    ) k GROUP BY dlq_id
) d
WHERE d.dlq_id = q.dlq_id AND d.deliveries > q.attempts;
