-- quarantine.QuarantineQueries.openCounts: open records per (error class, reason code). Parameter: source.
SELECT error_class, reason_code, count(*) AS documents FROM quarantine
WHERE source = ? AND disposition = 'open'
GROUP BY error_class, reason_code ORDER BY documents DESC, error_class, reason_code
