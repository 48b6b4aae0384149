-- quarantine.QuarantineQueries.cohorts: open records grouped by parser version, error class and fingerprint.
SELECT parser_version, error_class, error_fingerprint, count(*) AS documents,
       min(first_seen_at) AS since, max(last_seen_at) AS last_seen
FROM quarantine WHERE disposition = 'open'
GROUP BY parser_version, error_class, error_fingerprint
ORDER BY documents DESC, since, parser_version, error_class, error_fingerprint
