-- metrics.StoreGauges: open records per owner, and how many of them are overdue. Parameters: the owner tag of
-- records that name none, the overdue age in milliseconds.
SELECT COALESCE(owner, ?),
    count(*) FILTER (WHERE first_seen_at < now() - ?::bigint * interval '1 millisecond')
FROM quarantine WHERE disposition = 'open'
GROUP BY 1
