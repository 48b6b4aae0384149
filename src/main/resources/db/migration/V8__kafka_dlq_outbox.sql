-- Kafka dead-letter copies not yet sent (broker/kafka/KafkaDeadLetterOutbox): a quarantined record's copy for
-- ingest.dlq is written here after its quarantine record committed and before its offset is committed, and
-- deleted once Kafka acknowledged it. Rows wait here while Kafka is away; nothing else reads them.
CREATE TABLE kafka_dlq_outbox (
    outbox_id    bigserial PRIMARY KEY,
    topic        text        NOT NULL,
    record_key   bytea,
    record_value bytea,
    -- header name -> value (UTF-8 text), the copy's headers
    headers      jsonb       NOT NULL,
    created_at   timestamptz NOT NULL
);
