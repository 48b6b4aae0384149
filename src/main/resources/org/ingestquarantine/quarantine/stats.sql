-- quarantine.QuarantineQueries.stats: quarantine volume per source.
SELECT source, sum(attempts) AS records, count(*) AS documents,
       count(*) FILTER (WHERE disposition = 'open') AS open,
       min(first_seen_at) AS oldest, max(last_seen_at) AS newest
FROM quarantine GROUP BY source ORDER BY source
