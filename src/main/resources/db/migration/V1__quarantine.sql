-- The evidence record (DESIGN §3): one row per (source, doc_id), never deleted.
-- A repeat failure updates the row (attempts += 1, latest error fields) and appends one
-- quarantine_attempt row; the message text and stack trace live in the payload store, not here.

CREATE TABLE quarantine (
    dlq_id             char(26)    PRIMARY KEY,              -- ULID, assigned at the first failure
    source             text        NOT NULL,
    doc_id             text        NOT NULL,
    source_version     text,                                 -- etag / content sha256
    source_updated_at  timestamptz,
    cursor_at_arrival  text,
    ingest_seq         bigint,
    connector_version  text,
    parser_version     text,
    chunker_version    text,
    embedder_version   text,
    content_type       text,
    stage              text,                                 -- pipeline stage that failed
    payload_uri        text,                                 -- null: never fetched, expired or erased
    payload_sha256     char(64),
    payload_bytes      bigint      CHECK (payload_bytes >= 0),
    error_class        text        NOT NULL CHECK (error_class IN
                           ('transient', 'ambiguous_parse', 'resource_fatal',
                            'permanent_input', 'downstream_contract', 'unclassified')),
    error_type         text,
    error_message      text,
    error_fingerprint  text,
    stack_trace_uri    text,
    attempts           integer     NOT NULL CHECK (attempts >= 1),
    first_seen_at      timestamptz NOT NULL,
    last_seen_at       timestamptz NOT NULL,
    disposition        text        NOT NULL DEFAULT 'open' CHECK (disposition IN
                           ('open', 'repaired_parser_fixed', 'repaired_content_changed',
                            'deleted_at_source', 'unindexable', 'erased')),
    reason_code        text,
    owner              text,
    closed_at          timestamptz,
    CONSTRAINT quarantine_document UNIQUE (source, doc_id),
    CONSTRAINT quarantine_closed_has_time CHECK ((disposition = 'open') = (closed_at IS NULL))
);

-- The attempt history: one row per recorded failure, appended, never rewritten.
CREATE TABLE quarantine_attempt (
    dlq_id             char(26)    NOT NULL REFERENCES quarantine (dlq_id),
    attempt_no         integer     NOT NULL CHECK (attempt_no >= 1),
    seen_at            timestamptz NOT NULL,
    error_class        text        NOT NULL,
    error_type         text,
    error_fingerprint  text,
    reason_code        text,
    stage              text,
    source_version     text,
    payload_sha256     char(64),
    parser_version     text,
    delivery_count     integer,
    delivery_key       text,                                 -- broker message identity
    PRIMARY KEY (dlq_id, attempt_no)
);

-- Idempotency guard: one broker delivery is recorded at most once, even if its ack was lost.
CREATE UNIQUE INDEX quarantine_attempt_delivery
    ON quarantine_attempt (delivery_key, delivery_count) WHERE delivery_key IS NOT NULL;
