-- PolicySkips.record: closes the attempt as skipped_by_policy and records the skip, in one statement
WITH closed AS (
    UPDATE attempt_journal SET outcome = 'skipped_by_policy', closed_at = :closedAt,
        stage = coalesce(:stage, stage), stage_at = coalesce(:stageAt, stage_at)
    WHERE attempt_id = :attemptId RETURNING attempt_id, closed_at
)
INSERT INTO skipped_documents (source, doc_id, source_version, payload_sha256, reason, attempt_id,
    skipped_at)
SELECT :source, :docId, :sourceVersion, :sha256, :reason, attempt_id, closed_at FROM closed
ON CONFLICT (source, doc_id) DO UPDATE SET source_version = excluded.source_version,
    payload_sha256 = excluded.payload_sha256, reason = excluded.reason,
    attempt_id = excluded.attempt_id, skipped_at = excluded.skipped_at
