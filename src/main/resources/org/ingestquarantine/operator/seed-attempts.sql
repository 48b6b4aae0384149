INSERT INTO quarantine_attempt (dlq_id, attempt_no, seen_at, error_class, error_type, error_fingerprint,
    reason_code, stage, source_version, parser_version, delivery_count, delivery_key)
SELECT q.dlq_id, k, q.first_seen_at + make_interval(hours => k - 1), q.error_class, q.error_type,
       q.error_fingerprint, q.reason_code, q.stage, q.source_version, q.parser_version, k,
       'seed/' || q.dlq_id
FROM quarantine q, generate_series(1, q.attempts) k
WHERE q.dlq_id >= '01SEED' || lpad(?::text, 20, '0') AND q.dlq_id < '01SEED' || lpad(?::text, 20, '0')
