-- AttemptAdmission.admit: reads the open attempts of a delivery and opens a new one unless one is live, the deaths
-- reached the budget or an earlier attempt settled the message, in ONE statement. The relaxed CTE (OpenCommit) is how
-- the open commits; the counted_delivery placeholder is the predicate of a counted delivery (AttemptClosing).
-- n: the count given, or (Kafka, RabbitMQ) the attempts journalled so far + 1, read before this one is opened,
-- less those released because their quarantine record could not be written (record_not_written)
WITH {relaxed}n AS (
    SELECT coalesce(:deliveryCount::int, (SELECT count(*)::int + 1 FROM attempt_journal WHERE delivery_key = :deliveryKey
                                          AND {counted_delivery}))
        AS delivery_count
), open AS (
    SELECT attempt_id, stage, started_at,
           coalesce(lease_until > clock_timestamp(), false) AS live
    FROM attempt_journal WHERE delivery_key = :deliveryKey AND closed_at IS NULL
), settled AS (
    SELECT EXISTS (SELECT 1 FROM attempt_journal WHERE delivery_key = :deliveryKey
                   AND outcome IN ('indexed', 'skipped', 'quarantined', 'skipped_by_policy')) AS settled
), opened AS (
    INSERT INTO attempt_journal (delivery_key, source, doc_id, delivery_count, started_at, owner,
        lease_until)
    SELECT :deliveryKey, :source, :docId, n.delivery_count, :startedAt, :owner,
           clock_timestamp() + :leaseMs * interval '1 millisecond'
    FROM n
    WHERE NOT EXISTS (SELECT 1 FROM open WHERE live)
      AND NOT (SELECT settled FROM settled)
      AND (SELECT count(*) FROM open WHERE NOT live) < :deathBudget
    RETURNING attempt_id
)
SELECT (SELECT attempt_id FROM opened) AS opened, (SELECT delivery_count FROM n) AS delivery_count,
       (SELECT array_agg(attempt_id ORDER BY attempt_id) FROM open WHERE live) AS live,
       (SELECT count(*) FROM open WHERE NOT live) AS deaths, d.stage, d.started_at,
       doc.source_version, doc.parser_version, doc.chunker_version, doc.embedder_version,
       EXISTS (SELECT 1 FROM quarantine q WHERE q.source = :source AND q.doc_id = :docId
               AND q.disposition = 'open') AS open_record,
       (SELECT settled FROM settled) AS settled,
       (SELECT count(*)::int FROM attempt_journal WHERE delivery_key = :deliveryKey
        AND outcome = 'pipeline_fault') AS pipeline_faults,
       (SELECT count(*)::int FROM attempt_journal WHERE delivery_key = :deliveryKey
        AND outcome = 'storm_paused') AS storm_pauses,
       (SELECT v FROM relaxed) AS open_commit
FROM (SELECT 1) one
LEFT JOIN LATERAL (
    SELECT stage, started_at FROM open WHERE NOT live
    ORDER BY started_at DESC, attempt_id DESC LIMIT 1) d ON true
LEFT JOIN documents doc ON doc.source = :source AND doc.doc_id = :docId AND doc.state = 'searchable'
