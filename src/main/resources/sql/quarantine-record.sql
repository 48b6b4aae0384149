-- The evidence record's write (DESIGN.md section 3), version 1: one atomic statement, run by the sql: endpoint
-- of routes/quarantine.camel.yaml and by QuarantineStore.record (the DLQ sweeper). Named parameters (:#name)
-- come from the row QuarantineStore.evidenceRow builds. What this one statement guarantees:
--  * idempotent per delivery: when (delivery_key, delivery_count) is already in the history (an ack was lost),
--    nothing is written; two concurrent writes of one delivery cannot both land, the second fails on the
--    unique index quarantine_attempt_delivery and rolls back whole, so its message is not acknowledged;
--  * one row per (source, doc_id): a repeat failure adds 1 to quarantine_writes (the attempt history's count: the
--    attempt's attempt_no) and to attempts the deliveries of this failure not counted yet (attempts counts broker
--    deliveries: this delivery's count less the highest count already recorded for its delivery key, at least 1;
--    a record created counts this delivery's count), sets the latest error fields, keeps the FIRST arrival's
--    cursor_at_arrival and ingest_seq (where the document stood when it first failed), clears verdict_by, moves
--    last_seen_at forward only (two deliveries racing may commit in the other order than their clocks read; the
--    summary's last_seen_max can only grow with a record that stays in its group), keeps the last known source
--    URI (source_uri: only a URI the source's trust check admitted is ever given), payload and versions when this
--    attempt has none, re-opens a record closed as repaired, deleted
--    at source or erased, and leaves an unindexable record closed. An erased record's document published again
--    by its producer is a new arrival (the erasure removed what was held then): the record re-opens with this
--    attempt's evidence (payload, trace, message, class and reason), so the record, its attempt history and the
--    run's summary tell the same failure, and no object is written that no record names;
--  * the owner (configuration sources.<name>.owner) is written when the record is created, and on a record that
--    names none when it fails again; an owner once written is kept;
--  * the attempt is appended to the history in the same statement, so row and history never disagree; the
--    summaries the operator reads (quarantine_summary, source_summary) follow by trigger in the same transaction;
--  * the fingerprint's algorithm version (failure.ErrorFingerprint.VERSION, null for a fingerprint not computed by
--    it) is written with every fingerprint, so a record re-fingerprinted by a failure carries the version it has now;
--  * the delivery's attempt in the journal (:#attempt_id, null when there is none, e.g. the DLQ sweeper) is
--    closed as quarantined in the same statement, so the record and the attempt's close commit together (one
--    round trip, one commit); a repeat of an already recorded delivery closes it too (its outcome is recorded);
--  * the broker's dead-letter copy, when the row carries one (:#dead_letter_topic not null: Kafka only, see
--    BrokerAdapter.addDeadLetterCopy), is added to the outbox kafka_dlq_outbox in the same statement, with the
--    record's error_class, fingerprint (when it has one) and dlq_id added to its headers (DeadLetterCopy): the
--    copy exists if and only if this attempt's record committed, and a repeat of an already recorded delivery
--    adds none.
WITH seen AS (
    SELECT 1 FROM quarantine_attempt
    WHERE delivery_key = CAST(:#delivery_key AS text) AND delivery_count = CAST(:#delivery_count AS integer)
), upserted AS (
    INSERT INTO quarantine (dlq_id, source, doc_id, source_uri, source_version, source_updated_at,
        cursor_at_arrival, ingest_seq, connector_version, parser_version, chunker_version, embedder_version,
        content_type, stage, payload_uri, payload_sha256, payload_bytes, error_class, error_type, error_message,
        error_fingerprint, fingerprint_version, stack_trace_uri, attempts, quarantine_writes, first_seen_at,
        last_seen_at, disposition, reason_code, owner)
    SELECT CAST(:#dlq_id AS char(26)), CAST(:#source AS text), CAST(:#doc_id AS text),
        CAST(:#source_uri AS text), CAST(:#source_version AS text), CAST(:#source_updated_at AS timestamptz),
        CAST(:#cursor_at_arrival AS text), CAST(:#ingest_seq AS bigint), CAST(:#connector_version AS text),
        CAST(:#parser_version AS text),
        CAST(:#chunker_version AS text), CAST(:#embedder_version AS text), CAST(:#content_type AS text),
        CAST(:#stage AS text), CAST(:#payload_uri AS text), CAST(:#payload_sha256 AS char(64)),
        CAST(:#payload_bytes AS bigint), CAST(:#error_class AS text), CAST(:#error_type AS text),
        CAST(:#error_message AS text), CAST(:#error_fingerprint AS text), CAST(:#fingerprint_version AS integer),
        CAST(:#stack_trace_uri AS text),
        GREATEST(COALESCE(CAST(:#delivery_count AS integer), 1), 1), 1, CAST(:#seen_at AS timestamptz), CAST(:#seen_at AS timestamptz), 'open', CAST(:#reason_code AS text),
        CAST(:#owner AS text)
    WHERE NOT EXISTS (SELECT 1 FROM seen)
    ON CONFLICT (source, doc_id) DO UPDATE SET
        source_uri        = COALESCE(EXCLUDED.source_uri, quarantine.source_uri),
        source_version    = COALESCE(EXCLUDED.source_version, quarantine.source_version),
        source_updated_at = COALESCE(EXCLUDED.source_updated_at, quarantine.source_updated_at),
        cursor_at_arrival = COALESCE(quarantine.cursor_at_arrival, EXCLUDED.cursor_at_arrival),
        ingest_seq        = COALESCE(quarantine.ingest_seq, EXCLUDED.ingest_seq),
        connector_version = COALESCE(EXCLUDED.connector_version, quarantine.connector_version),
        parser_version    = COALESCE(EXCLUDED.parser_version, quarantine.parser_version),
        chunker_version   = COALESCE(EXCLUDED.chunker_version, quarantine.chunker_version),
        embedder_version  = COALESCE(EXCLUDED.embedder_version, quarantine.embedder_version),
        content_type      = COALESCE(EXCLUDED.content_type, quarantine.content_type),
        stage             = EXCLUDED.stage,
        payload_uri       = COALESCE(EXCLUDED.payload_uri, quarantine.payload_uri),
        payload_sha256    = CASE WHEN EXCLUDED.payload_uri IS NULL THEN quarantine.payload_sha256
                                 ELSE EXCLUDED.payload_sha256 END,
        payload_bytes     = CASE WHEN EXCLUDED.payload_uri IS NULL THEN quarantine.payload_bytes
                                 ELSE EXCLUDED.payload_bytes END,
        error_class       = EXCLUDED.error_class,
        error_type        = EXCLUDED.error_type,
        error_message     = EXCLUDED.error_message,
        error_fingerprint = EXCLUDED.error_fingerprint,
        fingerprint_version = EXCLUDED.fingerprint_version,
        stack_trace_uri   = EXCLUDED.stack_trace_uri,
        attempts          = quarantine.attempts + GREATEST(1, COALESCE(CAST(:#delivery_count AS integer), 1)
                                - COALESCE((SELECT max(a.delivery_count) FROM quarantine_attempt a
                                            WHERE a.delivery_key = CAST(:#delivery_key AS text)
                                              AND a.dlq_id = quarantine.dlq_id), 0)),
        quarantine_writes = COALESCE(quarantine.quarantine_writes, quarantine.attempts) + 1,
        verdict_by        = NULL,
        last_seen_at      = GREATEST(quarantine.last_seen_at, EXCLUDED.last_seen_at),
        disposition       = CASE WHEN quarantine.disposition IN
                                     ('repaired_parser_fixed', 'repaired_content_changed', 'deleted_at_source', 'erased')
                                 THEN 'open' ELSE quarantine.disposition END,
        closed_at         = CASE WHEN quarantine.disposition IN
                                     ('repaired_parser_fixed', 'repaired_content_changed', 'deleted_at_source', 'erased')
                                 THEN NULL ELSE quarantine.closed_at END,
        reason_code       = CASE WHEN quarantine.disposition = 'unindexable'
                                 THEN quarantine.reason_code ELSE EXCLUDED.reason_code END,
        owner             = COALESCE(quarantine.owner, EXCLUDED.owner)
    RETURNING dlq_id, quarantine_writes, error_class, error_fingerprint
), closed AS (
    UPDATE attempt_journal SET outcome = 'quarantined', closed_at = CAST(:#seen_at AS timestamptz),
        stage = COALESCE(CAST(:#stage AS text), stage)
    WHERE attempt_id = CAST(:#attempt_id AS bigint)
), dead_letter AS (
    INSERT INTO kafka_dlq_outbox (topic, record_key, record_value, headers, created_at)
    SELECT CAST(:#dead_letter_topic AS text), CAST(:#dead_letter_key AS bytea), CAST(:#dead_letter_value AS bytea),
        CAST(:#dead_letter_headers AS jsonb) || jsonb_strip_nulls(jsonb_build_object('error_class', error_class,
            'fingerprint', error_fingerprint, 'dlq_id', dlq_id)), CAST(:#seen_at AS timestamptz)
    FROM upserted
    WHERE CAST(:#dead_letter_topic AS text) IS NOT NULL
)
INSERT INTO quarantine_attempt (dlq_id, attempt_no, seen_at, error_class, error_type, error_fingerprint,
    reason_code, stage, source_uri, source_version, payload_sha256, parser_version, delivery_count, delivery_key)
SELECT dlq_id, quarantine_writes, CAST(:#seen_at AS timestamptz), CAST(:#error_class AS text), CAST(:#error_type AS text),
    CAST(:#error_fingerprint AS text), CAST(:#reason_code AS text), CAST(:#stage AS text),
    CAST(:#source_uri AS text), CAST(:#source_version AS text), CAST(:#payload_sha256 AS char(64)),
    CAST(:#parser_version AS text), CAST(:#delivery_count AS integer), CAST(:#delivery_key AS text)
FROM upserted
RETURNING dlq_id
