-- AttemptAdmission.open: opens an attempt, nothing read. The relaxed CTE (OpenCommit) is how the open commits,
-- its column relaxed.v selected so that it is always evaluated
WITH {relaxed}opened AS (
    INSERT INTO attempt_journal (delivery_key, source, doc_id, delivery_count, started_at, owner, lease_until)
    VALUES (:deliveryKey, :source, :docId, :deliveryCount, :startedAt, :owner,
            clock_timestamp() + :leaseMs * interval '1 millisecond')
    RETURNING attempt_id
)
SELECT attempt_id FROM opened, relaxed WHERE relaxed.v IS NOT NULL
