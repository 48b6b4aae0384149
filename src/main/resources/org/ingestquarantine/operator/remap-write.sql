UPDATE quarantine q SET error_fingerprint = m.fingerprint, fingerprint_version = :version
  FROM unnest(CAST(:dlqIds AS text[]), CAST(:was AS text[]), CAST(:fingerprints AS text[])) AS m(dlq_id, was, fingerprint)
 WHERE q.dlq_id = CAST(m.dlq_id AS char(26)) AND q.disposition = 'open'
   AND q.error_fingerprint = m.was AND COALESCE(q.fingerprint_version, 0) < :version
RETURNING q.dlq_id
