-- quarantine.QuarantineQueries.fingerprints: every distinct fingerprint recorded for a source. Parameter: source.
SELECT DISTINCT a.error_fingerprint FROM quarantine_attempt a JOIN quarantine q ON q.dlq_id = a.dlq_id
WHERE q.source = ? AND a.error_fingerprint IS NOT NULL ORDER BY 1
