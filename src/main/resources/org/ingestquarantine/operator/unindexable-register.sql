SELECT source, error_fingerprint, parser_version, error_class, reason_code, owner, count(*) AS documents,
       min(first_seen_at) AS since, max(closed_at) AS disposed_at
  FROM quarantine
 WHERE disposition = 'unindexable'
 GROUP BY source, error_fingerprint, parser_version, error_class, reason_code, owner
 ORDER BY documents DESC, source, error_fingerprint
