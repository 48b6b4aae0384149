-- AttemptLeases.renew: one statement for every live attempt: the lease, and the stage each entered since the last
-- beat. A row locked right now is being closed by its outcome statement (index write, quarantine record): skipped,
-- so the beat never waits for, nor deadlocks with, a transaction that closes an attempt
UPDATE attempt_journal a SET lease_until = clock_timestamp() + :leaseMs * interval '1 millisecond',
    stage = coalesce(m.stage, a.stage), stage_at = coalesce(m.stage_at::timestamptz, a.stage_at)
FROM unnest(:ids::bigint[], :stages::text[], :stageAts::text[]) AS m(attempt_id, stage, stage_at)
WHERE a.attempt_id = m.attempt_id AND a.attempt_id IN (
    SELECT attempt_id FROM attempt_journal WHERE attempt_id = ANY (:ids::bigint[]) AND closed_at IS NULL
    FOR UPDATE SKIP LOCKED)
