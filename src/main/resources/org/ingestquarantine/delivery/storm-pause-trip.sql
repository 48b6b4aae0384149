-- SourcePauses.trip: pauses the source of a storm in one statement, unless one of its quarantine attempts carried the
-- fingerprint within the look-back before the storm began (attempts of an earlier pause for it on never count)
WITH cut AS (
    SELECT LEAST(:began::timestamptz, (SELECT min(storm_began_at) FROM storm_pause
                                       WHERE source = :source AND error_fingerprint = :fingerprint)) AS before
), known AS (
    SELECT max(a.seen_at) AS last_seen
    FROM quarantine q JOIN quarantine_attempt a ON a.dlq_id = q.dlq_id, cut
    WHERE q.source = :source AND a.error_fingerprint = :fingerprint AND a.seen_at < cut.before
      AND a.seen_at >= :began::timestamptz - :knownWithinMs::bigint * interval '1 millisecond'
), paused AS (
    INSERT INTO storm_pause (source, error_fingerprint, error_class, reason_code, failed, deliveries,
                             storm_began_at, paused_at, paused_by)
    SELECT :source, :fingerprint, :errorClass, :reasonCode, :failed, :deliveries, :began, :pausedAt, :pausedBy
    WHERE (SELECT last_seen FROM known) IS NULL
    ON CONFLICT (source) WHERE resumed_at IS NULL DO NOTHING
    RETURNING pause_id
)
SELECT (SELECT last_seen FROM known) AS last_seen, (SELECT pause_id FROM paused) AS paused
