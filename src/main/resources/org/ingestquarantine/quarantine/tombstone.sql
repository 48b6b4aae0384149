-- The tombstone of a document that has no quarantine record (quarantine.RecordClosing.tombstone): erased, closed,
-- no attempt. Parameters: dlq_id, source, doc_id, error_class, first_seen_at, last_seen_at, disposition,
-- reason_code, owner, closed_at. No row when the document has a record already.
INSERT INTO quarantine (dlq_id, source, doc_id, error_class, attempts, first_seen_at, last_seen_at,
    disposition, reason_code, owner, closed_at)
VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)
ON CONFLICT (source, doc_id) DO NOTHING
RETURNING *
