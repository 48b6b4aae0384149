SELECT dlq_id, error_class, error_fingerprint, reason_code, stack_trace_uri
  FROM quarantine
 WHERE disposition = 'open' AND COALESCE(fingerprint_version, 0) < :version AND dlq_id > :after
 ORDER BY dlq_id
 LIMIT :batch
