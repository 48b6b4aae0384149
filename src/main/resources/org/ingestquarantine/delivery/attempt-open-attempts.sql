-- JournalReads.openAttempts: the open attempts of one message, live (lease still running) and dead, by the clock of
-- the database, with the last stage the most recent death reached
WITH open AS (
    SELECT attempt_id, stage, started_at,
           coalesce(lease_until > clock_timestamp(), false) AS live
    FROM attempt_journal WHERE delivery_key = :deliveryKey AND closed_at IS NULL)
SELECT (SELECT array_agg(attempt_id ORDER BY attempt_id) FROM open WHERE live) AS live,
       (SELECT count(*) FROM open WHERE NOT live) AS deaths, d.stage, d.started_at
FROM (SELECT 1) one LEFT JOIN LATERAL (
    SELECT stage, started_at FROM open WHERE NOT live
    ORDER BY started_at DESC, attempt_id DESC LIMIT 1) d ON true
